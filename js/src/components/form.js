// Built-in Form: fields from the model's schema; what the user types becomes
// the component's state (sent to the kernel debounced; Submit sends at once
// and marks it submitted). The form is rebuilt only when its fields change,
// so typing never loses focus while other props stream.

import { div } from "./el.js";

function fieldValue(input, type) {
  if (type === "checkbox") return input.checked;
  if (type === "number") return input.value === "" ? null : Number(input.value);
  return input.value;
}

function buildField(field, value, onInput) {
  const type = field.type ?? "text";
  const id = `gu-f-${Math.random().toString(36).slice(2, 9)}`;
  const row = document.createElement("div");
  row.className = "gu-c-form-row";
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = String(field.label ?? field.name) + (field.required ? " *" : "");
  let input;
  if (type === "textarea") input = document.createElement("textarea");
  else if (type === "select") {
    input = document.createElement("select");
    for (const option of Array.isArray(field.options) ? field.options : []) {
      const o = document.createElement("option");
      o.value = String(option);
      o.textContent = String(option);
      input.append(o);
    }
  } else {
    input = document.createElement("input");
    input.type = ["number", "checkbox", "date"].includes(type) ? type : "text";
  }
  input.id = id;
  input.name = String(field.name);
  input.dataset.field = String(field.name);
  if (field.required) input.required = true;
  if (type === "checkbox") input.checked = !!value;
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
  const form = document.createElement("form");
  form.className = "gu-c-form";
  form.noValidate = false;
  if (p.title) form.append(div("gu-c-title", p.title));
  const current = { ...values };
  for (const f of fields) {
    form.append(
      buildField(f, values[f.name], (name, value) => {
        current[name] = value;
        setState({ values: { ...current } });
      }),
    );
  }
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.className = "gu-c-form-submit";
  submit.textContent = String(p.submit_label ?? "Submit");
  submit.disabled = !!status?.streaming;
  form.append(submit);
  const done = document.createElement("span");
  done.className = "gu-c-form-done";
  done.textContent = state?.submitted ? "Sent" : "";
  form.append(done);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    setState({ values: { ...current }, submitted: true }, { flush: true });
    done.textContent = "Sent";
  });
  el.replaceChildren(form);
}
