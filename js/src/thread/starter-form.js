// Starters with a form: a tool server's prompts that need arguments (the
// `starter_forms` trait, the server's text: read here, shown as text only).
// A chip opens a small form, one field per argument (its name, description,
// required marked); Send asks the kernel to fill the prompt (`starter_form`)
// and the filled text goes as the user's message. The form closes only once
// the kernel took it (`accepted`); a refusal (`error` with its ref) shows in
// the form, the values kept. Typing in a field asks the server's suggestions
// (`complete`, debounced, at most MAX_IN_FLIGHT out, the other fields as
// context); the answers (`completion`) are listed as text, at most
// MAX_SHOWN, an older answer for a field dropped.

import { h, setText, show } from "../common/dom.js";

export const DEBOUNCE_MS = 250;
export const MAX_IN_FLIGHT = 2;
export const MAX_SHOWN = 8;
const ANSWER_MS = 15_000; // a request unanswered this long no longer counts as out
const MAX_FORMS = 12;
const MAX_FIELDS = 10;
const MAX_LABEL = 500;
const MAX_SUGGESTION = 200;

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const text = (v, max = MAX_LABEL) => (typeof v === "string" ? v.slice(0, max) : "");

/**
 * The forms of the `starter_forms` trait that are well formed (the rest are
 * left out): `{id, title, description, arguments: [{name, description, required}]}`.
 * @param {any} raw
 * @returns {{id: string, title: string, description: string,
 *   arguments: {name: string, description: string, required: boolean}[]}[]}
 */
export function readStarterForms(raw) {
  if (!Array.isArray(raw)) return [];
  const forms = [];
  for (const item of raw.slice(0, MAX_FORMS)) {
    if (!isObject(item) || typeof item.id !== "string" || !item.id || item.id.length > 200) continue;
    if (!Array.isArray(item.arguments) || item.arguments.length > MAX_FIELDS) continue;
    const args = item.arguments
      .filter((a) => isObject(a) && typeof a.name === "string" && a.name && a.name.length <= 200)
      .map((a) => ({ name: a.name, description: text(a.description), required: a.required === true }));
    if (args.length !== item.arguments.length) continue;
    forms.push({ id: item.id, title: text(item.title) || item.id, description: text(item.description), arguments: args });
  }
  return forms;
}

/**
 * @param {{
 *   send: (msg: any) => void,
 *   toKernel: any,
 *   tag: () => string,
 *   maxChars?: () => number,
 * }} ctx `tag` makes a new ref for a submit; `maxChars`: a field's longest value
 */
export function createStarterForms({ send, toKernel, tag, maxChars = () => Infinity }) {
  const chips = h("div.gu-suggestions.gu-starter-forms", { role: "group", "aria-label": "Starters to fill in" });
  const holder = h("div.gu-starter-form-holder");
  const el = h("div.gu-starter-forms-area", {}, chips, holder);
  let forms = /** @type {ReturnType<typeof readStarterForms>} */ ([]);
  let key = "";
  /** @type {ReturnType<typeof openForm> | null} */
  let open = null;
  // Every view of the chat hears every answer: this view's requests are its own numbers.
  let requests = Math.floor(Math.random() * 2 ** 30);
  /** @type {Map<number, any>} request -> the timer that forgets it (an answer that never comes) */
  const inFlight = new Map();

  /** @param {number} request */
  function settled(request) {
    clearTimeout(inFlight.get(request));
    return inFlight.delete(request);
  }

  /** @param {ReturnType<typeof readStarterForms>[number]} form */
  function openForm(form) {
    const uid = `gu-sf-${Math.random().toString(36).slice(2, 8)}`;
    const error = h("div.gu-starter-form-error", { role: "alert", hidden: true });
    /** @type {Map<string, {input: HTMLInputElement, list: HTMLElement, latest: number, timer: any, active: number}>} */
    const fields = new Map();
    let pendingRef = "";
    const submit = h("button.gu-starter-form-send", { type: "submit" }, "Send");
    const cancel = h("button.gu-starter-form-cancel", { type: "button", onclick: () => close() }, "Cancel");

    const values = () => Object.fromEntries([...fields].map(([name, f]) => [name, f.input.value]));

    /** @param {string} name */
    function ask(name) {
      const field = fields.get(name);
      if (!field) return;
      if (inFlight.size >= MAX_IN_FLIGHT) {
        // the answer under way asks again for this field when it comes
        field.timer = setTimeout(() => ask(name), DEBOUNCE_MS);
        return;
      }
      const context = Object.fromEntries(
        Object.entries(values()).filter(([other, value]) => other !== name && value),
      );
      const request = (field.latest = ++requests);
      inFlight.set(request, setTimeout(() => settled(request), ANSWER_MS));
      send(toKernel.complete(form.id, name, field.input.value, context, field.latest));
    }

    /** @param {string} name @param {string} value */
    function pick(name, value) {
      const field = fields.get(name);
      if (!field) return;
      field.input.value = value;
      showSuggestions(name, []);
      field.input.focus();
    }

    /** @param {string} name @param {string[]} items */
    function showSuggestions(name, items) {
      const field = fields.get(name);
      if (!field) return;
      field.active = -1;
      field.list.replaceChildren(
        ...items.map((value, i) =>
          h(
            "div.gu-starter-suggestion",
            {
              role: "option",
              id: `${uid}-${field.input.name}-${i}`,
              "aria-selected": "false",
              onmousedown: (event) => {
                event.preventDefault(); // the field keeps the focus
                pick(name, value);
              },
            },
            value, // the server's text: a text node, never markup
          ),
        ),
      );
      show(field.list, items.length > 0);
      field.input.setAttribute("aria-expanded", items.length ? "true" : "false");
      field.input.removeAttribute("aria-activedescendant");
    }

    /** @param {string} name @param {number} move */
    function moveActive(name, move) {
      const field = fields.get(name);
      const options = field ? [...field.list.children] : [];
      if (!field || !options.length) return false;
      field.active = (field.active + move + options.length) % options.length;
      options.forEach((o, i) => o.setAttribute("aria-selected", i === field.active ? "true" : "false"));
      field.input.setAttribute("aria-activedescendant", options[field.active].id);
      return true;
    }

    const fieldEls = form.arguments.map((arg, index) => {
      const id = `${uid}-${index}`;
      const input = h("input.gu-starter-field-input", {
        type: "text",
        id,
        name: `f${index}`,
        autocomplete: "off",
        role: "combobox",
        "aria-autocomplete": "list",
        "aria-expanded": "false",
        "aria-controls": `${id}-list`,
        "aria-required": arg.required ? "true" : "false",
        "aria-describedby": arg.description ? `${id}-hint` : undefined,
        maxlength: Number.isFinite(maxChars()) ? String(maxChars()) : undefined,
      });
      const list = h("div.gu-starter-suggestions", { role: "listbox", id: `${id}-list`, hidden: true, "aria-label": `Suggestions for ${arg.name}` });
      const field = { input, list, latest: 0, timer: /** @type {any} */ (null), active: -1 };
      fields.set(arg.name, field);
      input.addEventListener("input", () => {
        if (!pendingRef) fail(""); // what was said is about the values as they were
        clearTimeout(field.timer);
        field.timer = setTimeout(() => ask(arg.name), DEBOUNCE_MS);
      });
      input.addEventListener("keydown", (event) => {
        event.stopPropagation(); // no key reaches the notebook's shortcuts
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          if (moveActive(arg.name, event.key === "ArrowDown" ? 1 : -1)) event.preventDefault();
        } else if (event.key === "Enter" && !field.list.hidden && field.active >= 0) {
          event.preventDefault();
          pick(arg.name, field.list.children[field.active].textContent ?? "");
        } else if (event.key === "Escape") {
          if (!field.list.hidden) showSuggestions(arg.name, []);
          else close();
          event.preventDefault();
        }
      });
      input.addEventListener("blur", () => showSuggestions(arg.name, []));
      return h(
        "div.gu-starter-field",
        {},
        h(
          "label.gu-starter-field-label",
          { for: id },
          h("span.gu-starter-field-name", { text: arg.name }),
          arg.required ? h("span.gu-required", { text: " *", "aria-hidden": "true" }) : null,
          arg.required ? h("span.gu-sr-only", { text: " (required)" }) : null,
        ),
        arg.description ? h("div.gu-starter-field-hint", { id: `${id}-hint`, text: arg.description }) : null,
        h("div.gu-starter-field-box", {}, input, list),
      );
    });

    const formEl = h(
      "form.gu-starter-form",
      { "aria-label": form.title, novalidate: true },
      h("div.gu-starter-form-title", { text: form.title }),
      form.description ? h("div.gu-starter-form-description", { text: form.description }) : null,
      ...fieldEls,
      error,
      h("div.gu-starter-form-actions", {}, cancel, submit),
    );
    formEl.addEventListener("submit", (event) => {
      event.preventDefault();
      if (pendingRef) return;
      const missing = form.arguments.filter((a) => a.required && !fields.get(a.name)?.input.value.trim());
      if (missing.length) {
        fail(`Fill in ${missing.map((a) => a.name).join(", ")} first.`);
        fields.get(missing[0].name)?.input.focus();
        return;
      }
      fail("");
      pendingRef = tag();
      submit.disabled = true;
      setText(submit, "Sending…");
      const given = Object.fromEntries(Object.entries(values()).filter(([, value]) => value.trim()));
      send(toKernel.starterForm(form.id, given, pendingRef)); // a blank field is left out: its default stands
    });

    /** @param {string} message */
    function fail(message) {
      setText(error, message);
      show(error, !!message);
    }

    function close() {
      for (const f of fields.values()) clearTimeout(f.timer);
      const hadFocus = formEl.contains(document.activeElement);
      formEl.remove();
      if (open?.form === form) open = null;
      const chip = [...chips.children].find((c) => c instanceof HTMLElement && c.dataset.formId === form.id);
      if (chip instanceof HTMLElement && hadFocus) chip.focus();
    }

    holder.replaceChildren(formEl);
    fields.values().next().value?.input.focus();
    return {
      form,
      el: formEl,
      close,
      values,
      /** @param {any} msg a `completion` for this form */
      completion(msg) {
        const field = fields.get(msg.argument);
        if (!field || msg.request !== field.latest) return; // an older answer, or none of ours
        if (document.activeElement !== field.input) return;
        const items = [...new Set(msg.values.filter((v) => typeof v === "string" && v && v.length <= MAX_SUGGESTION))];
        showSuggestions(msg.argument, items.slice(0, MAX_SHOWN));
      },
      /** @param {any} msg */
      accepted(msg) {
        if (!pendingRef || msg.ref !== pendingRef) return false;
        close();
        return true;
      },
      /** @param {any} msg */
      refused(msg) {
        if (!pendingRef || msg.ref !== pendingRef) return false;
        pendingRef = "";
        submit.disabled = false;
        setText(submit, "Send");
        fail(msg.message || "The starter could not be sent.");
        return true;
      },
    };
  }

  return {
    el,
    /**
     * @param {any} raw the `starter_forms` trait
     * @param {boolean} enabled an empty thread, no run
     */
    update(raw, enabled) {
      const list = enabled ? readStarterForms(raw) : [];
      const next = JSON.stringify(list);
      if (next !== key) {
        key = next;
        forms = list;
        chips.replaceChildren(
          ...forms.map((form) =>
            h(
              "button.gu-suggestion.gu-starter-form-chip",
              {
                type: "button",
                "data-form-id": form.id,
                "aria-haspopup": "true",
                title: form.description || undefined,
                onclick: () => {
                  if (open?.form.id === form.id) return open.el.querySelector("input")?.focus();
                  open?.close();
                  open = openForm(form);
                  return undefined;
                },
              },
              `${form.title}…`,
            ),
          ),
        );
        // a form whose prompt the server took back goes; one still offered stays as typed
        const shown = open;
        const same = shown && forms.find((f) => f.id === shown.form.id);
        if (shown && (!same || JSON.stringify(same) !== JSON.stringify(shown.form))) shown.close();
      }
      show(chips, forms.length > 0);
      show(holder, forms.length > 0);
    },
    /** A `completion` from the kernel. @param {any} msg */
    completion(msg) {
      if (settled(msg.request)) open?.completion(msg);
    },
    /** `accepted` for a starter's form: true when it was this view's. @param {any} msg */
    accepted(msg) {
      return open?.accepted(msg) ?? false;
    },
    /** `error` for a starter's form: true when it was this view's. @param {any} msg */
    refused(msg) {
      return open?.refused(msg) ?? false;
    },
    /** The open form (tests). */
    get open() {
      return open;
    },
  };
}
