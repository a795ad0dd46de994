// Human in the loop: the controls of a call waiting for the user.
// - an approval: the arguments (editable), Approve, Always allow, Reject
//   with an optional reason;
// - a human tool: an input whose text becomes the tool's result.
// Controls are built once per pending call so typing survives re-renders.

import { h } from "./dom.js";
import { toKernel } from "./protocol.js";

/**
 * @param {{toolCallId: string, toolName: string, args: any, send: (msg: any) => void, notify: (text: string) => void}} opts
 */
export function createApproval({ toolCallId, toolName, args, send, notify }) {
  const original = JSON.stringify(args ?? {}, null, 2);
  const editor = h("textarea.gu-args-editor", {
    rows: Math.min(12, original.split("\n").length + 1),
    spellcheck: "false",
    "aria-label": `Arguments for ${toolName}`,
  });
  editor.value = original;
  const reason = h("input.gu-reject-reason", {
    type: "text",
    placeholder: "Reason (optional)",
    "aria-label": `Reason for rejecting ${toolName}`,
  });

  /** The edited arguments, null when unchanged, undefined when invalid. */
  function editedArgs() {
    if (editor.value.trim() === original.trim()) return null;
    try {
      const value = JSON.parse(editor.value);
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error();
      return value;
    } catch {
      notify("The arguments are not a valid JSON object: fix them or reset them.");
      return undefined;
    }
  }

  /** @param {"approve" | "always" | "reject"} type */
  function decide(type) {
    if (type === "reject") {
      send(toKernel.reject(toolCallId, reason.value.trim() || null));
      return;
    }
    const edited = editedArgs();
    if (edited === undefined) return;
    send(toKernel[type](toolCallId, edited));
  }

  const el = h(
    "div.gu-approval",
    { role: "group", "aria-label": `Approve ${toolName}?` },
    h("div.gu-approval-title", { text: `Allow ${toolName} to run with these arguments?` }),
    editor,
    h(
      "div.gu-approval-buttons",
      {},
      h("button.gu-approve", { type: "button", onclick: () => decide("approve") }, "Approve"),
      h(
        "button.gu-always",
        {
          type: "button",
          title: `Approve and always allow ${toolName} in this chat`,
          onclick: () => decide("always"),
        },
        "Always allow",
      ),
      reason,
      h("button.gu-reject", { type: "button", onclick: () => decide("reject") }, "Reject"),
    ),
  );
  for (const node of [editor, reason]) node.addEventListener("keydown", (e) => e.stopPropagation());
  return { el };
}

/**
 * @param {{toolCallId: string, toolName: string, prompt: string, send: (msg: any) => void}} opts
 */
export function createHumanInput({ toolCallId, toolName, prompt, send }) {
  const input = h("textarea.gu-human-input", {
    rows: 2,
    placeholder: "Your answer…",
    "aria-label": prompt || `Answer for ${toolName}`,
  });
  const submit = () => {
    const text = input.value.trim();
    if (text) send(toKernel.toolResult(toolCallId, text));
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
    event.stopPropagation();
  });
  const el = h(
    "div.gu-human",
    { role: "group", "aria-label": `${toolName} asks you` },
    prompt ? h("div.gu-human-prompt", { text: prompt }) : null,
    input,
    h("button.gu-human-submit", { type: "button", onclick: submit }, "Submit"),
  );
  return { el };
}
