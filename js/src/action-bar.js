// The actions under one message: copy (every message), edit (a user
// message), regenerate and thumbs up / down (an assistant reply), and the
// branch picker (‹ 2 / 3 ›) when a message has siblings. Made once per
// message view; `update` writes only what changed, so a streaming frame
// costs a string comparison here.

import { copyWithConfirmation } from "./clipboard.js";
import { h, setText, show } from "./dom.js";
import { branchOf, feedbackOf, toKernel } from "./protocol.js";

/** The markdown of a message's text parts: what "Copy" puts on the clipboard. */
export function messageMarkdown(message) {
  return (message?.parts ?? [])
    .filter((p) => p && p.type === "text" && typeof p.text === "string" && p.text)
    .map((p) => p.text)
    .join("\n\n");
}

/**
 * @param {{send: (msg: any) => void}} ctx the chat's actions
 * @param {{onEdit: () => void}} hooks what "Edit" opens (the message view's editor)
 */
export function createActionBar(ctx, { onEdit }) {
  /** @type {any} the message as last rendered */
  let current = null;
  const button = (cls, label, text, onclick) =>
    h(`button.gu-action.${cls}`, { type: "button", "aria-label": label, title: label, onclick }, text);

  const copy = button("gu-action-copy", "Copy message", "Copy", () => {
    void copyWithConfirmation(copy, messageMarkdown(current));
  });
  const edit = button("gu-action-edit", "Edit message", "Edit", () => onEdit());
  const regenerate = button("gu-action-regenerate", "Regenerate reply", "Regenerate", () => {
    if (current) ctx.send(toKernel.regenerate(current.id));
  });
  const rate = (rating) => () => {
    if (!current) return;
    // A second press on the chosen thumb takes the rating back.
    const next = feedbackOf(current) === rating ? null : rating;
    ctx.send(toKernel.feedback(current.id, next));
  };
  const up = button("gu-action-up", "Good reply", "👍", rate("up"));
  const down = button("gu-action-down", "Bad reply", "👎", rate("down"));
  up.setAttribute("aria-pressed", "false");
  down.setAttribute("aria-pressed", "false");

  const position = h("span.gu-branch-position");
  const step = (by) => () => {
    const branch = current && branchOf(current);
    if (branch) ctx.send(toKernel.switchBranch(current.id, branch.index + by));
  };
  const previous = button("gu-branch-previous", "Previous version", "‹", step(-1));
  const next = button("gu-branch-next", "Next version", "›", step(1));
  const picker = h(
    "span.gu-branch-picker",
    { role: "group", "aria-label": "Versions of this message" },
    previous,
    position,
    next,
  );
  const el = h(
    "div.gu-actions",
    { role: "toolbar", "aria-label": "Message actions" },
    picker,
    copy,
    edit,
    regenerate,
    up,
    down,
  );
  let key = "";

  return {
    el,
    /** Put the focus back on "Edit" (after its editor closed). */
    focusEdit() {
      if (!edit.hidden) edit.focus();
    },
    /**
     * Edit, regenerate and a version switch stay enabled while another reply
     * streams: the kernel stops that run first, as a send does.
     * @param {any} message
     */
    update(message) {
      current = message;
      const status = message.status?.type ?? "complete";
      const user = message.role === "user";
      const branch = branchOf(message);
      const rating = feedbackOf(message);
      const nextKey = `${message.role}|${status}|${rating}|${branch?.index}/${branch?.count}`;
      if (nextKey === key) return;
      key = nextKey;
      // A streaming reply has nothing to act on yet.
      show(el, status !== "running");
      show(edit, user);
      show(regenerate, !user);
      show(up, !user);
      show(down, !user);
      up.setAttribute("aria-pressed", String(rating === "up"));
      down.setAttribute("aria-pressed", String(rating === "down"));
      show(picker, !!branch && branch.count > 1);
      if (branch) {
        setText(position, `${branch.index + 1} / ${branch.count}`);
        previous.disabled = branch.index <= 0;
        next.disabled = branch.index >= branch.count - 1;
      }
    },
  };
}
