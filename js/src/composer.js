// The composer: a text box (Enter sends, Shift+Enter adds a line), a send
// button, and a stop button while a run streams. Sending never empties the
// box by itself: the chat calls `clear` once the kernel took the message,
// so a refused or unanswered send keeps what the user typed. When a send
// would change something the user may not expect (a call waiting for them is
// rejected), `warnBeforeSend` says what: the box shows it and sends on confirm.
// Esc leaves the box (to the notebook, so JupyterLab's command mode keys work
// again); Up in an empty box edits the last message the user sent.

import { h, show } from "./dom.js";

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

/**
 * @param {{onSend: (text: string) => void, onStop: () => void, onEditLast?: () => boolean,
 *          warnBeforeSend?: () => string | null}} actions `onEditLast`: open the
 *   editor on the last user message (false: there is none); `warnBeforeSend`:
 *   what a send would do besides sending, or null to send at once
 */
export function createComposer({ onSend, onStop, onEditLast, warnBeforeSend = () => null }) {
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

  const warningText = h("span.gu-composer-warning-text");
  const sendAnyway = h("button.gu-send-anyway", { type: "button" }, "Send anyway");
  const keepWaiting = h("button.gu-send-cancel", { type: "button" }, "Cancel");
  const warning = h(
    "div.gu-composer-warning",
    { role: "alert", hidden: true },
    warningText,
    h("span.gu-composer-warning-buttons", {}, sendAnyway, keepWaiting),
  );

  function dismiss() {
    show(warning, false);
  }

  function submit() {
    const text = input.value.trim();
    if (!text || send.disabled) return;
    const why = warnBeforeSend();
    if (why && warning.hidden) {
      warningText.textContent = why;
      show(warning, true);
      return;
    }
    dismiss();
    onSend(text);
  }

  sendAnyway.addEventListener("click", () => {
    const text = input.value.trim();
    dismiss();
    if (text && !send.disabled) onSend(text);
  });
  keepWaiting.addEventListener("click", () => {
    dismiss();
    input.focus();
  });

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

  const row = h("div.gu-composer-row", {}, input, h("div.gu-composer-buttons", {}, stop, send));
  const el = h("div.gu-composer", {}, warning, row);
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
      if (!warning.hidden && !warnBeforeSend()) dismiss(); // nothing waits any more
      send.disabled = running;
      show(stop, running);
    },
  };
}
