// The list of messages. Keeps one view per message id, in thread order. In a
// chat with a greatest height (the default) it scrolls, keeps the newest
// content in view (also when a component grows after the render, e.g. a plot
// arriving) unless the user scrolled up, and then shows "Jump to latest"
// while a reply streams.
// An empty thread shows the chat's starter prompts, and its starters with a
// form (thread/starter-form.js: a server's prompts that need arguments).

import { h, show } from "../common/dom.js";
import { icon } from "../common/icons.js";
import { createMessageView, holdHeight } from "./message-view.js";
import { createSuggestions } from "./suggestions.js";
import { createStarterForms } from "./starter-form.js";
import { createChunkedList } from "./chunks.js";
import { createScrollFollow } from "./follow.js";

/**
 * Whether a message's view must be updated in this render: it is new, its
 * state changed (`dirty`), it became or stopped being the last one, or it is
 * the last one and the run started or stopped.
 * @param {{fresh: boolean, dirty: Set<string> | null, id: string, reordered: boolean,
 *          lastId: string, oldLastId: string, runningChanged: boolean, isLast: boolean}} facts
 */
export function needsUpdate({ fresh, dirty, id, reordered, lastId, oldLastId, runningChanged, isLast }) {
  return (
    fresh ||
    dirty === null ||
    dirty.has(id) ||
    (reordered && (id === lastId || id === oldLastId)) ||
    (runningChanged && isLast)
  );
}

export function createThreadView(ctx) {
  const starters = createSuggestions((text) => ctx.sendStarter?.(text), "Conversation starters");
  const forms = createStarterForms({
    send: (msg) => ctx.send?.(msg),
    toKernel: ctx.toKernel,
    tag: () => ctx.tag?.() ?? Math.random().toString(36).slice(2),
    maxChars: () => ctx.maxFieldChars?.() ?? Infinity,
  });
  const empty = h(
    "div.gu-empty",
    {},
    h("div.gu-empty-text", { text: "Ask me anything to start." }),
    starters.el,
    forms.el,
  );
  const jump = h(
    "button.gu-jump",
    { type: "button", hidden: true, onclick: () => scroll.toLatest() },
    icon("chevron-down"),
    "Jump to latest",
  );
  const el = h(
    "div.gu-thread",
    // Not live: a stream would be read out token by token (thread/announcer.js
    // says when a reply starts and ends).
    { role: "log", "aria-live": "off", "aria-label": "Conversation", tabindex: "0" },
    empty,
    jump,
  );
  const scroll = createScrollFollow(el, jump);
  const list = createChunkedList(el, scroll);
  /** @type {Map<string, ReturnType<typeof createMessageView>>} */
  const views = new Map();
  /** @type {string[]} ids of the visible messages, in order, as last rendered */
  let order = [];
  let lastRunning = null;
  /** @type {Map<number, number> | null} index -> height of replies that left with no successor yet */
  let gap = null;
  /** @type {HTMLElement[]} groups of messages keeping their height over such a gap */
  let heldChunks = [];

  /** Before the replies not in `ids` go: their groups keep their height. @param {string[]} ids */
  function holdChunksOf(ids) {
    const keep = new Set(ids);
    for (const id of order) {
      const chunk = views.get(id)?.el.parentElement;
      if (keep.has(id) || !chunk || heldChunks.includes(chunk)) continue;
      holdHeight(chunk, chunk.offsetHeight);
      heldChunks.push(chunk);
    }
  }

  /** Index -> height of the assistant messages shown now that are not in `ids`. @param {string[]} ids */
  function heightsLeaving(ids) {
    const keep = new Set(ids);
    const heights = new Map();
    order.forEach((id, index) => {
      const view = views.get(id);
      if (!keep.has(id) && view?.el.dataset.role === "assistant") heights.set(index, view.el.offsetHeight);
    });
    return heights;
  }

  /** Drop the views of messages that left the thread. @param {string[]} ids */
  function dropLeft(ids) {
    const keep = new Set(ids);
    for (const [id, view] of views) {
      if (!keep.has(id)) {
        ctx.apps?.release(view.el); // an app hears its teardown before its frame goes
        view.el.remove();
        views.delete(id);
      }
    }
  }

  return {
    el,
    /** The "Jump to latest" button (shown while a reply streams and the user scrolled up). */
    jump,
    /** The starters with a form (their answers from the kernel go here). */
    forms,
    /** Open the editor on the last user message; false when there is none. */
    editLastUser() {
      for (let i = order.length - 1; i >= 0; i--) {
        const view = views.get(order[i]);
        if (view?.el.dataset.role === "user") {
          view.edit();
          view.el.scrollIntoView?.({ block: "nearest" });
          return true;
        }
      }
      return false;
    },
    /** Close the editor of message `id` (its edit was taken). */
    closeEditor(id) {
      views.get(id)?.closeEditor();
    },
    /**
     * The chat's greatest height (any CSS length: the thread scrolls in
     * what the chat leaves it), or "" to let the thread grow with the page.
     * @param {string} height
     */
    setHeight(height) {
      scroll.setHeight(height);
    },
    /**
     * Bring the DOM up to date. Only the messages in `dirty` (their state
     * changed since the last render), new ones, and those whose place as
     * the last message or whose `running` flag matters changed are
     * updated; the other views are not touched at all.
     * @param {any[]} messages live messages in order
     * @param {{running: boolean, dirty?: Set<string> | null, starters?: string[], starterForms?: any}} opts
     *   `dirty` null or absent: update every message; `starters`: the prompts an
     *   empty thread offers; `starterForms`: the `starter_forms` trait
     */
    render(messages, { running, dirty = null, starters: prompts = [], starterForms = [] }) {
      const visible = messages.filter((m) => m.role !== "system");
      const ids = visible.map((m) => m.id);
      const reordered = ids.length !== order.length || ids.some((id, i) => id !== order[i]);
      const lastId = ids[ids.length - 1];
      const oldLastId = order[order.length - 1];
      const runningChanged = running !== lastRunning;
      // A reply that leaves as a new one takes its place (Regenerate): the new
      // one holds the old one's height until it is finished, so the thread
      // does not shrink and jump back as it streams. The kernel may show the
      // thread without either in between: its group of messages holds the
      // height for that render.
      const leaving = reordered ? heightsLeaving(ids) : new Map();
      if (gap) for (const [index, px] of gap) if (!leaving.has(index)) leaving.set(index, px);
      visible.forEach((message, index) => {
        const isLast = index === visible.length - 1;
        const existing = views.get(message.id);
        const fresh = !existing;
        const view = existing ?? createMessageView(ctx);
        if (fresh) views.set(message.id, view);
        const facts = { fresh, dirty, id: message.id, reordered, lastId, oldLastId, runningChanged, isLast };
        if (needsUpdate(facts)) view.update(message, { isLast, running });
        const held = fresh && message.role === "assistant" ? leaving.get(index) : undefined;
        if (held && !["complete", "incomplete"].includes(message.status?.type ?? "complete")) holdHeight(view.el, held);
        if (held) leaving.delete(index);
      });
      gap = running && leaving.size ? leaving : null;
      if (gap) holdChunksOf(ids);
      else {
        for (const chunk of heldChunks) chunk.style.minHeight = "";
        heldChunks = [];
      }
      if (reordered) {
        dropLeft(ids);
        list.arrange(ids, views);
      }
      order = ids;
      lastRunning = running;
      show(empty, visible.length === 0);
      // Once the thread has a message its starters go (a follow-up chip may say the same).
      starters.update(visible.length === 0 ? prompts : [], visible.length === 0 && !running);
      forms.update(starterForms, visible.length === 0 && !running);
      scroll.rendered(running);
    },
  };
}
