// Follow-up suggestion chips shown after a run; clicking one sends it.

import { h, show } from "./dom.js";

/** @param {(text: string) => void} onPick */
export function createSuggestions(onPick) {
  const el = h("div.gu-suggestions", { role: "group", "aria-label": "Suggested follow-ups" });
  let current = "";
  return {
    el,
    /** @param {string[]} items @param {boolean} enabled */
    update(items, enabled) {
      const list = enabled ? (items ?? []) : [];
      const key = JSON.stringify(list);
      if (key !== current) {
        current = key;
        el.replaceChildren(
          ...list.map((text) =>
            h("button.gu-suggestion", { type: "button", onclick: () => onPick(text) }, text),
          ),
        );
      }
      show(el, list.length > 0);
    },
  };
}
