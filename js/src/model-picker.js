// The header's model picker: a button with the current model's name and a
// chevron, opening a list of the models the chat offers (the `model_choices`
// trait). A choice goes to the kernel as one `choose_model` message; the
// kernel answers with the `model_choice` trait (or an error notice, and the
// model in use stays), so the button always shows what the next reply uses.
//
// Keyboard (the WAI-ARIA select-only listbox): Enter, Space, ArrowDown or
// ArrowUp open the list on the current model; arrows, Home and End move;
// Enter or Space chooses; Escape closes and gives focus back; Tab closes.

import { h, setText, show } from "./dom.js";
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
  let active = -1;
  let key = "";

  const options = () => /** @type {HTMLElement[]} */ ([...list.children]);
  const isOpen = () => !list.hidden;

  function setActive(index) {
    const items = options();
    if (!items.length) return;
    active = Math.max(0, Math.min(items.length - 1, index));
    items.forEach((item, i) => item.classList.toggle("gu-active", i === active));
    list.setAttribute("aria-activedescendant", items[active].id);
    items[active].scrollIntoView?.({ block: "nearest" });
  }

  function open(at) {
    if (!choices.length) return;
    show(list, true);
    button.setAttribute("aria-expanded", "true");
    const selected = choices.findIndex((c) => c.id === current);
    setActive(at === "last" ? choices.length - 1 : selected >= 0 ? selected : 0);
    list.focus();
    document.addEventListener("pointerdown", onOutside, true);
  }

  function close(focusButton) {
    if (!isOpen()) return;
    show(list, false);
    button.setAttribute("aria-expanded", "false");
    list.removeAttribute("aria-activedescendant");
    document.removeEventListener("pointerdown", onOutside, true);
    if (focusButton) button.focus();
  }

  function choose(index) {
    const choice = choices[index];
    close(true);
    if (choice && choice.id !== current) ctx.send(toKernel.chooseModel(choice.id));
  }

  function onOutside(event) {
    if (!el.contains(/** @type {Node} */ (event.target))) close(false);
  }

  button.addEventListener("click", () => (isOpen() ? close(true) : open("current")));
  button.addEventListener("keydown", (event) => {
    event.stopPropagation(); // notebook shortcuts stay out of the picker
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      open(event.key === "ArrowUp" && !choices.some((c) => c.id === current) ? "last" : "current");
    }
    // Enter and Space reach the button as a click
  });
  list.addEventListener("keydown", (event) => {
    event.stopPropagation();
    const moves = { ArrowDown: active + 1, ArrowUp: active - 1, Home: 0, End: choices.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      setActive(moves[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(true);
    } else if (event.key === "Tab") {
      close(false);
    }
  });
  list.addEventListener("click", (event) => {
    const item = /** @type {HTMLElement | null} */ (event.target)?.closest?.("[role=option]");
    if (item) choose(options().indexOf(/** @type {HTMLElement} */ (item)));
  });
  list.addEventListener("pointermove", (event) => {
    const item = /** @type {HTMLElement | null} */ (event.target)?.closest?.("[role=option]");
    const index = item ? options().indexOf(/** @type {HTMLElement} */ (item)) : -1;
    if (index >= 0 && index !== active) setActive(index);
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
      if (!choices.length) close(false);
      else if (isOpen()) setActive(Math.min(active, choices.length - 1));
    },
    destroy() {
      document.removeEventListener("pointerdown", onOutside, true);
    },
  };
}
