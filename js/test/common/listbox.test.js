// The shared select-only listbox (model picker, thread picker): the keyboard
// opens, moves and chooses; the active option is the list's
// aria-activedescendant; focus comes back to the button; no key leaks out.
import { afterEach, describe, expect, it } from "vitest";
import { h } from "../../src/common/dom.js";
import { createListbox } from "../../src/common/listbox.js";

const made = [];

/**
 * @param {{names?: string[], current?: string, followPointer?: boolean}} [options]
 */
function listbox({ names = ["one", "two", "three"], current = "one", followPointer = false } = {}) {
  const button = h("button", { type: "button", "aria-expanded": "false" }, "pick");
  const list = h("ul", { role: "listbox", tabindex: "-1", hidden: true });
  const root = h("span", {}, button, list);
  const outside = h("button", { type: "button" }, "elsewhere");
  document.body.append(root, outside);
  const state = { names, current, chosen: /** @type {{id: string, open: boolean}[]} */ ([]) };
  const box = createListbox({
    button,
    list,
    root,
    ids: () => state.names,
    current: () => state.current,
    onChoose: (id) => state.chosen.push({ id, open: !list.hidden }),
    followPointer,
  });
  const fill = (/** @type {string[]} */ items) => {
    state.names = items;
    list.replaceChildren(...items.map((n, i) => h("li", { id: `opt-${i}`, role: "option" }, n)));
  };
  fill(names);
  box.refresh();
  let leaked = 0;
  document.body.addEventListener("keydown", () => leaked++);
  const key = (/** @type {HTMLElement} */ target, /** @type {string} */ k) =>
    target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
  const active = () => list.querySelector(".gu-active")?.textContent;
  made.push(() => {
    box.destroy();
    root.remove();
    outside.remove();
  });
  return { box, button, list, outside, state, fill, key, active, leaked: () => leaked };
}

afterEach(() => {
  while (made.length) made.pop()?.();
});

describe("listbox", () => {
  it("opens on the selected option with ArrowDown and moves with arrows, Home and End", () => {
    const { button, list, key, active, leaked } = listbox({ current: "two" });
    button.focus();
    expect(key(button, "ArrowDown")).toBe(false); // default prevented: no page scroll
    expect(list.hidden).toBe(false);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(document.activeElement).toBe(list);
    expect(active()).toBe("two");
    expect(list.getAttribute("aria-activedescendant")).toBe("opt-1");
    key(list, "ArrowDown");
    expect(active()).toBe("three");
    key(list, "ArrowDown"); // stays on the last
    expect(active()).toBe("three");
    key(list, "Home");
    expect(active()).toBe("one");
    key(list, "ArrowUp"); // stays on the first
    expect(active()).toBe("one");
    key(list, "End");
    expect(active()).toBe("three");
    expect(list.getAttribute("aria-activedescendant")).toBe("opt-2");
    expect(list.querySelectorAll(".gu-active").length).toBe(1);
    expect(leaked()).toBe(0);
  });

  it("opens on the first option when none is selected; ArrowUp then opens on the last", () => {
    const { button, list, key, active } = listbox({ current: "not listed" });
    key(button, "ArrowDown");
    expect(active()).toBe("one");
    key(list, "Escape");
    key(button, "ArrowUp");
    expect(active()).toBe("three");
  });

  it("Enter and Space choose once the list is closed, and give focus back", () => {
    const { button, list, state, key } = listbox();
    button.click();
    key(list, "ArrowDown");
    expect(key(list, "Enter")).toBe(false);
    expect(state.chosen).toEqual([{ id: "two", open: false }]);
    expect(list.hidden).toBe(true);
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(list.hasAttribute("aria-activedescendant")).toBe(false);
    expect(document.activeElement).toBe(button);
    button.click();
    key(list, "End");
    key(list, " ");
    expect(state.chosen).toEqual([
      { id: "two", open: false },
      { id: "three", open: false },
    ]);
  });

  it("choosing the option in use closes the list and reports nothing", () => {
    const { button, list, state, key } = listbox({ current: "two" });
    key(button, "ArrowDown");
    key(list, "Enter");
    expect(list.hidden).toBe(true);
    expect(document.activeElement).toBe(button);
    expect(state.chosen).toEqual([]);
  });

  it("Escape closes with focus back, Tab closes and lets focus go, choosing nothing", () => {
    const { button, list, state, key } = listbox();
    button.click();
    expect(key(list, "Escape")).toBe(false);
    expect(list.hidden).toBe(true);
    expect(document.activeElement).toBe(button);
    button.click();
    expect(key(list, "Tab")).toBe(true); // the browser moves focus on
    expect(list.hidden).toBe(true);
    expect(state.chosen).toEqual([]);
  });

  it("a click toggles it; a click on an option chooses it; a pointer down outside closes", () => {
    const { button, list, outside, state } = listbox();
    button.click();
    expect(list.hidden).toBe(false);
    button.click();
    expect(list.hidden).toBe(true);
    button.click();
    /** @type {HTMLElement} */ (list.children[2]).click();
    expect(state.chosen).toEqual([{ id: "three", open: false }]);
    button.click();
    list.children[0].dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(list.hidden).toBe(false); // inside: stays open
    outside.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(list.hidden).toBe(true);
    expect(state.chosen).toEqual([{ id: "three", open: false }]);
  });

  it("follows the pointer only when asked to", () => {
    const hover = (/** @type {HTMLElement} */ list, /** @type {number} */ i) =>
      list.children[i].dispatchEvent(new Event("pointermove", { bubbles: true }));
    const still = listbox();
    still.button.click();
    hover(still.list, 2);
    expect(still.active()).toBe("one");
    const follows = listbox({ followPointer: true });
    follows.button.click();
    hover(follows.list, 2);
    expect(follows.active()).toBe("three");
    expect(follows.list.getAttribute("aria-activedescendant")).toBe("opt-2");
  });

  it("refresh keeps an open list's active option in range, and an empty list closes", () => {
    const { button, list, fill, box, key, active } = listbox();
    key(button, "ArrowDown");
    key(list, "End");
    fill(["a", "b"]);
    box.refresh();
    expect(list.hidden).toBe(false);
    expect(active()).toBe("b");
    expect(list.getAttribute("aria-activedescendant")).toBe("opt-1");
    fill([]);
    box.refresh();
    expect(list.hidden).toBe(true);
    button.click(); // nothing to show: stays closed
    expect(list.hidden).toBe(true);
    expect(button.getAttribute("aria-expanded")).toBe("false");
  });
});
