// The composer: a text box (Enter sends, Shift+Enter adds a line), a send
// button, and a stop button while a run streams. Sending never empties the
// box by itself: the chat calls `clear` once the kernel took the message,
// so a refused or unanswered send keeps what the user typed. Esc leaves the
// box (to the notebook, so JupyterLab's command mode keys work again);
// Up in an empty box edits the last message the user sent.

import { h, show } from "./dom.js";

/**
 * @param {{onSend: (text: string) => void, onStop: () => void, onEditLast?: () => boolean}} actions
 *   `onEditLast`: open the editor on the last user message (false: there is none)
 */
/**
 * Move the focus out of the box to the notebook around the widget (its
 * cell, else the notebook), where JupyterLab's command mode keys act.
 * @param {HTMLElement} input
 */
function leave(input) {
  const target = /** @type {HTMLElement | null} */ (
    input.closest(".jp-Notebook") ?? input.closest(".jp-Cell")
  );
  input.blur();
  target?.focus?.({ preventScroll: true });
}

export function createComposer({ onSend, onStop, onEditLast }) {
  const input = h("textarea.gu-input", {
    rows: 1,
    placeholder: "Send a message…",
    "aria-label": "Message",
  });
  const send = h("button.gu-send", { type: "button", "aria-label": "Send message" }, "Send");
  const stop = h(
    "button.gu-stop",
    { type: "button", "aria-label": "Stop the run", hidden: true },
    "Stop",
  );

  function submit() {
    const text = input.value.trim();
    if (!text || send.disabled) return;
    onSend(text);
  }

  function autosize() {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape" && !event.isComposing) {
      leave(input);
      return; // JupyterLab reads this Esc too: it enters command mode
    } else if (event.key === "ArrowUp" && !input.value && onEditLast?.()) {
      event.preventDefault();
    }
    // Keep notebook shortcuts (e.g. JupyterLab's command mode keys) out of the box.
    event.stopPropagation();
  });
  input.addEventListener("input", autosize);
  send.addEventListener("click", submit);
  stop.addEventListener("click", () => onStop());

  const el = h("div.gu-composer", {}, input, h("div.gu-composer-buttons", {}, stop, send));
  return {
    el,
    input,
    /** Empty the box after `text` was taken, unless the user changed it since. */
    clear(text) {
      if (input.value.trim() !== text) return;
      input.value = "";
      autosize();
    },
    /** @param {boolean} running */
    update(running) {
      send.disabled = running;
      show(stop, running);
    },
  };
}
