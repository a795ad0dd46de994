// The scrolling list of messages. Keeps one view per message id, in thread
// order, and follows the stream to the bottom unless the user scrolled up.

import { h } from "./dom.js";
import { createMessageView } from "./message-view.js";

const FOLLOW_SLACK_PX = 48;

export function createThreadView(ctx) {
  const empty = h("div.gu-empty", { text: "Ask me anything to start." });
  const el = h(
    "div.gu-thread",
    { role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" },
    empty,
  );
  /** @type {Map<string, ReturnType<typeof createMessageView>>} */
  const views = new Map();
  let follow = true;
  el.addEventListener("scroll", () => {
    follow = el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
  });

  return {
    el,
    /**
     * @param {any[]} messages live messages in order
     * @param {{running: boolean}} opts
     */
    render(messages, { running }) {
      const visible = messages.filter((m) => m.role !== "system");
      const keep = new Set(visible.map((m) => m.id));
      for (const [id, view] of views) {
        if (!keep.has(id)) {
          view.el.remove();
          views.delete(id);
        }
      }
      let previous = null;
      visible.forEach((message, index) => {
        let view = views.get(message.id);
        if (!view) {
          view = createMessageView(ctx);
          views.set(message.id, view);
        }
        view.update(message, { isLast: index === visible.length - 1, running });
        const wanted = previous ? previous.nextSibling : el.firstChild;
        if (wanted !== view.el) el.insertBefore(view.el, wanted);
        previous = view.el;
      });
      empty.hidden = visible.length > 0;
      if (empty.hidden === false && empty.parentNode !== el) el.append(empty);
      if (follow) el.scrollTop = el.scrollHeight;
    },
  };
}
