// The header's model picker: a button with the current model's name and a
// chevron, opening a list of the models the chat offers (the `model_choices`
// trait). A choice goes to the kernel as one `choose_model` message; the
// kernel answers with the `model_choice` trait (or an error notice, and the
// model in use stays), so the button always shows what the next reply uses.
//
// Keyboard: the WAI-ARIA select-only listbox of common/listbox.js, opening on the
// current model.

import { h, setText, show } from "./common/dom.js";
import { createListbox } from "./common/listbox.js";
import { toKernel } from "./protocol.js";

/** @typedef {{id: string, name: string, provider: string}} ModelChoice */

/**
 * The well-formed entries of the `model_choices` trait (ids once each).
 * @param {any} value
 * @returns {ModelChoice[]}
 */
export function readModelChoices(value) {
  if (!Array.isArray(value)) return [];
  const seen = new Set();
  const out = [];
  for (const c of value) {
    if (!c || typeof c.id !== "string" || !c.id || seen.has(c.id)) continue;
    seen.add(c.id);
    const name = typeof c.name === "string" && c.name ? c.name : c.id;
    out.push({ id: c.id, name, provider: typeof c.provider === "string" ? c.provider : "" });
  }
  return out;
}

const SVG = "http://www.w3.org/2000/svg";

/** A small down chevron, drawn in the text's colour. */
function chevron() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "12");
  svg.setAttribute("height", "12");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "gu-model-picker-chevron");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M4 6l4 4 4-4");
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", "1.6");
  path.setAttribute("stroke-linecap", "round");
  path.setAttribute("stroke-linejoin", "round");
  svg.append(path);
  return svg;
}

let pickers = 0;

/**
 * @param {{send: (msg: any) => void}} ctx
 */
export function createModelPicker(ctx) {
  const uid = `gu-model-picker-${++pickers}`;
  const name = h("span.gu-model-picker-name");
  const button = h(
    "button.gu-model-picker-button",
    { type: "button", "aria-haspopup": "listbox", "aria-expanded": "false", "aria-controls": `${uid}-list` },
    name,
    chevron(),
  );
  const list = h("ul.gu-model-picker-list", {
    id: `${uid}-list`,
    role: "listbox",
    tabindex: "-1",
    "aria-label": "Models",
    hidden: true,
  });
  const el = h("span.gu-model-picker", { hidden: true }, button, list);

  /** @type {ModelChoice[]} */
  let choices = [];
  let current = "";
  let key = "";

  const listbox = createListbox({
    button,
    list,
    root: el,
    ids: () => choices.map((c) => c.id),
    current: () => current,
    onChoose: (id) => ctx.send(toKernel.chooseModel(id)),
    followPointer: true,
  });

  return {
    el,
    /** Whether the picker shows (the chat lists models). */
    get shown() {
      return choices.length > 0;
    },
    /**
     * @param {ModelChoice[]} list_ the models offered (empty: no picker)
     * @param {string} id the one in use ("" when the model is not listed)
     * @param {string} fallback the name to show when it is not listed
     */
    update(list_, id, fallback) {
      const nextKey = JSON.stringify([list_, id, fallback]);
      if (nextKey === key) return;
      key = nextKey;
      choices = list_;
      current = id;
      show(el, choices.length > 0);
      const chosen = choices.find((c) => c.id === id);
      const label = chosen ? chosen.name : fallback || "Model";
      setText(name, label);
      button.setAttribute("aria-label", `Model: ${label}. Choose another model`);
      button.title = chosen?.provider ? `${chosen.provider}: ${chosen.name}` : label;
      list.replaceChildren(
        ...choices.map((c, i) =>
          h(
            "li.gu-model-option",
            { id: `${uid}-${i}`, role: "option", "aria-selected": c.id === id ? "true" : "false" },
            h("span.gu-model-option-name", {}, c.name),
            c.provider ? h("span.gu-model-option-provider", {}, c.provider) : null,
          ),
        ),
      );
      listbox.refresh();
    },
    destroy: () => listbox.destroy(),
  };
}
