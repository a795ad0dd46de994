// The composer's attachments waiting to be sent, as chips above the box:
// files (their bytes travel as comm buffers) and names of the chat's data.
// A file over the size limit, or one attachment too many, is refused at once
// with a notice; what the user typed stays.

import { h, show } from "../common/dom.js";
import { icon } from "../common/icons.js";
import { readLimits } from "../protocol.js";

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

/** The composer's attach button (a paperclip icon; its name says what it does). */
export function createAttachButton() {
  return h(
    "button.gu-attach.gu-icon-button",
    { type: "button", "aria-label": "Attach files", title: "Attach files (or drop or paste them)" },
    icon("paperclip"),
  );
}

/**
 * @param {{notify: (text: string) => void, limits?: () => ReturnType<typeof readLimits>}} opts
 *   `limits`: the kernel's (the `limits` trait); without them the kernel alone refuses
 */
export function createPendingAttachments({ notify, limits = () => readLimits(null) }) {
  const el = h("div.gu-pending-attachments", { hidden: true });
  /** @type {Pending[]} */
  let pending = [];

  function render() {
    el.replaceChildren(
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
                render();
              },
            },
            icon("x", 14),
          ),
        ),
      ),
    );
    show(el, pending.length > 0);
  }

  /** @param {Pending} item */
  function add(item) {
    const { maxAttachments } = limits();
    if (pending.length >= maxAttachments) {
      notify(`A message takes at most ${maxAttachments} attachments.`);
      return;
    }
    if (item.kind === "data" && pending.some((p) => p.kind === "data" && p.name === item.name)) return;
    pending = [...pending, item];
    render();
  }

  return {
    el,
    add,
    /** @param {Iterable<File>} files */
    addFiles(files) {
      const { maxUploadBytes } = limits();
      for (const file of files) {
        if (file.size > maxUploadBytes) {
          notify(
            `${file.name} is ${sizeText(file.size)}: the chat takes files up to ${sizeText(maxUploadBytes)}. ` +
              "Load it in a cell and attach the DataFrame instead.",
          );
          continue;
        }
        add({ kind: "file", name: file.name || "pasted", mime: file.type || "", size: file.size, file });
      }
    },
    /** The attachments waiting, as a copy. */
    list: () => [...pending],
    get count() {
      return pending.length;
    },
    /** Drop the attachments that were sent. @param {Pending[]} sent */
    remove(sent) {
      if (!sent.length) return;
      pending = pending.filter((item) => !sent.includes(item));
      render();
    },
  };
}
