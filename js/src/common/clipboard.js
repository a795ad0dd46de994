// Copy text to the clipboard, and show it happened on the button pressed.

/**
 * Write `text` to the clipboard. The async Clipboard API needs a secure
 * context (JupyterLab over https or localhost); elsewhere a hidden textarea
 * and `execCommand("copy")` do it.
 * @param {string} text
 * @returns {Promise<boolean>} whether the text was copied
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // refused (no permission, no focus): try the old way
  }
  try {
    const box = document.createElement("textarea");
    box.value = text;
    box.setAttribute("readonly", "");
    box.style.position = "fixed";
    box.style.opacity = "0";
    document.body.append(box);
    box.select();
    const done = document.execCommand?.("copy") ?? false;
    box.remove();
    return done;
  } catch {
    return false;
  }
}

const CONFIRM_MS = 1500;

/**
 * Copy `text` and say so on `button` for a moment: its text and label become
 * "Copied" (or "Copy failed"), then come back.
 * @param {HTMLElement} button
 * @param {string} text
 */
export async function copyWithConfirmation(button, text) {
  const ok = await copyText(text);
  const label = button.getAttribute("aria-label");
  const shown = button.textContent;
  // An icon button keeps its icon (and its width): its label and colour say it.
  const iconOnly = !!button.querySelector("svg") && !shown?.trim();
  const said = ok ? "Copied" : "Copy failed";
  button.dataset.copied = ok ? "yes" : "failed";
  if (!iconOnly) button.textContent = said;
  if (label !== null) button.setAttribute("aria-label", said);
  setTimeout(() => {
    delete button.dataset.copied;
    if (!iconOnly) button.textContent = shown;
    if (label !== null) button.setAttribute("aria-label", label);
  }, CONFIRM_MS);
  return ok;
}

/**
 * Copy a code block when its "Copy code" button is clicked (the buttons that
 * `markdown/markdown.js` adds, anywhere under `root`). One listener for all: the
 * markdown views rebuild blocks as they stream, and a rendered string has no
 * listeners of its own.
 * @param {HTMLElement} root
 * @returns {() => void} stops listening
 */
export function listenForCodeCopies(root) {
  /** @param {Event} event */
  const onClick = (event) => {
    const target = /** @type {Element | null} */ (event.target);
    const button = target?.closest?.("button.gu-copy-code");
    if (!(button instanceof HTMLElement) || !root.contains(button)) return;
    const code = button.parentElement?.querySelector("pre code, pre");
    if (code) void copyWithConfirmation(button, code.textContent ?? "");
  };
  root.addEventListener("click", onClick);
  return () => root.removeEventListener("click", onClick);
}
