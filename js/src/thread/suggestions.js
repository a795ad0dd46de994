// Suggestion chips: follow-ups shown after a run, or the starters of an
// empty thread; clicking one sends it.

import { h, show } from "../common/dom.js";

/**
 * @param {(text: string) => void} onPick
 * @param {string} [label] the group's name (the starters of an empty thread use these chips too)
 */
export function createSuggestions(onPick, label = "Suggested follow-ups") {
  const el = h("div.gu-suggestions", { role: "group", "aria-label": label });
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
