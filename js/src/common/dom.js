// Tiny DOM helper: h("button.gu-send", {type: "button"}, "Send").

/**
 * The element type `h(tag)` makes: `h("input.gu-x")` is an HTMLInputElement.
 * @template {string} T
 * @typedef {T extends `${infer N}.${string}` ? TagElement<N>
 *   : T extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[T] : HTMLElement} TagElement
 */

/**
 * @template {string} T
 * @param {T} tag tag name with optional `.class` suffixes
 * @param {Record<string, any>} [attrs] attributes; `on*` functions become listeners
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {TagElement<T>}
 */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "text") {
      el.textContent = String(value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return /** @type {TagElement<T>} */ (el);
}

/**
 * Set an element's text only when it changed (keeps the DOM quiet).
 * @param {Node} el
 * @param {string | null | undefined} text
 */
export function setText(el, text) {
  const value = text ?? "";
  if (el.textContent !== value) el.textContent = value;
}

/**
 * Show or hide an element with the `hidden` attribute.
 * @param {HTMLElement} el
 * @param {boolean} visible
 */
export function show(el, visible) {
  if (el.hidden === visible) el.hidden = !visible;
}

/**
 * Set a `data-*` attribute only when it changed (a write is DOM work even when equal).
 * @param {HTMLElement} el
 * @param {string} key
 * @param {unknown} value
 */
export function setData(el, key, value) {
  const text = String(value ?? "");
  if (el.dataset[key] !== text) el.dataset[key] = text;
}

/**
 * A one-line field of a card: Enter does `action` (a reason field rejects,
 * as its button does), and no key reaches the notebook's shortcuts.
 * @param {HTMLInputElement} input
 * @param {() => void} action
 */
export function enterDoes(input, action) {
  input.addEventListener("keydown", (event) => {
    event.stopPropagation();
    if (event.key === "Enter" && !event.isComposing) {
      event.preventDefault();
      action();
    }
  });
}
