// Built-in Form: fields from the model's schema; what the user types becomes
// the component's state (sent to the kernel debounced; Submit sends at once
// and marks it submitted). The form is rebuilt only when its fields change,
// so typing never loses focus while other props stream.

import { h } from "../dom.js";

function fieldValue(input, type) {
  if (input instanceof HTMLInputElement && type === "checkbox") return input.checked;
  if (type === "number") return input.value === "" ? null : Number(input.value);
  return input.value;
}

function buildField(field, value, onInput) {
  const type = field.type ?? "text";
  const id = `gu-f-${Math.random().toString(36).slice(2, 9)}`;
  const row = h("div.gu-c-form-row");
  const label = h("label", {
    for: id,
    text: String(field.label ?? field.name) + (field.required ? " *" : ""),
  });
  /** @type {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */
  let input;
  if (type === "textarea") input = h("textarea");
  else if (type === "select") {
    const options = Array.isArray(field.options) ? field.options : [];
    input = h("select", {}, ...options.map((option) => h("option", { value: String(option), text: String(option) })));
  } else {
    input = h("input", { type: ["number", "checkbox", "date"].includes(type) ? type : "text" });
  }
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
  return row;
}

export function render(args) {
  update(args);
}

export function update({ props, status, el, state, setState }) {
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
  const done = h("span.gu-c-form-done", { text: state?.submitted ? "Sent" : "" });
  form.append(submit, done);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    setState({ values: { ...current }, submitted: true }, { flush: true });
    done.textContent = "Sent";
  });
  el.replaceChildren(form);
}
