// Human in the loop: the controls of a call waiting for the user.
// - an approval: the arguments (editable), Approve, Always allow, Reject
//   with an optional reason;
// - a human tool: an input whose text becomes the tool's result.
// Controls are built once per pending call so typing survives re-renders.

import { enterDoes, h, show } from "../common/dom.js";
import { escapeInvisibleInJson, fillMarked, findInvisible, invisibleWarning, linesOf } from "./invisible-chars.js";
import { renderMarkdown } from "../markdown/markdown.js";
import { toKernel } from "../protocol.js";

/**
 * @param {{toolCallId: string, toolName: string, args: any, argsJson?: string,
 *          send: (msg: any) => void, notify: (text: string) => void}} opts
 *   `argsJson`: `args` as the card already printed them (`JSON.stringify(args, null, 2)`), not printed again
 */
export function createApproval({ toolCallId, toolName, args, argsJson, send, notify }) {
  // Code to run (run_python's `code`) is shown highlighted, editable on demand.
  const code = typeof args?.code === "string" ? createCodeEditor(args.code, toolName, refreshWarning) : null;
  const rest = code ? Object.fromEntries(Object.entries(args).filter(([k]) => k !== "code")) : args;
  const restJson = !code && typeof argsJson === "string" ? argsJson : JSON.stringify(rest ?? {}, null, 2);
  // Invisible characters are written as `\uXXXX` escapes: seen in the box,
  // read back exactly by JSON.parse.
  const original = escapeInvisibleInJson(restJson);
  const editor = h("textarea.gu-args-editor", {
    rows: Math.min(12, original.split("\n").length + 1),
    spellcheck: "false",
    "aria-label": `Arguments for ${toolName}`,
  });
  editor.value = original;
  editor.addEventListener("input", refreshWarning);
  const warningSlot = h("div.gu-invisible-slot", { hidden: true });
  const reason = h("input.gu-reject-reason", {
    type: "text",
    placeholder: "Reason (optional)",
    "aria-label": `Reason for rejecting ${toolName}`,
  });

  /** The edited arguments, null when unchanged, undefined when invalid. */
  function editedArgs() {
    const codeChanged = code !== null && code.changed();
    if (editor.value.trim() === original.trim() && !codeChanged) return null;
    try {
      const value = JSON.parse(editor.value);
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error();
      return code ? { ...value, code: code.value() } : value;
    } catch {
      notify("The arguments are not a valid JSON object: fix them or reset them.");
      return undefined;
    }
  }

  /** The invisible characters of the arguments as they would be sent now. */
  function argsInvisible() {
    if (editor.value.trim() === original.trim()) return findInvisible(restJson);
    try {
      return findInvisible(JSON.stringify(JSON.parse(editor.value)));
    } catch {
      return findInvisible(editor.value);
    }
  }

  /** The card's warning, for the code and arguments as they stand (edits included). */
  function refreshWarning() {
    const source = code ? code.value() : "";
    const inCode = findInvisible(source);
    const inArgs = code && !Object.keys(rest).length ? [] : argsInvisible();
    const notes = [];
    if (inCode.length) {
      const lines = linesOf(source, inCode);
      notes.push(
        `In the code, line${lines.length > 1 ? "s" : ""} ${lines.join(", ")}: the code editor keeps them, but cannot show them.`,
      );
    }
    if (inArgs.length) {
      const escape = escapeInvisibleInJson(String.fromCodePoint(inArgs[0].codePoint));
      notes.push(`In the arguments: their box writes them as escapes (${escape}), which JSON reads back as the same characters.`);
    }
    const warning = invisibleWarning([...inCode, ...inArgs], notes);
    warningSlot.replaceChildren(...(warning ? [warning] : []));
    show(warningSlot, warning !== null);
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
    h("div.gu-approval-title", {
      text: code ? `Allow ${toolName} to run this code?` : `Allow ${toolName} to run with these arguments?`,
    }),
    warningSlot,
    code?.el,
    code && !Object.keys(rest).length ? null : editor,
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
  editor.addEventListener("keydown", (e) => e.stopPropagation());
  enterDoes(reason, () => decide("reject"));
  refreshWarning();
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

/** Python `source` as a fenced block the markdown renderer highlights (and sanitizes). */
function highlighted(source) {
  const longest = Math.max(2, ...[...source.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return renderMarkdown(`${fence}python\n${source}\n${fence}`);
}

/**
 * The code of a call: highlighted, its invisible characters marked; "Edit
 * code" turns it into a text box.
 * @param {string} source @param {string} toolName @param {() => void} onEdit
 */
function createCodeEditor(source, toolName, onEdit) {
  const view = h("div.gu-code-view");
  fillMarked(view, () => highlighted(source));
  const box = h("textarea.gu-code-editor", {
    rows: Math.min(20, source.split("\n").length + 1),
    spellcheck: "false",
    hidden: true,
    "aria-label": `Code for ${toolName}`,
  });
  box.value = source;
  // A text box writes every line break as \n: the code is changed only
  // when the user changed the box, never by the box itself.
  const shown = box.value;
  const changed = () => box.value !== shown;
  box.addEventListener("keydown", (e) => e.stopPropagation());
  box.addEventListener("input", onEdit);
  const toggle = h("button.gu-code-edit", { type: "button" }, "Edit code");
  toggle.addEventListener("click", () => {
    const editing = Boolean(box.hidden);
    if (!editing) {
      const text = box.value;
      fillMarked(view, () => highlighted(text));
    }
    show(box, editing);
    show(view, !editing);
    toggle.textContent = editing ? "Preview" : "Edit code";
    if (editing) box.focus();
  });
  const el = h("div.gu-code-approval", {}, view, box, toggle);
  return { el, changed, value: () => (changed() ? box.value : source) };
}

/** What takes the focus for a decision that waits: a call's Approve or answer
 * box, a server request's first button (Send to the server, Ask the model, Open
 * the link), an MCP app's question. */
const NEXT_DECISION = ".gu-approval button.gu-approve, textarea.gu-human-input, .gu-request button.gu-approve, .gu-app-ask button.gu-app-yes";

/** The first decision waiting in `root`, or null. @param {HTMLElement} root */
export function nextDecision(root) {
  return /** @type {HTMLElement | null} */ (root.querySelector(NEXT_DECISION));
}

/**
 * Where the focus goes once a decided call's controls are gone (the focused
 * button went with them): the next call in `root` that waits for the user,
 * else `fallback` (the composer). The card's status line says the outcome
 * (aria-live).
 * @param {HTMLElement} root the chat @param {() => void} fallback
 */
export function focusAfterDecision(root, fallback) {
  const next = nextDecision(root);
  if (next) next.focus();
  else fallback();
}
