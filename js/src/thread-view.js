// The list of messages. Keeps one view per message id, in thread order. By
// default it grows with the page (no scroller inside the notebook's own);
// with a fixed height it scrolls, keeps the newest content in view (also
// when a component grows after the render, e.g. a plot arriving) unless the
// user scrolled up, and then shows "Jump to latest" while a reply streams.
// An empty thread shows the chat's starter prompts.

import { h, show } from "./dom.js";
import { createMessageView } from "./message-view.js";
import { createSuggestions } from "./suggestions.js";

const FOLLOW_SLACK_PX = 48;
const CHUNK_SIZE = 20;

export function createThreadView(ctx) {
  const starters = createSuggestions((text) => ctx.sendStarter?.(text), "Conversation starters");
  const empty = h("div.gu-empty", {}, h("div.gu-empty-text", { text: "Ask me anything to start." }), starters.el);
  const jump = h(
    "button.gu-jump",
    { type: "button", hidden: true, onclick: () => toLatest() },
    "↓ Jump to latest",
  );
  const el = h(
    "div.gu-thread",
    { role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" },
    empty,
    jump,
  );
  /** @type {Map<string, ReturnType<typeof createMessageView>>} */
  const views = new Map();
  let follow = true;
  let streaming = false;
  let fixedHeight = "";
  /** The height the content had at the last scroll event or stick. */
  let stuckHeight = 0;
  const atBottom = () => el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
  const stick = () => {
    if (!fixedHeight || !follow) return;
    el.scrollTop = el.scrollHeight;
    stuckHeight = el.scrollHeight;
  };
  el.addEventListener("scroll", () => {
    // Content that grew since the last stick is not the user scrolling up.
    if (fixedHeight && el.scrollHeight !== stuckHeight && !atBottom() && follow) {
      stick();
      return;
    }
    follow = atBottom();
    show(jump, streaming && !follow);
  });
  // Content grows without a render too (a component mounting, an image loading).
  const resizes = typeof ResizeObserver === "function" ? new ResizeObserver(() => stick()) : null;

  function toLatest() {
    follow = true;
    el.scrollTop = el.scrollHeight;
    stuckHeight = el.scrollHeight;
    show(jump, false);
  }

  /** @type {string[]} ids of the visible messages, in order, as last rendered */
  let order = [];
  let lastRunning = null;

  /** @type {HTMLElement[]} the chunks in `el`, in order */
  const chunks = [];

  /**
   * Put the views in thread order, dropping views of messages that left.
   * Messages sit in chunks of CHUNK_SIZE: when a streamed frame grows the
   * last message, the browser lays out its chunk again and reuses the
   * layout of the other chunks whole, instead of visiting every message.
   * Appending a message moves no other.
   */
  function arrange(visible) {
    const keep = new Set(visible.map((m) => m.id));
    for (const [id, view] of views) {
      if (!keep.has(id)) {
        view.el.remove();
        views.delete(id);
      }
    }
    const count = Math.ceil(visible.length / CHUNK_SIZE);
    for (let c = 0; c < count; c++) {
      if (!chunks[c]) {
        const chunk = h("div.gu-chunk");
        resizes?.observe(chunk);
        chunks.push(chunk);
      }
      const chunk = chunks[c];
      const wantedChunk = c === 0 ? el.firstChild : chunks[c - 1].nextSibling;
      if (wantedChunk !== chunk) el.insertBefore(chunk, wantedChunk);
      let previous = null;
      const end = Math.min(visible.length, (c + 1) * CHUNK_SIZE);
      for (let i = c * CHUNK_SIZE; i < end; i++) {
        const view = views.get(visible[i].id);
        if (!view) continue; // every visible message got its view in update()
        const wanted = previous ? previous.nextSibling : chunk.firstChild;
        if (wanted !== view.el) chunk.insertBefore(view.el, wanted);
        previous = view.el;
      }
    }
    while (chunks.length > count) {
      const chunk = chunks.pop();
      if (chunk) resizes?.unobserve(chunk);
      chunk?.remove();
    }
  }

  return {
    el,
    /** The "Jump to latest" button (shown while a reply streams and the user scrolled up). */
    jump,
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
     * A fixed height (any CSS length: the thread scrolls inside it), or "" to
     * let the thread grow with the page.
     * @param {string} height
     */
    setHeight(height) {
      if (height === fixedHeight) return;
      fixedHeight = height;
      el.style.maxHeight = height;
      el.classList.toggle("gu-thread-fixed", !!height);
      stick();
    },
    /**
     * Bring the DOM up to date. Only the messages in `dirty` (their state
     * changed since the last render), new ones, and those whose place as
     * the last message or whose `running` flag matters changed are
     * updated; the other views are not touched at all.
     * @param {any[]} messages live messages in order
     * @param {{running: boolean, dirty?: Set<string> | null, starters?: string[]}} opts
     *   `dirty` null or absent: update every message; `starters`: the prompts an
     *   empty thread offers
     */
    render(messages, { running, dirty = null, starters: prompts = [] }) {
      const visible = messages.filter((m) => m.role !== "system");
      const ids = visible.map((m) => m.id);
      const reordered = ids.length !== order.length || ids.some((id, i) => id !== order[i]);
      const lastId = ids[ids.length - 1];
      const oldLastId = order[order.length - 1];
      const runningChanged = running !== lastRunning;
      visible.forEach((message, index) => {
        const isLast = index === visible.length - 1;
        const existing = views.get(message.id);
        const fresh = !existing;
        const view = existing ?? createMessageView(ctx);
        if (fresh) views.set(message.id, view);
        const stale =
          fresh ||
          dirty === null ||
          dirty.has(message.id) ||
          (reordered && (message.id === lastId || message.id === oldLastId)) ||
          (runningChanged && isLast);
        if (stale) view.update(message, { isLast, running });
      });
      if (reordered) arrange(visible);
      order = ids;
      lastRunning = running;
      show(empty, visible.length === 0);
      if (visible.length === 0) starters.update(prompts, !running);
      streaming = running;
      stick();
      show(jump, streaming && !follow);
    },
  };
}
