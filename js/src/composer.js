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

import { h, show } from "./dom.js";
import { MAX_ATTACHMENTS, MAX_UPLOAD_BYTES } from "./protocol.js";

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
 * A pending attachment: a file (its bytes travel as a comm buffer) or a
 * name of the chat's data.
 * @typedef {{kind: "file", name: string, mime: string, size: number, file: Blob}
 *   | {kind: "data", name: string}} Pending
 */

/** "1.5 MB", "12 KB", "300 B". */
export function sizeText(bytes) {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** The `@word` being typed just before the caret, or null. */
export function mentionAt(text, caret) {
  const match = /(^|\s)@([\w.-]*)$/.exec(text.slice(0, caret));
  return match ? { start: caret - match[2].length - 1, query: match[2] } : null;
}

/**
 * @param {{onSend: (text: string, attachments: Pending[]) => void, onStop: () => void,
 *          onEditLast?: () => boolean, warnBeforeSend?: () => string | null,
 *          notify?: (text: string) => void, dataNames?: () => string[]}} actions
 *   `onEditLast`: open the editor on the last user message (false: there is
 *   none); `warnBeforeSend`: what a send would do besides sending, or null to
 *   send at once
 */
export function createComposer({
  onSend,
  onStop,
  onEditLast,
  warnBeforeSend = () => null,
  notify = () => {},
  dataNames = () => [],
}) {
  const input = h("textarea.gu-input", {
    rows: 1,
    placeholder: "Send a message… (@ to attach data)",
    "aria-label": "Message",
  });
  const send = h("button.gu-send", { type: "button", "aria-label": "Send message" }, "Send");
  const stop = h(
    "button.gu-stop",
    { type: "button", "aria-label": "Stop the run", hidden: true },
    "Stop",
  );
  const picker = h("input.gu-file-input", { type: "file", multiple: true, hidden: true });
  const attach = h(
    "button.gu-attach",
    { type: "button", "aria-label": "Attach files", title: "Attach files (or drop or paste them)" },
    "📎",
  );
  const chips = h("div.gu-pending-attachments", { hidden: true });
  const menu = h("div.gu-mention-menu", { role: "listbox", hidden: true, "aria-label": "Data to attach" });

  /** @type {Pending[]} */
  let pending = [];
  let mention = null;
  let menuIndex = 0;
  let menuNames = [];

  function renderChips() {
    chips.replaceChildren(
      ...pending.map((item, i) =>
        h(
          "span.gu-chip.gu-chip-pending",
          { "data-kind": item.kind, title: item.kind === "file" ? `${item.name}, ${sizeText(item.size)}` : `@${item.name}` },
          h("span.gu-chip-name", { text: item.kind === "data" ? `@${item.name}` : item.name }),
          h(
            "button.gu-chip-remove",
            {
              type: "button",
              "aria-label": `Remove ${item.name}`,
              onclick: () => {
                pending = pending.filter((_, j) => j !== i);
                renderChips();
              },
            },
            "×",
          ),
        ),
      ),
    );
    show(chips, pending.length > 0);
  }

  function add(item) {
    if (pending.length >= MAX_ATTACHMENTS) {
      notify(`A message takes at most ${MAX_ATTACHMENTS} attachments.`);
      return;
    }
    if (item.kind === "data" && pending.some((p) => p.kind === "data" && p.name === item.name)) return;
    pending = [...pending, item];
    renderChips();
  }

  /** @param {Iterable<File>} files */
  function addFiles(files) {
    for (const file of files) {
      if (file.size > MAX_UPLOAD_BYTES) {
        notify(
          `${file.name} is ${sizeText(file.size)}: the chat takes files up to ${sizeText(MAX_UPLOAD_BYTES)}. ` +
            "Load it in a cell and attach the DataFrame instead.",
        );
        continue;
      }
      add({ kind: "file", name: file.name || "pasted", mime: file.type || "", size: file.size, file });
    }
  }

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
    if ((!text && !pending.length) || send.disabled) return;
    const why = warnBeforeSend();
    if (why && warning.hidden) {
      warningText.textContent = why;
      show(warning, true);
      return;
    }
    dismiss();
    closeMenu();
    onSend(text, [...pending]);
  }

  sendAnyway.addEventListener("click", () => {
    const text = input.value.trim();
    dismiss();
    closeMenu();
    if ((text || pending.length) && !send.disabled) onSend(text, [...pending]);
  });
  keepWaiting.addEventListener("click", () => {
    dismiss();
    input.focus();
  });

  function autosize() {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
  }

  // --- the @ menu ---------------------------------------------------------------

  function closeMenu() {
    mention = null;
    show(menu, false);
  }

  function renderMenu() {
    mention = mentionAt(input.value, input.selectionStart ?? input.value.length);
    const query = mention?.query.toLowerCase() ?? "";
    menuNames = mention ? dataNames().filter((n) => n.toLowerCase().includes(query)).slice(0, 20) : [];
    if (!menuNames.length) return closeMenu();
    menuIndex = Math.min(menuIndex, menuNames.length - 1);
    menu.replaceChildren(
      ...menuNames.map((name, i) =>
        h(
          "div.gu-mention-item",
          {
            role: "option",
            "aria-selected": i === menuIndex ? "true" : "false",
            "data-name": name,
            onmousedown: (event) => {
              event.preventDefault(); // keep the focus in the box
              pick(name);
            },
          },
          `@${name}`,
        ),
      ),
    );
    show(menu, true);
  }

  function pick(name) {
    if (mention) {
      const caret = input.selectionStart ?? input.value.length;
      input.value = input.value.slice(0, mention.start) + input.value.slice(caret);
      input.selectionStart = input.selectionEnd = mention.start;
    }
    add({ kind: "data", name });
    closeMenu();
    autosize();
  }

  input.addEventListener("keydown", (event) => {
    if (!menu.hidden && menuNames.length) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        menuIndex = (menuIndex + (event.key === "ArrowDown" ? 1 : -1) + menuNames.length) % menuNames.length;
        renderMenu();
        event.stopPropagation();
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        pick(menuNames[menuIndex]);
        event.stopPropagation();
        return;
      }
      if (event.key === "Escape") {
        closeMenu();
        event.stopPropagation();
        return;
      }
    }
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
  input.addEventListener("input", () => {
    autosize();
    renderMenu();
  });
  input.addEventListener("blur", () => closeMenu());
  input.addEventListener("paste", (event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (!files.length) return; // plain text pastes as usual
    event.preventDefault();
    addFiles(files);
  });
  send.addEventListener("click", submit);
  stop.addEventListener("click", () => onStop());
  attach.addEventListener("click", () => picker.click());
  picker.addEventListener("change", () => {
    addFiles([...(picker.files ?? [])]);
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
  const el = h("div.gu-composer.gu-composer-box", {}, warning, chips, menu, row);
  // Dropped files attach; the browser must not open them instead.
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
  return {
    el,
    input,
    /** The attachments waiting to be sent. */
    pending: () => [...pending],
    /** Empty the box after `text` (and `sent` attachments) were taken, unless the user changed it since. */
    clear(text, sent = []) {
      if (sent.length) {
        pending = pending.filter((item) => !sent.includes(item));
        renderChips();
      }
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
