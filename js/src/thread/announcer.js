// What a screen reader hears of a reply: its start and its end, from one
// polite live region that holds the status only. The thread itself is not a
// live region (thread/view.js), so the streamed text is not read out token by
// token; the reader reads the finished reply where it is.

import { h, setText } from "../common/dom.js";
import { errorText } from "./message-view.js";

export const REPLYING = "Assistant is replying…";

/**
 * What the end of a run says, from the reply it wrote.
 * @param {any} reply the last assistant message, or undefined
 */
export function endText(reply) {
  const status = reply?.status?.type;
  if (status === "requires-action") return "The reply waits for you.";
  if (status === "incomplete") {
    return reply.status.reason === "cancelled" ? "Reply stopped." : `The reply ended early: ${errorText(reply.status)}`;
  }
  return "Reply finished.";
}

export function createAnnouncer() {
  const el = h("div.gu-sr-only", { role: "status", "aria-live": "polite", "aria-atomic": "true" });
  /** @type {boolean | null} null until the first render: a chat opened mid-run or idle says nothing */
  let wasRunning = null;
  return {
    el,
    /** @param {any[]} messages the live messages in order @param {boolean} running */
    update(messages, running) {
      if (wasRunning !== null && running !== wasRunning) {
        const reply = [...messages].reverse().find((m) => m?.role === "assistant");
        setText(el, running ? REPLYING : endText(reply));
      }
      wasRunning = running;
    },
  };
}
