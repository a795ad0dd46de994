// What a send would do besides sending (a call waiting for the user is
// rejected), said above the composer: "Send anyway" sends, "Cancel" goes back
// to the box.

import { h, show } from "../common/dom.js";

/** @param {{onConfirm: () => void, onCancel: () => void}} actions */
export function createSendWarning({ onConfirm, onCancel }) {
  const text = h("span.gu-composer-warning-text");
  const sendAnyway = h("button.gu-send-anyway", { type: "button" }, "Send anyway");
  const cancel = h("button.gu-send-cancel", { type: "button" }, "Cancel");
  const el = h(
    "div.gu-composer-warning",
    { role: "alert", hidden: true },
    text,
    h("span.gu-composer-warning-buttons", {}, sendAnyway, cancel),
  );
  const dismiss = () => show(el, false);
  sendAnyway.addEventListener("click", () => {
    dismiss();
    onConfirm();
  });
  cancel.addEventListener("click", () => {
    dismiss();
    onCancel();
  });
  return {
    el,
    get shown() {
      return !el.hidden;
    },
    /** @param {string} why */
    open(why) {
      text.textContent = why;
      show(el, true);
    },
    dismiss,
  };
}
