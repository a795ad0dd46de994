// Built-in Form: fields from the model's schema; what the user types becomes
// the component's state (sent to the kernel debounced; Submit sends at once
// and marks it submitted). Submit also starts a turn: the values go as the
// user's message (shown in the thread); while a run streams, they are kept and
// go with the next message, and the form says so. The form is rebuilt only
// when its fields change, so typing never loses focus while other props stream.

import { h } from "../common/dom.js";

// A number input's `step` per field type. Without one a browser takes step 1
// and refuses 95.5 ("the two nearest valid values are 95 and 96").
const stepOf = (type) => (type === "number" ? "any" : type === "integer" ? "1" : null);

function fieldValue(input, type) {
  if (input instanceof HTMLInputElement && type === "checkbox") return input.checked;
  if (stepOf(type)) return input.value === "" ? null : Number(input.value);
  return input.value;
}

/** A number input for a `number` (any decimal) or `integer` (whole numbers) field, within its bounds. */
function numberInput(field, type) {
  const whole = type === "integer";
  const bound = (value, round) => (typeof value === "number" && Number.isFinite(value) ? String(whole ? round(value) : value) : undefined);
  // an integer's bounds rounded inward: a step counts from `min`, so min 0.5 would allow only 0.5, 1.5...
  return h("input", { type: "number", step: stepOf(type), min: bound(field.minimum, Math.ceil), max: bound(field.maximum, Math.floor) });
}

/** A field name as a reader says it: "start_date" / "startDate" -> "Start date". */
export function humanize(name) {
  const words = String(name ?? "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-\s]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : "";
}

/** What a field is called on screen: its label, its title, else its name in words. */
export function fieldLabel(field) {
  for (const given of [field.label, field.title]) if (typeof given === "string" && given.trim()) return given;
  return humanize(field.name);
}

/** A value as the user's message says it. */
function valueText(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value === null || value === undefined || value === "") return "(empty)";
  return String(value);
}

/**
 * The user's message a submitted form sends: its title and each field's value.
 * @param {any} title @param {any[]} fields @param {Record<string, any>} values
 */
export function formMessage(title, fields, values) {
  const lines = fields.map((f) => `- ${fieldLabel(f)}: ${valueText(values[f.name])}`);
  const head = title ? `Submitted the form “${String(title)}”:` : "Submitted the form:";
  return [head, ...lines].join("\n");
}

export const SENT_TEXT = "Sent as your message.";
export const QUEUED_TEXT = "Saved: a reply is still running, so your answers go with your next message.";
export const SUBMITTED_TEXT = "Submitted.";

function buildField(field, value, onInput) {
  const type = field.type ?? "text";
  const id = `gu-f-${Math.random().toString(36).slice(2, 9)}`;
  const row = h("div.gu-c-form-row");
  const label = h("label", {
    for: id,
    text: fieldLabel(field) + (field.required ? " *" : ""),
  });
  /** @type {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */
  let input;
  if (type === "textarea") input = h("textarea");
  else if (type === "select") {
    const options = Array.isArray(field.options) ? field.options : [];
    // an option is a value, or {value, label} (a label for a code: "hero-1" shown "Superman")
    const option = (o) =>
      o !== null && typeof o === "object"
        ? h("option", { value: String(o.value), text: String(o.label ?? o.value) })
        : h("option", { value: String(o), text: String(o) });
    input = h("select", {}, ...options.map(option));
  } else if (stepOf(type)) input = numberInput(field, type);
  else input = h("input", { type: ["checkbox", "date"].includes(type) ? type : "text" });
  input.id = id;
  input.name = String(field.name);
  input.dataset.field = String(field.name);
  if (field.required) input.required = true;
  if (input instanceof HTMLInputElement && type === "checkbox") input.checked = !!value;
  else if (value !== undefined && value !== null) input.value = String(value);
  input.addEventListener(type === "select" || type === "checkbox" ? "change" : "input", () =>
    onInput(field.name, fieldValue(input, type)),
  );
  if (type === "checkbox") row.append(input, label);
  else row.append(label, input);
  if (typeof field.description === "string" && field.description.trim()) {
    const help = h("div.gu-c-form-help", { id: `${id}-help`, text: field.description });
    input.setAttribute("aria-describedby", help.id);
    row.append(help);
  }
  return row;
}

export function render(args) {
  update(args);
}

/**
 * @param {{props: any, status: any, el: HTMLElement, state: any, setState: Function,
 *          sendMessage?: (text: string) => void, isRunning?: () => boolean}} args
 *   `sendMessage`: starts a turn with the text as the user's message (the chat's);
 *   `isRunning`: whether a reply streams now
 */
export function update({ props, status, el, state, setState, sendMessage, isRunning }) {
  const p = props ?? {};
  const fields = (Array.isArray(p.fields) ? p.fields : []).filter((f) => f && typeof f.name === "string");
  const key = JSON.stringify([p.title, fields, p.submit_label, !status?.streaming]);
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  const values = { ...(state?.values ?? {}) };
  for (const f of fields) if (!(f.name in values) && f.default !== undefined && f.default !== null) values[f.name] = f.default;
  const form = h("form.gu-c-form");
  form.noValidate = false;
  if (p.title) form.append(h("div.gu-c-title", { text: p.title }));
  const current = { ...values };
  for (const f of fields) {
    form.append(
      buildField(f, values[f.name], (name, value) => {
        current[name] = value;
        setState({ values: { ...current } });
      }),
    );
  }
  const submit = h("button.gu-c-form-submit", {
    type: "submit",
    disabled: !!status?.streaming,
    text: String(p.submit_label ?? "Submit"),
  });
  const done = h("span.gu-c-form-done", { role: "status", text: state?.submitted ? SUBMITTED_TEXT : "" });
  form.append(submit, done);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    setState({ values: { ...current }, submitted: true }, { flush: true });
    // Idle: the values start a turn now. Busy (or no chat to send through): the
    // state is kept and rides on the next user message (<component_state>).
    if (typeof sendMessage === "function" && !isRunning?.()) {
      sendMessage(formMessage(p.title, fields, current));
      done.textContent = SENT_TEXT;
    } else {
      done.textContent = QUEUED_TEXT;
    }
  });
  el.replaceChildren(form);
}
