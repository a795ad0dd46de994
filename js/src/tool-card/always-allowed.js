// The standing "always allow" grants of a chat, as a row of chips: each names
// a tool the chat runs without asking, and its × takes the grant back. The
// row only revokes: a grant comes with the user's approval of a call.

import { readableName } from "../components/slot.js";
import { h, show } from "../common/dom.js";

/** The tool names of the `always_allowed` trait (anything else dropped). */
export function readAlwaysAllowed(value) {
  return Array.isArray(value) ? value.filter((name) => typeof name === "string" && name) : [];
}

/** @param {(toolName: string) => void} onRevoke */
export function createAlwaysAllowed(onRevoke) {
  const list = h("span.gu-grants-list");
  const el = h(
    "div.gu-grants",
    { role: "group", "aria-label": "Tools allowed without asking", hidden: true },
    h("span.gu-grants-label", { text: "Allowed without asking:" }),
    list,
  );
  let current = "";
  return {
    el,
    /** @param {string[]} names */
    update(names) {
      const key = JSON.stringify(names);
      if (key === current) return;
      current = key;
      list.replaceChildren(
        ...names.map((name) =>
          h(
            "button.gu-grant",
            {
              type: "button",
              title: `Ask again before each ${name} call`,
              "aria-label": `Stop allowing ${readableName(name)} without asking`,
              onclick: () => onRevoke(name),
            },
            h("span.gu-grant-name", { text: name }),
            h("span.gu-grant-x", { "aria-hidden": "true", text: "×" }),
          ),
        ),
      );
      show(el, names.length > 0);
    },
  };
}
