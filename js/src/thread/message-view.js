// One message: its parts (markdown text, a collapsible reasoning block, tool
// call cards), an error line with a retry button when it ended incomplete,
// the action bar (copy, edit, regenerate, feedback, versions), and the run
// footer. Updates touch only the parts that changed. A user message can turn
// into an editor in place: its new text goes to the kernel as an edit.

import { createActionBar, hasActions } from "./action-bar.js";
import { sizeText } from "../composer/attachments.js";
import { fitToText } from "../composer/composer.js";
import { h, setData, setText, show } from "../common/dom.js";
import { createFooter, runFooter } from "./footer.js";
import { icon as drawIcon } from "../common/icons.js";
import { createMarkdownView } from "../markdown/markdown.js";
import { toKernel } from "../protocol.js";
import { createToolCard } from "../tool-card/tool-card.js";

function createTextPart(ctx, role) {
  // The user's text goes through the same sanitized markdown as the model's
  // (code fences render as code), its HTML shown as typed; widget.css keeps
  // the user's line breaks.
  const el = h("div.gu-text");
  const markdown = createMarkdownView(el, { resources: ctx.resources, htmlAsText: role === "user" });
  return {
    el,
    update(part, { streaming, cut }) {
      markdown.update(part.text, { streaming, cut });
    },
  };
}

/**
 * A user message the kernel summarized (`metadata.summary`: a pressed A2UI
 * button) shows that line, its parts behind a "Details" disclosure.
 * @param {HTMLElement} bubble @param {HTMLElement} parts
 */
function createSummary(bubble, parts) {
  const line = h("div.gu-user-summary");
  const details = h("details.gu-user-details", {}, h("summary", {}, "Details"));
  return {
    /** @param {string} text the summary, or "" for none */
    update(text) {
      setText(line, text);
      if (text && line.parentNode !== bubble) {
        bubble.prepend(line, details);
        details.append(parts);
      } else if (!text && line.parentNode) {
        line.remove();
        details.replaceWith(parts);
      }
    },
    /** @param {boolean} visible hidden while the editor is open */
    show(visible) {
      show(line, visible);
      show(details, visible);
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
    update(part, { streaming, cut }) {
      // encrypted or redacted reasoning has no text: it is kept for the provider, not shown
      el.hidden = !part.text;
      setText(summary, streaming ? "Thinking…" : "Reasoning");
      markdown.update(part.text, { streaming, cut });
    },
  };
}

const KIND_ICONS = { image: "image", data: "table", text: "file" };

/** An attachment of a user message, as a chip: its kind, name, and reference or size. */
function createAttachmentChip() {
  const icon = h("span.gu-chip-icon", { "aria-hidden": "true" });
  const name = h("span.gu-chip-name");
  const detail = h("span.gu-chip-detail");
  const el = h("span.gu-chip.gu-attachment", {}, icon, name, detail);
  return {
    el,
    update(part) {
      if (el.dataset.kind !== part.kind || !icon.firstChild) {
        icon.replaceChildren(drawIcon(KIND_ICONS[part.kind] ?? "paperclip", 14));
      }
      setData(el, "kind", part.kind);
      setText(name, String(part.name ?? ""));
      const size = Number.isFinite(part.size) ? part.size : 0;
      // data kept under its own name needs no "as": only another name is said
      const alias = part.ref && part.ref !== part.name ? `as ${part.ref}` : "";
      const info = part.kind === "data" ? alias : sizeText(size);
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

/** The event a part sends (bubbling) just before it shrinks: its message holds its height. */
export const HOLD_HEIGHT = "gu-hold-height";

/**
 * Keep `el` at least `px` tall (0: nothing to keep); the message view lets
 * go once its message is finished.
 * @param {HTMLElement} el @param {number} px
 */
export function holdHeight(el, px) {
  if (px > 0) el.style.minHeight = `${Math.ceil(px)}px`;
}

/**
 * @param {{send: (msg:any) => void, notify: (t:string) => void, isHuman: (n:string) => boolean,
 *          standardParams?: () => string[], resources?: import("../common/resources.js").Resources,
 *          sendEdit?: (messageId: string, text: string) => void,
 *          apps?: {release: (el: Element) => void}}} ctx
 *   the chat's actions, the arguments every tool call carries for the UI, the URLs
 *   it allowed to load, where an edited user message goes, and the MCP apps on screen
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
  const summary = createSummary(bubble, parts);
  /** @type {any} the message as last rendered */
  let current = null;
  /** @type {ReturnType<typeof createEditor> | null} made on the first edit */
  let editor = null;
  const actions = createActionBar(ctx, { onEdit: () => startEdit() });
  const el = h("div.gu-message", {}, bubble, actions.el, footer.el);
  /** @type {Array<{type: string, view: any}>} */
  const views = [];
  // Controls about to go (an answered approval or form, see tool-card.js): an
  // unfinished reply keeps its height, so what follows does not jump up; the
  // reply grows past it as it goes on, and lets it go once finished.
  el.addEventListener(HOLD_HEIGHT, () => {
    if (current && !hasActions(current)) holdHeight(el, el.offsetHeight);
  });

  function startEdit() {
    if (!current || current.role !== "user") return;
    editor ??= createEditor({
      onSave: (text) => ctx.sendEdit?.(current.id, text),
      onCancel: () => stopEdit(),
    });
    editor.open(messageText(current));
    if (editor.el.parentNode !== bubble) bubble.append(editor.el);
    show(parts, false);
    summary.show(false);
    show(actions.el, false);
    editor.fit(); // in the page now: as tall as the message's text
    editor.focus();
  }

  function stopEdit() {
    if (!editor?.el.parentNode) return;
    // Keyboard users go on from where they were, not from the page's top.
    const hadFocus = editor.el.contains(document.activeElement);
    editor.el.remove();
    show(parts, true);
    summary.show(true);
    show(actions.el, hasActions(current));
    if (hadFocus) actions.focusEdit();
  }

  return {
    el,
    /** Open the editor on this (user) message. */
    edit: startEdit,
    /** Close the editor (the kernel took the edit). */
    closeEditor: stopEdit,
    /** Whether the editor is open. */
    get editing() {
      return !!editor?.el.parentNode;
    },
    /**
     * @param {any} message
     * @param {{isLast: boolean, running: boolean}} opts
     */
    update(message, { isLast, running }) {
      current = message;
      const status = message.status?.type ?? "complete";
      if (el.style.minHeight && (status === "complete" || status === "incomplete")) el.style.minHeight = "";
      // Unchanged values are not written again: every write is DOM work.
      setData(el, "role", message.role);
      setData(el, "status", status);
      setData(el, "messageId", message.id);
      const said = message.role === "user" ? message.metadata?.summary : null;
      summary.update(typeof said === "string" ? said : "");
      const list = message.parts ?? [];
      for (let i = 0; i < list.length; i++) {
        const part = list[i];
        if (!part || !PART_FACTORIES[part.type]) continue;
        if (!views[i] || views[i].type !== part.type) {
          const view = PART_FACTORIES[part.type](ctx, message.role);
          if (views[i]) ctx.apps?.release(views[i].view.el);
          if (views[i]) views[i].view.el.replaceWith(view.el);
          else parts.append(view.el);
          views[i] = { type: part.type, view };
        }
        views[i].view.update(part, {
          streaming: status === "running",
          // a tool server's request (a synthetic part) is answered while its call runs
          canAct: status === "requires-action" || (!!part.synthetic && status === "running"),
          // a reply that ended early (Stop) ends mid-text: its open markers render closed
          cut: status === "incomplete" && i === list.length - 1,
        });
      }
      while (views.length > list.length) {
        const gone = views.pop()?.view.el;
        if (gone) ctx.apps?.release(gone);
        gone?.remove();
      }

      const text = errorText(message.status);
      setText(errorLine, text);
      if (text && error.parentNode !== bubble) bubble.append(error);
      else if (!text && error.parentNode) error.remove();
      // A stopped or failed last reply offers Retry (it answers again in the
      // reply's place), not Regenerate too: one button for one action.
      const retrying = isLast && !running && text !== "";
      show(retry, retrying);
      // A run that waits for the user has not finished: no footer yet.
      const finished = status === "complete" || status === "incomplete";
      footer.update(finished ? runFooter(message) : null);
      actions.update(message, { retrying });
      if (editor?.el.parentNode) show(actions.el, false);
    },
  };
}

/** The text of a user message (what its editor starts from). */
function messageText(message) {
  return (message?.parts ?? [])
    .filter((p) => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n\n");
}

const EDITOR_MAX_PX = 320;

/**
 * The in-place editor of a user message: Enter (or "Save and send") sends
 * the new text, Shift+Enter adds a line, Esc or "Cancel" closes it. It stays
 * open until the kernel takes the edit, so a refused edit keeps the text.
 * @param {{onSave: (text: string) => void, onCancel: () => void}} actions
 */
function createEditor({ onSave, onCancel }) {
  const input = h("textarea.gu-edit-input", { rows: 2, "aria-label": "Edit your message" });
  input.addEventListener("input", () => fitToText(input, EDITOR_MAX_PX));
  const save = h("button.gu-edit-save", { type: "button" }, "Save and send");
  const cancel = h("button.gu-edit-cancel", { type: "button" }, "Cancel");
  const submit = () => {
    const text = input.value.trim();
    if (text) onSave(text);
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
    }
    event.stopPropagation(); // notebook shortcuts stay out of the box
  });
  save.addEventListener("click", submit);
  cancel.addEventListener("click", () => onCancel());
  const el = h("div.gu-editor", {}, input, h("div.gu-editor-buttons", {}, cancel, save));
  return {
    el,
    input,
    /** @param {string} text */
    open(text) {
      input.value = text;
      // Before layout (no heights to read yet): a row per line.
      input.rows = Math.max(2, Math.min(12, text.split("\n").length));
    },
    /** As tall as the text (wrapped lines too), up to EDITOR_MAX_PX. */
    fit() {
      fitToText(input, EDITOR_MAX_PX);
    },
    focus() {
      input.focus();
      input.setSelectionRange(input.value.length, input.value.length);
    },
  };
}
