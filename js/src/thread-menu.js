// The header's thread controls: a list of the chat's threads by title (pick
// one to switch), rename the current one, start a new one, and download the
// thread as markdown. Reads the `thread_list` and `thread_id` traits; every
// action is a message to the kernel, which answers with new traits.

import { h, show } from "./dom.js";
import { toKernel } from "./protocol.js";

/** @typedef {{id: string, title: string}} ThreadEntry */

/** The well-formed entries of the `thread_list` trait. */
export function readThreads(value) {
  if (!Array.isArray(value)) return [];
  return value.filter((t) => t && typeof t.id === "string" && typeof t.title === "string");
}

/**
 * @param {{send: (msg: any) => void}} ctx
 */
export function createThreadMenu(ctx) {
  const select = h("select.gu-thread-select", { "aria-label": "Thread" });
  select.addEventListener("change", () => {
    if (select.value && select.value !== currentId) ctx.send(toKernel.switchThread(select.value));
  });
  const title = h("input.gu-thread-title", { type: "text", "aria-label": "Thread title", hidden: true });
  const rename = h("button.gu-thread-rename", { type: "button", "aria-label": "Rename thread" }, "Rename");
  const fresh = h("button.gu-thread-new", { type: "button", "aria-label": "New thread" }, "New");
  const download = h(
    "button.gu-download",
    { type: "button", "aria-label": "Download transcript", title: "Download the thread as markdown" },
    "⤓",
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

  const threadControls = h("span.gu-thread-controls", { hidden: true }, select, title, rename, fresh);
  const el = h("span.gu-thread-menu", {}, threadControls, download);
  let key = "";
  return {
    el,
    /**
     * @param {ThreadEntry[]} list the chat's threads (empty: it keeps one, no menu)
     * @param {string} id the current thread
     */
    update(list, id) {
      const nextKey = JSON.stringify([list, id]);
      if (nextKey === key) return;
      key = nextKey;
      threads = list;
      currentId = id;
      show(threadControls, list.length > 0);
      select.replaceChildren(
        ...list.map((t) => h("option", { value: t.id, selected: t.id === id }, t.title || "Untitled")),
      );
      select.value = id;
    },
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
