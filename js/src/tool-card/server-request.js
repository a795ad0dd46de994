// A tool server's request during one of its calls (an MCP server's sampling
// or elicitation), shown as a card of its own (the part is `synthetic`):
// - sampling: who asks, the prompt, the token limit; "Ask the model" approves
//   it, then the model's answer is shown and "Send to the server" approves it
//   again (Decline rejects it, at either step);
// - a form: the server's schema as our Form component; Submit accepts with the
//   values, Decline and Cancel answer so;
// - a URL: the full address, opened only by a click on its button; its
//   invisible and bidi characters (and the message's) flagged as on the
//   approval card, since a U+202E makes an address read as another.
// Every decision goes through the usual messages (approve / reject / tool_result).

import { enterDoes, h } from "../common/dom.js";
import { update as renderForm } from "../components/form.js";
import { toKernel } from "../protocol.js";
import { findInvisible, invisibleWarning, markInvisibleIn } from "./invisible-chars.js";

export const SAMPLING = "mcp_sampling";
export const ELICITATION = "mcp_elicitation";
/** The record of a tool call an MCP app started (settled: the card shows it, nothing to decide). */
export const APP_CALL = "mcp_app_call";

/** The card's name for a request part, or null for a model's call (`args` as for `requestKey`). */
export function requestTitle(part, args = part?.args) {
  if (!part?.synthetic) return null;
  if (part.tool_name === SAMPLING) return "Sampling request";
  if (part.tool_name === ELICITATION) return args?.mode === "url" ? "Link request" : "Form request";
  if (part.tool_name === APP_CALL) return `${String(args?.tool ?? "A tool")}, called by an app`;
  return "Server request";
}

/**
 * Which controls a request needs now (rebuilt only when this changes), or null.
 * `args`: the part's arguments as the card parsed them (the wire may carry
 * only `args_text`).
 */
export function requestKey(part, args = part?.args) {
  if (!part?.synthetic || part.has_result) return null;
  if (part.tool_name === SAMPLING) {
    if (part.approval?.status !== "pending") return null; // the model is answering
    return `sampling:${part.tool_call_id}:${"reply" in (args ?? {}) ? "reply" : "ask"}`;
  }
  return `elicitation:${part.tool_call_id}`;
}

/** The server as its card names it (its own name, else its short command; a thread saved before: its command in backticks). */
function serverName(args) {
  const text = String(args.server ?? "The server").replace(/^`(.*)`$/s, "$1");
  return h("code.gu-request-server", { text });
}

function buttons(...nodes) {
  return h("div.gu-request-buttons", {}, ...nodes);
}

function button(cls, text, onclick, title) {
  return h(`button.${cls}`, { type: "button", onclick, ...(title ? { title } : {}) }, text);
}

function prompt(args) {
  const rows = [];
  if (args.system_prompt) rows.push(h("div.gu-request-msg", {}, h("span.gu-request-role", { text: "System" }), h("div.gu-request-text", { text: String(args.system_prompt) })));
  for (const message of Array.isArray(args.messages) ? args.messages : []) {
    const role = message?.role === "assistant" ? "Assistant" : "User";
    rows.push(h("div.gu-request-msg", {}, h("span.gu-request-role", { text: role }), h("div.gu-request-text", { text: String(message?.text ?? "") })));
  }
  return h("div.gu-request-prompt", {}, ...rows);
}

function sampling(part, args, send) {
  const id = part.tool_call_id;
  const reason = h("input.gu-reject-reason", { type: "text", placeholder: "Reason (optional)", "aria-label": "Reason for declining" });
  const declineNow = () => send(toKernel.reject(id, reason.value.trim() || null));
  enterDoes(reason, declineNow);
  const decline = button("gu-reject", "Decline", declineNow);
  const limit = `at most ${Number(args.max_tokens ?? 0).toLocaleString()} tokens`;
  if ("reply" in args) {
    return h(
      "div.gu-request",
      { role: "group", "aria-label": "Send the model's answer to the server?" },
      h("div.gu-request-title", {}, "Send this answer to ", serverName(args), "?"),
      h("div.gu-request-reply", { text: String(args.reply ?? "") }),
      h("div.gu-request-meta", { text: `Written by ${String(args.reply_model ?? "the model")} (${limit}).` }),
      buttons(button("gu-approve", "Send to the server", () => send(toKernel.approve(id, null))), reason, decline),
    );
  }
  return h(
    "div.gu-request",
    { role: "group", "aria-label": "Let the server use the chat's model?" },
    h("div.gu-request-title", {}, serverName(args), " asks the chat's model to answer:"),
    prompt(args),
    h("div.gu-request-meta", { text: `Answer ${limit}; you see it before it is sent.` }),
    buttons(button("gu-approve", "Ask the model", () => send(toKernel.approve(id, null))), reason, decline),
  );
}

/** A choice field's options as {value, label}: titled (`oneOf`, legacy `enumNames`) or plain `enum`. */
function choiceOptions(f) {
  if (Array.isArray(f.oneOf)) return f.oneOf.map((o) => ({ value: o?.const, label: o?.title ?? o?.const }));
  if (!Array.isArray(f.enum)) return null;
  const names = Array.isArray(f.enumNames) ? f.enumNames : [];
  return f.enum.map((value, i) => ({ value, label: names[i] ?? value }));
}

/** The Form component's fields for an MCP form schema (flat, primitive fields). */
export function formFields(schema) {
  const properties = schema?.properties && typeof schema.properties === "object" ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(properties).map(([name, field]) => {
    const f = field ?? {};
    const out = { name, label: f.title || undefined, required: required.has(name), default: f.default, description: f.description };
    const choices = choiceOptions(f);
    if (f.type === "boolean") Object.assign(out, { type: "checkbox", default: f.default ?? false });
    else if (f.type === "number" || f.type === "integer") Object.assign(out, { type: f.type, minimum: f.minimum, maximum: f.maximum });
    else if (f.type === "array") {
      const items = f.items ?? {};
      const options = Array.isArray(items.enum) ? items.enum : (items.anyOf ?? []).map((o) => o?.const);
      Object.assign(out, { type: "text", label: `${f.title || name} (comma-separated: ${options.join(", ")})`, default: Array.isArray(f.default) ? f.default.join(", ") : undefined });
    } else if (choices) Object.assign(out, { type: "select", options: choices, default: f.default ?? choices[0].value });
    else out.type = f.format === "date" ? "date" : "text";
    return out;
  });
}

/** The form's values as the server's schema types them (multi-selects split, empties left out). */
export function formContent(schema, values) {
  const content = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    const kind = schema?.properties?.[name]?.type;
    if (value === "" || value === null || value === undefined) continue;
    if (kind === "array") content[name] = String(value).split(",").map((s) => s.trim()).filter(Boolean);
    else content[name] = value;
  }
  return content;
}

function elicitation(part, args, send) {
  const id = part.tool_call_id;
  const server = String(args.server ?? "The server");
  const answer = (action) => () => send(toKernel.toolResult(id, { action }));
  const rest = [button("gu-reject", "Decline", answer("decline")), button("gu-request-cancel", "Cancel", answer("cancel"), "Answer later: the server may ask again")];
  const head = [h("div.gu-request-title", {}, serverName(args), " asks you:"), h("div.gu-request-text", { text: String(args.message ?? "") })];
  if (args.mode === "url") {
    const url = String(args.url ?? "");
    const open = () => {
      window.open(url, "_blank", "noopener,noreferrer");
      send(toKernel.toolResult(id, { action: "accept" }));
    };
    const found = [...findInvisible(String(args.message ?? "")), ...findInvisible(url)];
    const shown = h("code.gu-request-url", { text: url });
    const el = h(
      "div.gu-request",
      { role: "group", "aria-label": `${server} asks you to open a link` },
      ...head,
      shown,
      invisibleWarning(found, ["The link may go somewhere other than it reads: check it before you open it."], "This request"),
      // the tooltip cannot hold chips: no address there when it hides characters
      buttons(button("gu-approve", "Open the link", open, found.length ? undefined : url), ...rest),
    );
    markInvisibleIn(el);
    return el;
  }
  const schema = args.schema ?? {};
  const formEl = h("div.gu-request-form");
  let values = {};
  renderForm({
    props: { fields: formFields(schema), submit_label: "Submit" },
    status: {},
    el: formEl,
    state: {},
    setState: (s) => {
      values = s?.values ?? values;
    },
    sendMessage: () => send(toKernel.toolResult(id, { action: "accept", content: formContent(schema, values) })),
    isRunning: () => false,
  });
  formEl.addEventListener("submit", () => {
    const done = formEl.querySelector(".gu-c-form-done");
    if (done) done.textContent = "Sent to the server.";
  });
  formEl.addEventListener("keydown", (e) => e.stopPropagation());
  // Decline and Cancel beside Submit (plain buttons: they never submit the form)
  const submit = formEl.querySelector(".gu-c-form-submit");
  if (submit) {
    const row = buttons();
    submit.replaceWith(row);
    row.append(submit, ...rest);
  }
  return h("div.gu-request", { role: "group", "aria-label": `${server} asks you to fill in a form` }, ...head, formEl);
}

/** The controls of a request card waiting for the user (`args` as for `requestKey`). */
export function createServerRequest({ part, args = part.args, send }) {
  const given = args ?? {};
  return { el: part.tool_name === SAMPLING ? sampling(part, given, send) : elicitation(part, given, send) };
}
