// Invisible and bidirectional characters in what a user approves ("Trojan
// Source", CVE-2021-42574 / -42694): a right-to-left override, an isolate or
// a zero-width space makes the text read one way and run another. The
// approval card shows each one as a visible chip and says how many there are.
//
// The set, in one place:
// - Unicode's Default_Ignorable_Code_Point: what a renderer shows as nothing
//   (soft hyphen, zero-width space / joiners, LRM / RLM / ALM, the bidi
//   embeddings, overrides and isolates, word joiner and the invisible math
//   operators, BOM, Hangul and Khmer fillers, variation selectors, tags);
// - Bidi_Control, named for clarity (it lies inside the first);
// - the control characters but tab, line feed and carriage return;
// - the line and paragraph separators (a line break to the eye, none to
//   Python's tokenizer) and the interlinear annotation marks.
// Emoji keep their own joiners: a presentation selector (U+FE0E / U+FE0F)
// right after an emoji, or a zero-width joiner between two pictographs, is
// how 👨‍👩‍👧 or ❤️ are written, and carries nothing hidden.

import { h } from "../common/dom.js";
import { highlighter, onHighlighterReady } from "../markdown/highlighter.js";

const FLAGGED = /(?![\t\n\r])[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Cc}\u2028\u2029\uFFF9-\uFFFB]/u;
const FLAGGED_ALL = new RegExp(FLAGGED.source, "gu");
const EMOJI = /\p{Emoji}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const EMOJI_MODIFIER = /\p{Emoji_Modifier}/u;
const ZWJ = "\u200D";

// Longest run of neighbouring characters one chip spells out in full.
const CHIP_CODE_POINTS = 3;
// Distinct code points the warning names; more are counted, not listed.
const LISTED = 8;

const NAMES = {
  0x00ad: "SOFT HYPHEN",
  0x034f: "COMBINING GRAPHEME JOINER",
  0x061c: "ARABIC LETTER MARK",
  0x115f: "HANGUL CHOSEONG FILLER",
  0x1160: "HANGUL JUNGSEONG FILLER",
  0x17b4: "KHMER VOWEL INHERENT AQ",
  0x17b5: "KHMER VOWEL INHERENT AA",
  0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x2028: "LINE SEPARATOR",
  0x2029: "PARAGRAPH SEPARATOR",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2061: "FUNCTION APPLICATION",
  0x2062: "INVISIBLE TIMES",
  0x2063: "INVISIBLE SEPARATOR",
  0x2064: "INVISIBLE PLUS",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0x3164: "HANGUL FILLER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
  0xffa0: "HALFWIDTH HANGUL FILLER",
  0xe0001: "LANGUAGE TAG",
  0xe007f: "CANCEL TAG",
};

/** `U+202E`: how a code point is written on the card. */
export function codePointLabel(cp) {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The character's Unicode name, or what it is when it has no short one here. */
export function codePointName(cp) {
  if (cp in NAMES) return NAMES[cp];
  if (cp >= 0xfe00 && cp <= 0xfe0f) return `VARIATION SELECTOR-${cp - 0xfe00 + 1}`;
  if (cp >= 0xe0100 && cp <= 0xe01ef) return `VARIATION SELECTOR-${cp - 0xe0100 + 17}`;
  // Tags spell ASCII out of sight (a known way to smuggle a prompt): say which.
  if (cp >= 0xe0020 && cp <= 0xe007e) return `TAG ${JSON.stringify(String.fromCodePoint(cp - 0xe0000))}`;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return "CONTROL CHARACTER";
  return "INVISIBLE FORMAT CHARACTER";
}

/** The code point that ends just before UTF-16 index `i`, or -1. */
function codePointBefore(text, i) {
  if (i <= 0) return -1;
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const cp = text.codePointAt(i - 2) ?? -1;
    if (cp > 0xffff) return cp;
  }
  return low;
}

/** Whether the flagged character at `i` is part of an emoji (see the top). */
function partOfEmoji(text, i, ch) {
  const before = codePointBefore(text, i);
  if (before < 0) return false;
  const prev = String.fromCodePoint(before);
  if (ch === "\uFE0F" || ch === "\uFE0E") return EMOJI.test(prev) && !FLAGGED.test(prev);
  if (ch !== ZWJ) return false;
  const after = text.codePointAt(i + 1);
  if (after === undefined || !PICTOGRAPH.test(String.fromCodePoint(after))) return false;
  if (PICTOGRAPH.test(prev) || EMOJI_MODIFIER.test(prev)) return true;
  // 🏳️‍🌈: the joiner follows the flag's presentation selector
  const beforeThat = prev === "\uFE0F" ? codePointBefore(text, i - 1) : -1;
  return beforeThat >= 0 && PICTOGRAPH.test(String.fromCodePoint(beforeThat));
}

/**
 * Every invisible or bidirectional character of `text`, in order.
 * @param {string} text
 * @returns {{index: number, length: number, codePoint: number}[]} index and
 *   length in UTF-16 units (a tag character is two)
 */
export function findInvisible(text) {
  const found = [];
  if (typeof text !== "string" || !FLAGGED.test(text)) return found;
  for (const m of text.matchAll(FLAGGED_ALL)) {
    const index = m.index ?? 0;
    if (partOfEmoji(text, index, m[0])) continue;
    found.push({ index, length: m[0].length, codePoint: m[0].codePointAt(0) ?? 0 });
  }
  return found;
}

/**
 * JSON text with each invisible character written as its `\uXXXX` escape:
 * what the arguments editor holds, so they show and `JSON.parse` gives them
 * back exactly. Such characters sit only inside JSON strings (`JSON.stringify`
 * writes nothing else but ASCII), where the escape means the same.
 * @param {string} json
 */
export function escapeInvisibleInJson(json) {
  let out = "";
  let at = 0;
  for (const { index, length } of findInvisible(json)) {
    out += json.slice(at, index);
    for (let k = index; k < index + length; k++) out += `\\u${json.charCodeAt(k).toString(16).padStart(4, "0")}`;
    at = index + length;
  }
  return out + json.slice(at);
}

/** A chip standing for `codePoints`: its label is CSS (`data-code-point`), its text `raw`. */
function chip(codePoints, raw) {
  const labels = codePoints.map(codePointLabel);
  const shown =
    labels.length > CHIP_CODE_POINTS + 1
      ? `${labels.slice(0, CHIP_CODE_POINTS).join(" ")} …${labels.length - CHIP_CODE_POINTS} more`
      : labels.join(" ");
  const names = [...new Set(codePoints)].map((cp) => `${codePointLabel(cp)} ${codePointName(cp)}`);
  return h(
    "span.gu-invisible",
    { "data-code-point": shown, title: names.join("\n") },
    // The character itself stays (hidden), so the text reads and copies as
    // it runs; the chip isolates it, so a bidi control cannot reach past it.
    raw ? h("span.gu-invisible-raw", { text: raw }) : null,
  );
}

/** Text nodes under `root` outside chips and buttons, holding a flagged character. */
function textNodesToMark(root) {
  const doc = root.ownerDocument ?? document;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const parent = node.parentElement;
      if (parent?.closest(".gu-invisible, button, textarea")) return NodeFilter.FILTER_REJECT;
      return FLAGGED.test(node.nodeValue ?? "") ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    },
  });
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  return nodes;
}

/**
 * Mark every invisible character in the text under `root` with a chip
 * (neighbours share one). Runs on the DOM after sanitizing and highlighting,
 * so no markup is built from text; marking twice changes nothing.
 * @param {ParentNode} root
 * @returns {number} how many characters are marked under `root` now
 */
export function markInvisibleIn(root) {
  for (const node of textNodesToMark(root)) {
    const text = node.nodeValue ?? "";
    const found = findInvisible(text);
    if (!found.length) continue;
    const pieces = [];
    let at = 0;
    for (let k = 0; k < found.length; ) {
      // a run of neighbours becomes one chip
      let end = k;
      while (end + 1 < found.length && found[end + 1].index === found[end].index + found[end].length) end++;
      const start = found[k].index;
      const stop = found[end].index + found[end].length;
      if (start > at) pieces.push(text.slice(at, start));
      pieces.push(chip(found.slice(k, end + 1).map((f) => f.codePoint), text.slice(start, stop)));
      at = stop;
      k = end + 1;
    }
    if (at < text.length) pieces.push(text.slice(at));
    node.replaceWith(...pieces);
  }
  let count = 0;
  for (const raw of root.querySelectorAll(".gu-invisible-raw")) count += findInvisible(raw.textContent ?? "").length;
  return count;
}

/** @type {WeakMap<Element, () => string>} the render each marked block shows now */
const currentRender = new WeakMap();
/** Blocks waiting for the highlighter: one listener each, however often they re-render. */
const waiting = new WeakSet();

/**
 * Fill `el` with `render()` (sanitized HTML) and mark its invisible
 * characters. When the highlighter has not loaded yet, the block is rendered
 * and marked again once it has: the late colouring of code (markdown/markdown.js)
 * rebuilds a block from its text and would drop the chips.
 * @param {HTMLElement} el
 * @param {() => string} render
 * @returns {number} how many characters are marked
 */
export function fillMarked(el, render) {
  currentRender.set(el, render);
  el.innerHTML = render();
  const count = markInvisibleIn(el);
  if (count && !highlighter() && !waiting.has(el)) {
    waiting.add(el);
    const stop = onHighlighterReady(() => {
      stop();
      waiting.delete(el);
      const latest = currentRender.get(el);
      if (latest) fillMarked(el, latest);
    });
  }
  return count;
}

/**
 * One line per distinct code point, most frequent first.
 * @param {{codePoint: number}[]} found
 */
function tally(found) {
  const counts = new Map();
  for (const { codePoint } of found) counts.set(codePoint, (counts.get(codePoint) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/**
 * The card's warning about `found` (null when there is none): how many, as
 * what they show, and the list of code points, so the editors, which cannot
 * hold chips, have it beside them.
 * @param {{codePoint: number}[]} found
 * @param {string[]} [notes] where they are and how the editors hold them
 * @param {string} [subject] what holds them, as the warning names it
 * @returns {HTMLElement | null}
 */
export function invisibleWarning(found, notes = [], subject = "This call") {
  if (!found.length) return null;
  const n = found.length;
  const kinds = tally(found);
  const items = kinds.slice(0, LISTED).map(([cp, count]) =>
    h("li", {}, chip([cp], ""), ` ${codePointName(cp)}${count > 1 ? ` ×${count}` : ""}`),
  );
  if (kinds.length > LISTED) items.push(h("li", { text: `and ${kinds.length - LISTED} other kinds` }));
  return h(
    "div.gu-invisible-warning",
    { role: "note" },
    h(
      "div.gu-invisible-warning-title",
      {},
      `${subject} contains ${n} invisible or bidirectional character${n === 1 ? "" : "s"}, shown as `,
      chip([kinds[0][0]], ""),
      ": what you read may not be what runs.",
    ),
    h("ul.gu-invisible-list", {}, ...items),
    ...notes.map((text) => h("div.gu-invisible-note", { text })),
  );
}

/**
 * The lines (1-based) of `text` that hold the characters `found` (in order).
 * @param {string} text @param {{index: number}[]} found
 */
export function linesOf(text, found) {
  const lines = [];
  let line = 1;
  let at = 0;
  for (const { index } of found) {
    line += text.slice(at, index).match(/\r\n?|\n/g)?.length ?? 0;
    at = index;
    if (lines[lines.length - 1] !== line) lines.push(line);
  }
  return lines;
}
