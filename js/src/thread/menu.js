// The header's thread controls: a list of the chat's threads by title (pick
// one to switch), rename the current one, start a new one, and download the
// thread as markdown. Reads the `thread_list`, `thread_id` and `persist_kind`
// traits; every action is a message to the kernel, which answers with new
// traits. A chat of one thread that is not saved shows none of them: there is
// nothing to pick, and a title or a new thread would be lost with the kernel.

import { h, setText, show } from "../common/dom.js";
import { icon } from "../common/icons.js";
import { createListbox } from "../common/listbox.js";
import { toKernel } from "../protocol.js";

/** @typedef {{id: string, title: string}} ThreadEntry */

/**
 * Whether the header shows the thread controls: more than one thread, or a
 * chat that saves its threads (`persist=`: its title names the saved thread).
 * @param {ThreadEntry[]} list @param {string} persistKind "folder", "file" or ""
 */
export function showsThreadControls(list, persistKind) {
  return list.length > 1 || persistKind === "folder" || persistKind === "file";
}

/** The well-formed entries of the `thread_list` trait. */
export function readThreads(value) {
  if (!Array.isArray(value)) return [];
  return value.filter((t) => t && typeof t.id === "string" && typeof t.title === "string");
}

let menus = 0;

/**
 * The list of threads: a button with the current thread's title opening a
 * listbox (common/listbox.js, as the model picker) on the current thread.
 * @param {(id: string) => void} onPick
 */
function createThreadPicker(onPick) {
  const uid = `gu-thread-picker-${++menus}`;
  const name = h("span.gu-thread-picker-name");
  const button = h(
    "button.gu-thread-select",
    // Named by what it shows (the thread's title) after a hidden "Thread:", so
    // a voice command saying the visible words finds it.
    { type: "button", "aria-haspopup": "listbox", "aria-expanded": "false", "aria-controls": `${uid}-list` },
    h("span.gu-sr-only", { text: "Thread: " }),
    name,
    icon("chevron-down", 14),
  );
  const list = h("ul.gu-thread-list", { id: `${uid}-list`, role: "listbox", tabindex: "-1", "aria-label": "Threads", hidden: true });
  const el = h("span.gu-thread-picker", {}, button, list);
  /** @type {ThreadEntry[]} */
  let entries = [];
  let current = "";
  const listbox = createListbox({ button, list, root: el, ids: () => entries.map((t) => t.id), current: () => current, onChoose: onPick });
  return {
    el,
    /** @param {ThreadEntry[]} list_ @param {string} id */
    update(list_, id) {
      entries = list_;
      current = id;
      const title = list_.find((t) => t.id === id)?.title || "Untitled";
      setText(name, title);
      button.title = `Thread: ${title}. Choose another thread`;
      list.replaceChildren(
        ...list_.map((t, i) =>
          h("li.gu-thread-option", { id: `${uid}-${i}`, role: "option", "aria-selected": t.id === id ? "true" : "false" }, t.title || "Untitled"),
        ),
      );
      listbox.refresh();
    },
    destroy: () => listbox.destroy(),
  };
}

/**
 * @param {{send: (msg: any) => void}} ctx
 */
export function createThreadMenu(ctx) {
  const picker = createThreadPicker((id) => ctx.send(toKernel.switchThread(id)));
  const select = picker.el;
  const title = h("input.gu-thread-title", { type: "text", "aria-label": "Thread title", hidden: true });
  // Icons, not words: the header keeps one row in a 500 px chat.
  const rename = h(
    "button.gu-thread-rename.gu-icon-button",
    { type: "button", "aria-label": "Rename thread", title: "Rename thread" },
    icon("pencil"),
  );
  const fresh = h("button.gu-thread-new.gu-icon-button", { type: "button", "aria-label": "New thread", title: "New thread" }, icon("plus"));
  const download = h(
    "button.gu-download.gu-icon-button",
    { type: "button", "aria-label": "Download transcript", title: "Download the thread as markdown" },
    icon("download"),
  );
  let currentId = "";
  /** @type {ThreadEntry[]} */
  let threads = [];

  function closeTitle(save) {
    if (title.hidden) return;
    const text = title.value.trim();
    show(title, false);
    show(select, true);
    show(rename, true);
    if (save && text && currentId) ctx.send(toKernel.renameThread(currentId, text));
    rename.focus();
  }
  rename.addEventListener("click", () => {
    title.value = threads.find((t) => t.id === currentId)?.title ?? "";
    show(select, false);
    show(rename, false);
    show(title, true);
    title.focus();
    title.select();
  });
  title.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      closeTitle(true);
    } else if (event.key === "Escape") {
      event.preventDefault();
      closeTitle(false);
    }
    event.stopPropagation(); // notebook shortcuts stay out of the box
  });
  title.addEventListener("blur", () => closeTitle(true));
  fresh.addEventListener("click", () => ctx.send(toKernel.newThread()));
  download.addEventListener("click", () => ctx.send(toKernel.transcript()));

  const threadControls = h("span.gu-thread-controls", {}, select, title, rename, fresh);
  const el = h("span.gu-thread-menu", { hidden: true }, threadControls, download);
  let key = "";
  return {
    el,
    /**
     * @param {ThreadEntry[]} list the chat's threads
     * @param {string} id the current thread
     * @param {string} [persistKind] the `persist_kind` trait: "folder", "file" (one thread: no New) or ""
     */
    update(list, id, persistKind = "") {
      const nextKey = JSON.stringify([list, id, persistKind]);
      if (nextKey === key) return;
      key = nextKey;
      threads = list;
      currentId = id;
      show(el, showsThreadControls(list, persistKind));
      show(fresh, persistKind !== "file");
      picker.update(list, id);
    },
    destroy: () => picker.destroy(),
  };
}

/**
 * Save `markdown` as a file the browser downloads.
 * @param {string} markdown
 * @param {string} filename
 */
export function downloadText(markdown, filename) {
  const blob = new Blob([markdown], { type: "text/markdown;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
