// The composer: a text box (Enter sends, Shift+Enter adds a line), a send
// button, and a stop button while a run streams. Sending never empties the
// box by itself: the chat calls `clear` once the kernel took the message,
// so a refused or unanswered send keeps what the user typed. When a send
// would change something the user may not expect (a call waiting for them is
// rejected), `warnBeforeSend` says what: the box shows it and sends on confirm.
// Esc leaves the box (to the notebook, so JupyterLab's command mode keys work
// again); Up in an empty box edits the last message the user sent.
//
// Attachments wait as chips above the box until sent: files from the attach
// button, dropped on the composer or pasted into the box, and names of the
// chat's data picked from the `@` menu (typing `@` lists them). A file over
// the size limit is refused at once with a notice; the text stays.

import { createAttachButton, createPendingAttachments } from "./attachments.js";
import { createMentionMenu } from "./mentions.js";
import { createSendWarning } from "./warning.js";
import { h, show } from "../common/dom.js";

export { sizeText } from "./attachments.js";
export { mentionAt } from "./mentions.js";

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

/** @typedef {import("./attachments.js").Pending} Pending */

/**
 * A text box as tall as its text, up to `max` px; its scrollbar shows only
 * when the text is taller. The height counts the borders (the box is
 * border-box sized): without them a one-line box was 2 px short and
 * scrolled, showing a scrollbar on an empty box.
 * @param {HTMLTextAreaElement} input @param {number} [max]
 */
export function fitToText(input, max = 200) {
  input.style.height = "auto";
  const borders = input.offsetHeight - input.clientHeight;
  const needed = input.scrollHeight + Math.max(0, borders);
  input.style.height = `${Math.min(needed, max)}px`;
  input.style.overflowY = needed > max ? "auto" : "hidden";
}

/** The composer's box grows with its text, up to 200 px. @param {HTMLTextAreaElement} input */
const autosize = (input) => fitToText(input);

/**
 * Files dropped on the composer attach; the browser must not open them instead.
 * @param {HTMLElement} el @param {(files: File[]) => void} addFiles
 */
function acceptDroppedFiles(el, addFiles) {
  el.addEventListener("dragover", (event) => {
    if (!event.dataTransfer?.types?.includes?.("Files")) return;
    event.preventDefault();
    el.classList.add("gu-drop-target");
  });
  el.addEventListener("dragleave", () => el.classList.remove("gu-drop-target"));
  el.addEventListener("drop", (event) => {
    el.classList.remove("gu-drop-target");
    const files = [...(event.dataTransfer?.files ?? [])];
    if (!files.length) return;
    event.preventDefault();
    event.stopPropagation(); // JupyterLab would open the file in a new tab
    addFiles(files);
  });
}

/**
 * @param {{onSend: (text: string, attachments: Pending[]) => void, onStop: () => void,
 *          onEditLast?: () => boolean, warnBeforeSend?: () => string | null,
 *          notify?: (text: string) => void, dataNames?: () => string[],
 *          dataDetails?: () => any,
 *          limits?: () => ReturnType<typeof import("../protocol.js").readLimits>}} actions
 *   `onEditLast`: open the editor on the last user message (false: there is
 *   none); `warnBeforeSend`: what a send would do besides sending, or null to
 *   send at once; `limits`: the kernel's (see attachments.js)
 */
export function createComposer({
  onSend,
  onStop,
  onEditLast,
  warnBeforeSend = () => null,
  notify = () => {},
  dataNames = () => [],
  dataDetails = () => ({}),
  limits,
}) {
  const input = h("textarea.gu-input", {
    rows: 1,
    placeholder: "Send a message… (@ to attach data)",
    "aria-label": "Message",
    // "/" anywhere in the chat comes back here (see widget-keys.js)
    "aria-keyshortcuts": "/",
    title: "Enter sends, Shift+Enter adds a line. In the chat: / comes back here, Esc stops a reply.",
  });
  const send = h("button.gu-send", { type: "button", "aria-label": "Send message" }, "Send");
  const stop = h(
    "button.gu-stop",
    { type: "button", "aria-label": "Stop the run", title: "Stop the run (Esc)", hidden: true },
    "Stop",
  );
  const picker = h("input.gu-file-input", { type: "file", multiple: true, hidden: true });
  const attach = createAttachButton();
  const attachments = createPendingAttachments({ notify, limits });
  const menu = createMentionMenu(input, {
    dataNames,
    dataDetails,
    onPick: (name) => {
      attachments.add({ kind: "data", name });
      autosize(input);
    },
  });
  let running = false;
  const canSend = (text) => (text || attachments.count > 0) && !send.disabled;
  const warning = createSendWarning({
    onConfirm: () => {
      const text = input.value.trim();
      menu.close();
      if (canSend(text)) onSend(text, attachments.list());
    },
    onCancel: () => input.focus(),
  });

  function submit() {
    const text = input.value.trim();
    if (!canSend(text)) return;
    const why = warnBeforeSend();
    if (why && !warning.shown) {
      warning.open(why);
      return;
    }
    warning.dismiss();
    menu.close();
    onSend(text, attachments.list());
  }

  input.addEventListener("keydown", (event) => {
    if (menu.handleKey(event)) {
      event.stopPropagation();
      return;
    }
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape" && !event.isComposing) {
      // While a reply streams, Esc stops it (the chat's key handler does).
      if (!running) leave(input);
      return; // JupyterLab reads this Esc too: it enters command mode
    } else if (event.key === "ArrowUp" && !input.value && onEditLast?.()) {
      event.preventDefault();
    }
    // Keep notebook shortcuts (e.g. JupyterLab's command mode keys) out of the box.
    event.stopPropagation();
  });
  input.addEventListener("input", () => {
    autosize(input);
    menu.refresh();
  });
  input.addEventListener("blur", () => menu.close());
  input.addEventListener("paste", (event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (!files.length) return; // plain text pastes as usual
    event.preventDefault();
    attachments.addFiles(files);
  });
  send.addEventListener("click", submit);
  stop.addEventListener("click", () => onStop());
  attach.addEventListener("click", () => picker.click());
  picker.addEventListener("change", () => {
    attachments.addFiles([...(picker.files ?? [])]);
    picker.value = "";
  });

  const row = h(
    "div.gu-composer-row",
    {},
    attach,
    picker,
    input,
    h("div.gu-composer-buttons", {}, stop, send),
  );
  const el = h("div.gu-composer.gu-composer-box", {}, warning.el, attachments.el, menu.el, row);
  acceptDroppedFiles(el, (files) => attachments.addFiles(files));
  return {
    el,
    input,
    /** The attachments waiting to be sent. */
    pending: () => attachments.list(),
    /** Empty the box after `text` (and `sent` attachments) were taken, unless the user changed it since. */
    clear(text, sent = []) {
      attachments.remove(sent);
      if (input.value.trim() !== text) return;
      input.value = "";
      autosize(input);
    },
    /** @param {boolean} isRunning */
    update(isRunning) {
      running = isRunning;
      if (warning.shown && !warnBeforeSend()) warning.dismiss(); // nothing waits any more
      // A focused button that hides (Stop, once the run ended) or turns off
      // (Send, while it runs) would drop the focus to the page: the box keeps it.
      const lost = (document.activeElement === stop && !isRunning) || (document.activeElement === send && isRunning);
      send.disabled = isRunning;
      show(stop, isRunning);
      if (lost) input.focus();
    },
  };
}
