// One message: its parts (markdown text, a collapsible reasoning block, tool
// call cards), an error line with a retry button when it ended incomplete,
// and the run footer. Updates touch only the parts that changed.

import { sizeText } from "./composer.js";
import { h, setData, setText, show } from "./dom.js";
import { createFooter, runFooter } from "./footer.js";
import { createMarkdownView } from "./markdown.js";
import { toKernel } from "./protocol.js";
import { createToolCard } from "./tool-card.js";

function createTextPart(ctx, role) {
  // What the user typed is shown as typed; only model text is markdown.
  const plain = role === "user";
  const el = h(plain ? "div.gu-text.gu-plain" : "div.gu-text");
  const markdown = plain ? null : createMarkdownView(el, { resources: ctx.resources });
  let last = null;
  return {
    el,
    update(part, { streaming }) {
      if (plain) {
        if (part.text !== last) el.textContent = part.text;
        last = part.text;
      } else markdown?.update(part.text, { streaming });
    },
  };
}

function createReasoningPart(ctx) {
  const body = h("div.gu-reasoning-text");
  const summary = h("summary", {}, "Reasoning");
  const el = h("details.gu-reasoning", {}, summary, body);
  const markdown = createMarkdownView(body, { resources: ctx.resources });
  return {
    el,
    update(part, { streaming }) {
      setText(summary, streaming ? "Thinking…" : "Reasoning");
      markdown.update(part.text, { streaming });
    },
  };
}

const KIND_ICONS = { image: "🖼", data: "▦", text: "📄" };

/** An attachment of a user message, as a chip: its kind, name, and reference or size. */
function createAttachmentChip() {
  const icon = h("span.gu-chip-icon", { "aria-hidden": "true" });
  const name = h("span.gu-chip-name");
  const detail = h("span.gu-chip-detail");
  const el = h("span.gu-chip.gu-attachment", {}, icon, name, detail);
  return {
    el,
    update(part) {
      setData(el, "kind", part.kind);
      setText(icon, KIND_ICONS[part.kind] ?? "📎");
      setText(name, String(part.name ?? ""));
      const size = Number.isFinite(part.size) ? part.size : 0;
      const info = part.kind === "data" ? (part.ref ? `as ${part.ref}` : "") : sizeText(size);
      setText(detail, info);
      el.title = part.notice ? `${part.name}: ${part.notice}` : String(part.name ?? "");
    },
  };
}

const PART_FACTORIES = {
  attachment: () => createAttachmentChip(),
  text: (ctx, role) => createTextPart(ctx, role),
  reasoning: (ctx) => createReasoningPart(ctx),
  "tool-call": (ctx) => createToolCard(ctx),
};

/** Text for an incomplete message's error line. */
export function errorText(status) {
  if (!status || status.type !== "incomplete") return "";
  if (status.reason === "cancelled") return "Stopped.";
  if (status.error) return status.error;
  const reasons = {
    length: "The reply was cut off: the model hit its length limit.",
    "content-filter": "The model's content filter stopped the reply.",
    error: "The run failed.",
  };
  return reasons[status.reason] ?? "The reply ended early.";
}

/**
 * @param {{send: (msg:any) => void, notify: (t:string) => void, isHuman: (n:string) => boolean,
 *          standardParams?: () => string[], resources?: import("./resources.js").Resources}} ctx
 *   the chat's actions, the arguments every tool call carries for the UI, and the URLs
 *   it allowed to load
 */
export function createMessageView(ctx) {
  const parts = h("div.gu-parts");
  const errorLine = h("span.gu-error-text");
  const retry = h(
    "button.gu-retry",
    { type: "button", onclick: () => ctx.send(toKernel.retry()) },
    "Retry",
  );
  // In the DOM only while shown, so the message's text is only its content.
  const error = h("div.gu-error", { role: "alert" }, errorLine, retry);
  const footer = createFooter();
  const bubble = h("div.gu-bubble", {}, parts);
  const el = h("div.gu-message", {}, bubble, footer.el);
  /** @type {Array<{type: string, view: any}>} */
  const views = [];

  return {
    el,
    /**
     * @param {any} message
     * @param {{isLast: boolean, running: boolean}} opts
     */
    update(message, { isLast, running }) {
      const status = message.status?.type ?? "complete";
      // Unchanged values are not written again: every write is DOM work.
      setData(el, "role", message.role);
      setData(el, "status", status);
      setData(el, "messageId", message.id);
      const list = message.parts ?? [];
      for (let i = 0; i < list.length; i++) {
        const part = list[i];
        if (!part || !PART_FACTORIES[part.type]) continue;
        if (!views[i] || views[i].type !== part.type) {
          const view = PART_FACTORIES[part.type](ctx, message.role);
          if (views[i]) views[i].view.el.replaceWith(view.el);
          else parts.append(view.el);
          views[i] = { type: part.type, view };
        }
        views[i].view.update(part, {
          streaming: status === "running",
          canAct: status === "requires-action",
        });
      }
      while (views.length > list.length) views.pop()?.view.el.remove();

      const text = errorText(message.status);
      setText(errorLine, text);
      if (text && error.parentNode !== bubble) bubble.append(error);
      else if (!text && error.parentNode) error.remove();
      show(retry, isLast && !running && text !== "");
      footer.update(status === "running" ? null : runFooter(message));
    },
  };
}
