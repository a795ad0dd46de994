// The chat's own keys, read only while the focus is inside the widget (so
// JupyterLab keeps its Esc and shortcuts everywhere else):
// - Esc while a reply streams stops the run (and does not reach JupyterLab);
// - "/" outside a text field focuses the composer;
// - the keys that move or press inside the chat (arrows, Page Up/Down, Home,
//   End, Space, Enter) do that here and stop: the browser still scrolls the
//   focused conversation log or presses the button, but JupyterLab does not
//   also move its cell selection or open a cell's editor.
// A key a control already handled (a menu's Esc, an editor's) stops there
// and never reaches this listener.

/** Whether keys typed at `el` are text (a box, a field), not commands. @param {EventTarget | null} el */
function isTextField(el) {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  return el instanceof HTMLInputElement && !["button", "checkbox", "radio", "submit", "reset", "file"].includes(el.type);
}

/** Keys whose default action (scroll, press, move the caret) belongs to the chat. */
const KEPT_KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "PageUp", "PageDown", "Home", "End", " ", "Enter"]);

/**
 * @param {HTMLElement} root the widget
 * @param {{running: () => boolean, stop: () => void, focusComposer: () => void}} actions
 * @returns {() => void} stops listening
 */
export function listenForWidgetKeys(root, { running, stop, focusComposer }) {
  /** @param {KeyboardEvent} event */
  const onKey = (event) => {
    if (event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape" && running()) {
      event.preventDefault();
      event.stopPropagation();
      stop();
    } else if (event.key === "/" && !isTextField(event.target)) {
      event.preventDefault();
      event.stopPropagation();
      focusComposer();
    } else if (KEPT_KEYS.has(event.key)) {
      event.stopPropagation(); // not preventDefault: the log scrolls, the button presses
    }
  };
  root.addEventListener("keydown", onKey);
  return () => root.removeEventListener("keydown", onKey);
}
