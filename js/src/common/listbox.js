// A button that opens a listbox: the WAI-ARIA select-only pattern shared by
// the model picker and the thread picker. Enter, Space, ArrowDown or ArrowUp
// on the button open the list on the selected option (ArrowUp on the last
// when none is); arrows, Home and End move the active option (kept in
// `aria-activedescendant`, the list holding focus); Enter or Space chooses;
// Escape closes and gives focus back; Tab and a pointer down outside close.
// No key reaches JupyterLab's notebook shortcuts from the button or the list.
// The caller owns the options (`[role=option]` children of `list`, each with
// an element id) and names what each stands for; choosing the one in use
// reports nothing.

import { show } from "./dom.js";

/**
 * @param {{
 *   button: HTMLElement,
 *   list: HTMLElement,
 *   root: HTMLElement,
 *   ids: () => string[],
 *   current: () => string,
 *   onChoose: (id: string) => void,
 *   followPointer?: boolean,
 * }} parts `root` holds both (a pointer down outside it closes); `ids` are
 *   what the options stand for, in their order; `current` is the one in use
 *   (the selected option, when listed); `onChoose` gets another one chosen,
 *   once the list is closed; `followPointer` makes the option under the
 *   pointer the active one.
 */
export function createListbox({ button, list, root, ids, current, onChoose, followPointer = false }) {
  let active = -1;

  const selected = () => ids().indexOf(current());

  const options = () => /** @type {HTMLElement[]} */ ([...list.children]);
  const isOpen = () => !list.hidden;

  /** @param {number} index */
  function setActive(index) {
    const items = options();
    if (!items.length) return;
    active = Math.max(0, Math.min(items.length - 1, index));
    items.forEach((item, i) => item.classList.toggle("gu-active", i === active));
    list.setAttribute("aria-activedescendant", items[active].id);
    items[active].scrollIntoView?.({ block: "nearest" });
  }

  /** @param {"selected" | "last"} at */
  function open(at) {
    const count = options().length;
    if (!count) return;
    show(list, true);
    button.setAttribute("aria-expanded", "true");
    setActive(at === "last" ? count - 1 : Math.max(0, selected()));
    list.focus();
    document.addEventListener("pointerdown", onOutside, true);
  }

  /** @param {boolean} focusButton */
  function close(focusButton) {
    if (!isOpen()) return;
    show(list, false);
    button.setAttribute("aria-expanded", "false");
    list.removeAttribute("aria-activedescendant");
    document.removeEventListener("pointerdown", onOutside, true);
    if (focusButton) button.focus();
  }

  /** @param {number} index */
  function choose(index) {
    const id = ids()[index];
    close(true);
    if (id !== undefined && id !== current()) onChoose(id);
  }

  /** @param {Event} event */
  function onOutside(event) {
    if (!root.contains(/** @type {Node} */ (event.target))) close(false);
  }

  /** @param {Event} event the index of the option the event happened on, or -1 */
  function optionAt(event) {
    const item = /** @type {HTMLElement | null} */ (event.target)?.closest?.("[role=option]");
    return item ? options().indexOf(/** @type {HTMLElement} */ (item)) : -1;
  }

  button.addEventListener("click", () => (isOpen() ? close(true) : open("selected")));
  button.addEventListener("keydown", (event) => {
    event.stopPropagation(); // notebook shortcuts stay out of the listbox
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      open(event.key === "ArrowUp" && selected() < 0 ? "last" : "selected");
    }
    // Enter and Space reach the button as a click
  });
  list.addEventListener("keydown", (event) => {
    event.stopPropagation();
    /** @type {Record<string, number>} */
    const moves = { ArrowDown: active + 1, ArrowUp: active - 1, Home: 0, End: options().length - 1 };
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
    const index = optionAt(event);
    if (index >= 0) choose(index);
  });
  if (followPointer) {
    list.addEventListener("pointermove", (event) => {
      const index = optionAt(event);
      if (index >= 0 && index !== active) setActive(index);
    });
  }

  return {
    /** After the caller replaced the options: an empty list closes, an open
     * one keeps its active option (or the last, when the list got shorter). */
    refresh() {
      const count = options().length;
      if (!count) close(false);
      else if (isOpen()) setActive(Math.min(active, count - 1));
    },
    destroy() {
      document.removeEventListener("pointerdown", onOutside, true);
    },
  };
}
