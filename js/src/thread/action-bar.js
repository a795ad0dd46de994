// The actions under one message: copy (every message), edit (a user
// message), regenerate and thumbs up / down (an assistant reply), and the
// branch picker (previous, "2 / 3", next) when a message has siblings. Made
// once per message view; `update` writes only what changed, so a streaming
// frame costs a string comparison here.
//
// The bar is one Tab stop (a WAI-ARIA toolbar with a roving tabindex): Tab
// lands on the button last used, arrows, Home and End move between buttons,
// and no key reaches JupyterLab's notebook shortcuts from inside it.

import { copyWithConfirmation } from "../common/clipboard.js";
import { h, setText, show } from "../common/dom.js";
import { icon } from "../common/icons.js";
import { branchOf, feedbackOf, toKernel } from "../protocol.js";

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
/**
 * Whether a message shows its action bar: a user's always, a reply once it
 * is finished (streaming, or waiting for an approval, it has nothing to copy
 * or rate yet: a lone copy icon under a waiting approval reads as a control of it).
 * @param {any} message
 */
export function hasActions(message) {
  if (message?.role === "user") return true;
  const status = message?.status?.type ?? "complete";
  return status === "complete" || status === "incomplete";
}

export function createActionBar(ctx, { onEdit }) {
  /** @type {any} the message as last rendered */
  let current = null;
  const button = (cls, label, name, onclick) =>
    h(
      `button.gu-action.gu-icon-button.${cls}`,
      { type: "button", "aria-label": label, title: label, tabindex: "-1", onclick },
      icon(name),
    );

  const copy = button("gu-action-copy", "Copy message", "copy", () => {
    void copyWithConfirmation(copy, messageMarkdown(current));
  });
  const edit = button("gu-action-edit", "Edit message", "pencil", () => onEdit());
  const regenerate = button("gu-action-regenerate", "Regenerate reply", "regenerate", () => {
    if (current) ctx.send(toKernel.regenerate(current.id));
  });
  const rate = (rating) => () => {
    if (!current) return;
    // A second press on the chosen thumb takes the rating back.
    const next = feedbackOf(current) === rating ? null : rating;
    ctx.send(toKernel.feedback(current.id, next));
  };
  const up = button("gu-action-up", "Good reply", "thumbs-up", rate("up"));
  const down = button("gu-action-down", "Bad reply", "thumbs-down", rate("down"));
  up.setAttribute("aria-pressed", "false");
  down.setAttribute("aria-pressed", "false");

  const position = h("span.gu-branch-position");
  const step = (by) => () => {
    const branch = current && branchOf(current);
    if (branch) ctx.send(toKernel.switchBranch(current.id, branch.index + by));
  };
  const previous = button("gu-branch-previous", "Previous version", "chevron-left", step(-1));
  const next = button("gu-branch-next", "Next version", "chevron-right", step(1));
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
  /** @type {HTMLButtonElement | null} the button Tab lands on */
  let stop = null;

  /** The buttons an arrow can reach: shown and enabled, in order. */
  const reachable = () =>
    /** @type {HTMLButtonElement[]} */ ([...el.querySelectorAll("button")]).filter(
      (b) => !b.disabled && !b.closest("[hidden]"),
    );
  /** Give the one Tab stop to `target` (or the first reachable button). */
  function rove(target) {
    const buttons = reachable();
    stop = target && buttons.includes(target) ? target : (buttons[0] ?? null);
    for (const b of el.querySelectorAll("button")) b.tabIndex = b === stop ? 0 : -1;
  }
  el.addEventListener("focusin", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    if (target instanceof HTMLButtonElement && target !== stop) rove(target);
  });
  el.addEventListener("keydown", (event) => {
    const buttons = reachable();
    const at = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    const moves = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 };
    if (event.key in moves && buttons.length) {
      event.preventDefault();
      const next = buttons[(moves[event.key] + buttons.length) % buttons.length];
      rove(next);
      next.focus();
    }
    // Notebook shortcuts stay out of the toolbar; the chat's own keys
    // (Esc stops a reply, "/" goes to the composer) go on to the chat.
    if (event.key !== "Escape" && event.key !== "/") event.stopPropagation();
  });

  return {
    el,
    /** Put the focus back on "Edit" (after its editor closed). */
    focusEdit() {
      if (!edit.hidden) {
        rove(edit);
        edit.focus();
      }
    },
    /**
     * Edit, regenerate and a version switch stay enabled while another reply
     * streams: the kernel stops that run first, as a send does.
     * @param {any} message
     * @param {{retrying?: boolean}} [opts] `retrying`: the message's error line
     *   offers Retry, which answers again in its place: Regenerate would say the same
     */
    update(message, { retrying = false } = {}) {
      current = message;
      const status = message.status?.type ?? "complete";
      const user = message.role === "user";
      const branch = branchOf(message);
      const rating = feedbackOf(message);
      const nextKey = `${message.role}|${status}|${rating}|${branch?.index}/${branch?.count}|${retrying}`;
      if (nextKey === key) return;
      key = nextKey;
      // A streaming reply has nothing to act on yet; one waiting for the
      // user is not final: it is neither answered again nor rated.
      const final = status === "complete" || status === "incomplete";
      show(el, hasActions(message));
      show(edit, user);
      show(regenerate, !user && final && !retrying);
      show(up, !user && final);
      show(down, !user && final);
      up.setAttribute("aria-pressed", String(rating === "up"));
      down.setAttribute("aria-pressed", String(rating === "down"));
      show(picker, !!branch && branch.count > 1);
      if (branch) {
        setText(position, `${branch.index + 1} / ${branch.count}`);
        previous.disabled = branch.index <= 0;
        next.disabled = branch.index >= branch.count - 1;
      }
      rove(stop);
    },
  };
}
