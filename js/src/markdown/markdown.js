// Model text -> safe HTML. Everything the model writes is untrusted: marked
// renders GitHub-flavoured markdown (tables, fenced code), highlight.js colours
// code (loaded on first use: highlighter.js), and DOMPurify strips scripts, event handlers and javascript: URLs
// before anything reaches the DOM. Links open in a new tab; images and other
// resources wait behind a "Load image from …" button (see common/resources.js).
// Rendering never throws: a block that fails shows as its escaped source.

import DOMPurify from "dompurify";
import { Marked } from "marked";
import { h } from "../common/dom.js";
import { highlighter, wantHighlighter } from "./highlighter.js";
import { closedBlockSource } from "./close.js";
import { addPlaceholders, gateAttributes } from "../common/resources.js";

export function escapeHtml(text) {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Marks a code block waiting for the highlighter; its value is the language
 * (set after sanitizing: model HTML cannot carry `data-gu-` attributes). */
const PLAIN_ATTR = "data-gu-highlight";

// Set while rendering a block that may still grow: its code is shown plain,
// and highlighted once the block is complete.
let plainCode = false;
// Set while rendering what the user typed: HTML in it is shown as the text
// they wrote, never parsed (a pasted <img> is not a picture to load).
let htmlAsText = false;

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang || "").trim().split(/\s+/)[0].toLowerCase();
      const loaded = highlighter();
      if (language && !loaded) wantHighlighter(); // on its way while the block still streams
      const hl = language && !plainCode ? loaded : null;
      const coloured = hl ? hl.highlight(text, language) : null;
      const cls = language ? ` class="hljs language-${escapeHtml(language)}"` : ' class="hljs"';
      return `<pre class="gu-code"><code${cls}>${coloured ?? escapeHtml(text)}</code></pre>\n`;
    },
    html({ text }) {
      return htmlAsText ? escapeHtml(text) : text;
    },
  },
});

const PURIFY_CONFIG = {
  ADD_ATTR: ["target"],
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object"],
  FORBID_ATTR: ["style"],
  RETURN_DOM_FRAGMENT: true,
};

/** @type {import("../common/resources.js").Resources | null} the chat's allowed URLs, during a sanitize */
let activeResources = null;
/** Set by the hook when an element's source was held back (then placeholders are due). */
let sawHeld = false;

let purifier = null;

/**
 * The DOMPurify instance, with the config set once (`setConfig`): passing it
 * to every `sanitize` call would parse it again each time, a cost paid on
 * every streamed frame.
 */
function getPurifier() {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  purifier.setConfig(PURIFY_CONFIG);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    gateAttributes(node, activeResources);
    if (node.hasAttribute?.("data-gu-held")) sawHeld = true;
  });
  return purifier;
}

/**
 * Sanitized DOM nodes for untrusted HTML, held resources behind placeholders.
 * Throws when the parser gives up (a `<frameset>` leaves no body to read).
 * @returns {DocumentFragment}
 */
function sanitizeToFragment(html, resources) {
  activeResources = resources ?? null;
  sawHeld = false;
  try {
    const fragment = getPurifier().sanitize(html);
    if (sawHeld) addPlaceholders(fragment);
    return fragment;
  } finally {
    activeResources = null;
  }
}

function serialize(fragment) {
  const box = h("div");
  box.append(fragment);
  return box.innerHTML;
}

/** Source shown as text: what a block that cannot be rendered becomes. */
function rawBlock(text) {
  return h("p.gu-raw", { text: String(text).replace(/\n+$/, "") });
}

/**
 * Sanitize untrusted HTML.
 * @param {string} html
 * @param {{resources?: import("../common/resources.js").Resources}} [opts] the chat's
 *   allowed URLs: those load directly, the rest wait behind a button
 * @returns {string}
 */
export function sanitize(html, { resources } = {}) {
  try {
    return serialize(sanitizeToFragment(html, resources));
  } catch {
    return rawBlock(html).outerHTML;
  }
}

/**
 * Colour the code blocks under `root` that were shown before the highlighter
 * loaded (markdown views keep a block's DOM while its source is unchanged).
 * @param {ParentNode} root
 */
export function highlightCodeIn(root) {
  const hl = highlighter();
  if (!hl) return;
  for (const code of root.querySelectorAll(`pre.gu-code > code[${PLAIN_ATTR}]`)) {
    const language = code.getAttribute(PLAIN_ATTR) ?? "";
    code.removeAttribute(PLAIN_ATTR);
    let coloured = null;
    try {
      coloured = hl.highlight(code.textContent ?? "", language);
    } catch {
      // a block the highlighter chokes on stays plain
    }
    if (coloured !== null) code.innerHTML = sanitize(coloured);
  }
}

/**
 * Render untrusted markdown to sanitized HTML.
 * @param {string} text
 * @param {{resources?: import("../common/resources.js").Resources}} [opts]
 * @returns {string}
 */
export function renderMarkdown(text, { resources } = {}) {
  if (!text) return "";
  try {
    const html = marked.parse(text, { async: false });
    return serialize(withCopyButtons(markUncoloured(sanitizeToFragment(html, resources), false)));
  } catch {
    // Block by block, so only the block that fails shows as text.
    const box = h("div");
    for (const token of lexBlocks(text) ?? [{ type: "paragraph", raw: text }]) {
      box.append(...renderBlock(token, false, resources));
    }
    return box.innerHTML;
  }
}

/**
 * Each code block of sanitized markdown gets a "Copy code" button: the block
 * goes into a `div.gu-code-block` with the button before the `pre`, so the
 * code's text stays exactly the code. Added after sanitizing (the button is
 * ours, not the model's); clicks are read by `listenForCodeCopies`.
 * @param {DocumentFragment} fragment
 * @param {boolean} [pending] the code still streams: the button is held back
 *   (unseen, unreachable, `data-pending`) and only keeps its room
 */
function withCopyButtons(fragment, pending = false) {
  const held = pending ? { "data-pending": "", "aria-hidden": "true", tabindex: "-1", disabled: true } : {};
  for (const pre of fragment.querySelectorAll("pre.gu-code")) {
    if (pre.parentElement?.classList.contains("gu-code-block")) continue;
    const block = h("div.gu-code-block");
    pre.replaceWith(block);
    block.append(
      h("button.gu-copy-code", { type: "button", "aria-label": "Copy code", ...held }, "Copy"),
      pre,
    );
  }
  return fragment;
}

/**
 * Complete code blocks shown plain only because the highlighter has not
 * loaded yet get a mark, so `highlightCodeIn` colours them when it comes.
 * @param {DocumentFragment} fragment @param {boolean} plain the last block still streams
 */
function markUncoloured(fragment, plain) {
  if (plain || highlighter()) return fragment;
  for (const code of fragment.querySelectorAll('pre.gu-code > code[class*="language-"]')) {
    const language = /(?:^|\s)language-(\S+)/.exec(code.className)?.[1];
    if (language) code.setAttribute(PLAIN_ATTR, language);
  }
  return fragment;
}

/**
 * Whether `token` is a fenced code block whose closing fence has not come:
 * its last line is not a run of the opening fence's character at least as long.
 */
function isOpenFence(token) {
  if (token.type !== "code" || token.codeBlockStyle === "indented") return false;
  const raw = String(token.raw ?? "").replace(/\n+$/, "");
  const opening = /^ {0,3}(`{3,}|~{3,})/.exec(raw)?.[1];
  if (!opening) return false;
  const lines = raw.split("\n");
  if (lines.length < 2) return true;
  const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[lines.length - 1])?.[1];
  return !(closing && closing[0] === opening[0] && closing.length >= opening.length);
}

/** A top-level block's identity: same type and source give the same DOM. */
function blockKey(token, plain) {
  return `${token.type}${plain && token.type === "code" ? ":plain" : ""}\u0000${token.raw}`;
}

/** Top-level markdown tokens of `text`, or null when marked gives up. */
function lexBlocks(text) {
  try {
    return marked.lexer(text);
  } catch {
    return null;
  }
}

// Blocks that a blank line ends for good: nothing after it can change them.
// (A list, indented code or raw HTML may continue past a blank line.)
const CLOSED_BY_BLANK = new Set(["paragraph", "heading", "table", "blockquote", "hr"]);

function closedByBlank(token) {
  if (token.type === "code") return token.codeBlockStyle !== "indented";
  return CLOSED_BY_BLANK.has(token.type);
}

/**
 * Where re-lexing may start after `text` grew: the index of the last token
 * that follows a blank line after a block that line closed, so all tokens
 * before it are final. 0 when there is none.
 */
function restartIndex(tokens) {
  for (let j = tokens.length - 1; j >= 2; j--) {
    if (tokens[j - 1].type === "space" && closedByBlank(tokens[j - 2])) return j;
  }
  return 0;
}

/**
 * Lexes text that grows by appends: keeps the tokens before the last safe
 * restart point and lexes only the rest, so a frame costs time in the size
 * of the last blocks, not of the whole reply. Falls back to a full lex when
 * the text did not just grow or link definitions are involved (they resolve
 * references anywhere in the text).
 */
/** @typedef {any[] & {links?: Record<string, unknown>}} BlockTokens marked's tokens */

/** @returns {(next: string) => BlockTokens | null} */
function createBlockLexer() {
  let text = "";
  /** @type {BlockTokens | null} */
  let tokens = [];
  let starts = [0];
  // False when the last full lex's raws did not tile the text (then every
  // frame is lexed whole).
  let tiled = true;

  function full(next) {
    tokens = lexBlocks(next);
    starts = [0];
    for (const token of tokens ?? []) starts.push(starts[starts.length - 1] + token.raw.length);
    tiled = tokens !== null && starts[starts.length - 1] === next.length && !hasLinks(tokens);
    text = next;
    return tokens;
  }

  return function lex(next) {
    const current = tokens;
    if (!tiled || current === null || !next.startsWith(text)) return full(next);
    const j = restartIndex(current);
    if (j === 0) return full(next);
    const rest = lexBlocks(next.slice(starts[j]));
    if (rest === null || hasLinks(rest)) return full(next);
    /** @type {BlockTokens} */
    const merged = current.slice(0, j);
    const offsets = starts.slice(0, j + 1);
    for (const token of rest) {
      merged.push(token);
      offsets.push(offsets[offsets.length - 1] + token.raw.length);
    }
    // Tokens must tile the text; if marked ever re-wrote a raw, lex it all.
    if (offsets[offsets.length - 1] !== next.length) return full(next);
    merged.links = {};
    tokens = merged;
    starts = offsets;
    text = next;
    return tokens;
  };
}

function hasLinks(tokens) {
  for (const _ in tokens.links ?? {}) return true;
  return false;
}

/**
 * One top-level token rendered and sanitized, as DOM nodes. The parser
 * renders a token list by concatenating each token's HTML, so rendering
 * block by block gives the same markup as one `renderMarkdown` call.
 */
function renderBlock(token, plain, resources, asText = false) {
  // A fence the stream has opened but not closed: its code as it comes, its
  // Copy held back (half the code) but its room kept, so the block does not
  // grow when the fence closes; before its first line, nothing (an empty bar).
  const openFence = plain && isOpenFence(token);
  if (openFence && !token.text) return [];
  let html;
  plainCode = plain;
  htmlAsText = asText;
  try {
    html = marked.parser([token]);
  } catch {
    return [rawBlock(token.raw)];
  } finally {
    plainCode = false;
    htmlAsText = false;
  }
  if (!html) return []; // blank lines, link definitions
  // Straight to DOM nodes: sanitized exactly like `sanitize`, without a
  // serialize + re-parse round trip.
  try {
    const fragment = markUncoloured(sanitizeToFragment(html, resources), plain);
    return [...withCopyButtons(fragment, openFence).childNodes];
  } catch {
    return [rawBlock(token.raw)];
  }
}

/**
 * Turn the DOM nodes `olds` (consecutive children of `parent`, just before
 * `before`) into `freshes`, freshly sanitized nodes: an old node is kept
 * when it has the same name and attributes (its text and children then
 * patched the same way), else the fresh node takes its place. The result is
 * the fresh DOM, but a paragraph that grew keeps its nodes, so the browser
 * re-lays out text instead of building the block again.
 * @returns {ChildNode[]} the nodes now in place
 */
function patchNodes(parent, olds, freshes, before) {
  const out = [];
  for (let k = 0; k < freshes.length; k++) {
    const old = olds[k];
    const node = old ? patchNode(old, freshes[k]) : freshes[k];
    if (!old) parent.insertBefore(node, before);
    else if (node !== old) parent.replaceChild(node, old);
    out.push(node);
  }
  for (let k = freshes.length; k < olds.length; k++) olds[k].remove();
  return out;
}

function patchNode(old, fresh) {
  if (old.nodeType !== fresh.nodeType || old.nodeName !== fresh.nodeName) return fresh;
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return old;
  }
  if (!sameAttributes(old, fresh)) return fresh;
  patchNodes(old, [...old.childNodes], [...fresh.childNodes], null);
  return old;
}

function sameAttributes(a, b) {
  if (a.attributes.length !== b.attributes.length) return false;
  for (const attr of b.attributes) {
    if (a.getAttributeNS(attr.namespaceURI, attr.localName) !== attr.value) return false;
  }
  return true;
}

/**
 * `tokens` with the last block's open inline markers closed (a copy: the
 * lexer keeps its own tokens for the next frame).
 * @param {BlockTokens} tokens
 * @returns {BlockTokens}
 */
function withLastBlockClosed(tokens) {
  const last = tokens[tokens.length - 1];
  const source = last ? closedBlockSource(last) : null;
  const relexed = source === null ? null : lexBlocks(source);
  if (!relexed?.length) return tokens;
  /** @type {BlockTokens} */
  const out = [...tokens.slice(0, -1), ...relexed];
  out.links = tokens.links;
  return out;
}

/**
 * Renders markdown that grows while it streams into `el`, incrementally:
 * the text is split into top-level blocks and only blocks whose source
 * changed are rendered again (while streaming that is the last one); the
 * DOM nodes of the others stay as they are. The result equals
 * `el.innerHTML = renderMarkdown(text)`.
 * @param {HTMLElement} el container this view owns
 * @param {{resources?: import("../common/resources.js").Resources, htmlAsText?: boolean}} [opts] the
 *   chat's allowed URLs (see `sanitize`); `htmlAsText`: HTML in the text is shown as written
 *   (what the user typed), not parsed
 */
export function createMarkdownView(el, { resources, htmlAsText: asText = false } = {}) {
  /** @type {Array<{key: string, nodes: Node[]}>} */
  /** @type {{key: string, nodes: ChildNode[]}[]} */
  let blocks = [];
  let links = "{}";
  let lastText = null;
  let lastStreaming = false;
  let lastOpen = false;
  const lex = createBlockLexer();

  function rebuild(text) {
    // Marked gave up: the text as a plain paragraph, as renderMarkdown does.
    const p = h("p", { text });
    el.replaceChildren(p);
    blocks = [{ key: "\u0000fallback", nodes: [p] }];
  }

  return {
    el,
    /**
     * @param {string} text the whole markdown so far
     * @param {{streaming?: boolean, cut?: boolean}} [opts] while streaming, the last block
     *   may still grow: its code is highlighted only once it is complete;
     *   while streaming or `cut` (the text ended early: Stop), the last
     *   block's open emphasis and code spans render closed
     */
    update(text, { streaming = false, cut = false } = {}) {
      try {
        render(text, streaming, streaming || cut);
      } catch {
        // Never throw into the thread: show the text as it is.
        lastText = null;
        rebuild(text ?? "");
      }
    },
  };

  function render(text, streaming, open) {
    // Marked reads \r\n and \r as \n; doing it first keeps offsets true.
    let source = text ?? "";
    if (source.includes("\r")) source = source.replace(/\r\n?/g, "\n");
    if (source === lastText && streaming === lastStreaming && open === lastOpen) return;
    lastText = source;
    lastStreaming = streaming;
    lastOpen = open;
    const lexed = lex(source);
    if (lexed === null) {
      rebuild(source);
      return;
    }
    const tokens = open ? withLastBlockClosed(lexed) : lexed;
    // Link definitions anywhere resolve references in every block.
    const nextLinks = JSON.stringify(tokens.links ?? {});
    if (nextLinks !== links) {
      links = nextLinks;
      for (const block of blocks) block.key = "";
    }
    const next = [];
    // The node the next block's DOM goes before: blocks fill `el` in order.
    let cursor = el.firstChild;
    for (let i = 0; i < tokens.length; i++) {
      const plain = streaming && i === tokens.length - 1;
      const key = blockKey(tokens[i], plain);
      const old = blocks[i];
      if (old && old.key === key) {
        if (old.nodes.length) cursor = old.nodes[old.nodes.length - 1].nextSibling;
        next.push(old);
        continue;
      }
      if (old?.nodes.length) cursor = old.nodes[old.nodes.length - 1].nextSibling;
      const nodes = patchNodes(el, old?.nodes ?? [], renderBlock(tokens[i], plain, resources, asText), cursor);
      next.push({ key, nodes });
    }
    for (const block of blocks.slice(tokens.length)) {
      for (const node of block.nodes) node.remove();
    }
    blocks = next;
  }
}
