// The composer: a text box (Enter sends, Shift+Enter adds a line), a send
// button, and a stop button while a run streams. Sending never empties the
// box by itself: the chat calls `clear` once the kernel took the message,
// so a refused or unanswered send keeps what the user typed.

import { h, show } from "./dom.js";

/**
 * @param {{onSend: (text: string) => void, onStop: () => void}} actions
 */
export function createComposer({ onSend, onStop }) {
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
