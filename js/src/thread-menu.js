// The header's thread controls: a list of the chat's threads by title (pick
// one to switch), rename the current one, start a new one, and download the
// thread as markdown. Reads the `thread_list` and `thread_id` traits; every
// action is a message to the kernel, which answers with new traits.

import { h, setText, show } from "./dom.js";
import { icon } from "./icons.js";
import { toKernel } from "./protocol.js";

/** @typedef {{id: string, title: string}} ThreadEntry */

/** The well-formed entries of the `thread_list` trait. */
export function readThreads(value) {
  if (!Array.isArray(value)) return [];
  return value.filter((t) => t && typeof t.id === "string" && typeof t.title === "string");
}

let menus = 0;

/**
 * The list of threads: a button with the current thread's title opening a
 * listbox (the WAI-ARIA select-only pattern, as the model picker): Enter,
 * Space or an arrow opens it on the current thread; arrows, Home and End
 * move; Enter or Space switches; Escape closes and gives focus back; Tab
 * closes. No key reaches JupyterLab's notebook shortcuts from inside.
 * @param {(id: string) => void} onPick
 */
function createThreadPicker(onPick) {
  const uid = `gu-thread-picker-${++menus}`;
  const name = h("span.gu-thread-picker-name");
  const button = h(
    "button.gu-thread-select",
    { type: "button", "aria-haspopup": "listbox", "aria-expanded": "false", "aria-controls": `${uid}-list`, "aria-label": "Thread" },
    name,
    icon("chevron-down", 14),
  );
  const list = h("ul.gu-thread-list", { id: `${uid}-list`, role: "listbox", tabindex: "-1", "aria-label": "Threads", hidden: true });
  const el = h("span.gu-thread-picker", {}, button, list);
  /** @type {ThreadEntry[]} */
  let entries = [];
  let current = "";
  let active = -1;
  const options = () => /** @type {HTMLElement[]} */ ([...list.children]);
  const isOpen = () => !list.hidden;

  function setActive(index) {
    const items = options();
    if (!items.length) return;
    active = Math.max(0, Math.min(items.length - 1, index));
    items.forEach((item, i) => item.classList.toggle("gu-active", i === active));
    list.setAttribute("aria-activedescendant", items[active].id);
    items[active].scrollIntoView?.({ block: "nearest" });
  }
  function open() {
    if (!entries.length) return;
    show(list, true);
    button.setAttribute("aria-expanded", "true");
    setActive(Math.max(0, entries.findIndex((t) => t.id === current)));
    list.focus();
    document.addEventListener("pointerdown", onOutside, true);
  }
  function close(focusButton) {
    if (!isOpen()) return;
    show(list, false);
    button.setAttribute("aria-expanded", "false");
    list.removeAttribute("aria-activedescendant");
    document.removeEventListener("pointerdown", onOutside, true);
    if (focusButton) button.focus();
  }
  function choose(index) {
    const entry = entries[index];
    close(true);
    if (entry && entry.id !== current) onPick(entry.id);
  }
  function onOutside(event) {
    if (!el.contains(/** @type {Node} */ (event.target))) close(false);
  }
  button.addEventListener("click", () => (isOpen() ? close(true) : open()));
  button.addEventListener("keydown", (event) => {
    event.stopPropagation();
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      open();
    }
  });
  list.addEventListener("keydown", (event) => {
    event.stopPropagation();
    const moves = { ArrowDown: active + 1, ArrowUp: active - 1, Home: 0, End: entries.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      setActive(moves[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(true);
    } else if (event.key === "Tab") close(false);
  });
  list.addEventListener("click", (event) => {
    const item = /** @type {HTMLElement | null} */ (event.target)?.closest?.("[role=option]");
    if (item) choose(options().indexOf(/** @type {HTMLElement} */ (item)));
  });
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
      if (!list_.length) close(false);
      else if (isOpen()) setActive(Math.min(active, list_.length - 1));
    },
    destroy() {
      document.removeEventListener("pointerdown", onOutside, true);
    },
  };
}

/**
 * @param {{send: (msg: any) => void}} ctx
 */
export function createThreadMenu(ctx) {
  const picker = createThreadPicker((id) => ctx.send(toKernel.switchThread(id)));
  const select = picker.el;
  const title = h("input.gu-thread-title", { type: "text", "aria-label": "Thread title", hidden: true });
  const rename = h("button.gu-thread-rename", { type: "button", "aria-label": "Rename thread" }, "Rename");
  const fresh = h("button.gu-thread-new", { type: "button", "aria-label": "New thread", title: "New thread" }, "New");
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
