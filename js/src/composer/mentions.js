// The composer's `@` menu: typing `@` lists the chat's data and the notebook's tables (the kernel lists them: widget/_notebook_data.py) whose names match
// what follows it, each with its kind and shape ("@sales · DataFrame · 1,200 × 5");
// arrows move, Enter or Tab picks (the `@word` leaves the box and the name
// becomes an attachment), Esc closes.

import { h, show } from "../common/dom.js";

/** The `@word` being typed just before the caret, or null. */
export function mentionAt(text, caret) {
  const match = /(^|\s)@([\w.-]*)$/.exec(text.slice(0, caret));
  return match ? { start: caret - match[2].length - 1, query: match[2] } : null;
}

/**
 * What a data name holds, as the menu says it: "DataFrame · 1,200 × 5", "Series · 7",
 * "str"; "" when the kernel said nothing readable.
 * @param {any} details one entry of the `data_details` trait: `{kind, shape}`
 */
export function mentionDetail(details) {
  if (!details || typeof details !== "object") return "";
  const kind = typeof details.kind === "string" ? details.kind.slice(0, 40) : "";
  const shape = details.shape;
  const dims =
    Array.isArray(shape) && shape.length <= 8 && shape.every((n) => Number.isInteger(n) && n >= 0)
      ? shape.map((n) => n.toLocaleString()).join(" × ")
      : "";
  return [kind, dims].filter(Boolean).join(" · ");
}

/**
 * @param {HTMLTextAreaElement} input the composer's box
 * @param {{dataNames: () => string[], dataDetails?: () => any, onPick: (name: string) => void}} opts
 *   `dataDetails`: name -> `{kind, shape}` (the `data_details` trait)
 */
export function createMentionMenu(input, { dataNames, dataDetails = () => ({}), onPick }) {
  const el = h("div.gu-mention-menu", { role: "listbox", hidden: true, "aria-label": "Data to attach" });
  let mention = null;
  let index = 0;
  let names = [];

  function close() {
    mention = null;
    show(el, false);
  }

  /** List the names matching the `@word` at the caret (or close when there is none). */
  function refresh() {
    mention = mentionAt(input.value, input.selectionStart ?? input.value.length);
    const query = mention?.query.toLowerCase() ?? "";
    names = mention ? dataNames().filter((n) => n.toLowerCase().includes(query)).slice(0, 20) : [];
    if (!names.length) return close();
    index = Math.min(index, names.length - 1);
    const details = dataDetails() ?? {};
    el.replaceChildren(
      ...names.map((name, i) => {
        const detail = mentionDetail(Object.hasOwn(details, name) ? details[name] : null);
        return h(
          "div.gu-mention-item",
          {
            role: "option",
            "aria-selected": i === index ? "true" : "false",
            "data-name": name,
            onmousedown: (event) => {
              event.preventDefault(); // keep the focus in the box
              pick(name);
            },
          },
          h("span.gu-mention-name", { text: `@${name}` }),
          detail ? h("span.gu-mention-detail", { text: ` · ${detail}` }) : null,
        );
      }),
    );
    show(el, true);
  }

  function pick(name) {
    if (mention) {
      const caret = input.selectionStart ?? input.value.length;
      input.value = input.value.slice(0, mention.start) + input.value.slice(caret);
      input.selectionStart = input.selectionEnd = mention.start;
    }
    close();
    onPick(name);
  }

  return {
    el,
    refresh,
    close,
    /**
     * A key pressed in the box while the menu is open: true when the menu took it.
     * @param {KeyboardEvent} event
     */
    handleKey(event) {
      if (el.hidden || !names.length) return false;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        index = (index + (event.key === "ArrowDown" ? 1 : -1) + names.length) % names.length;
        refresh();
        return true;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        pick(names[index]);
        return true;
      }
      if (event.key === "Escape") {
        close();
        return true;
      }
      return false;
    },
  };
}
