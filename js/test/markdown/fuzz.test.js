// The markdown renderer never throws, whatever the model writes: a block
// that cannot be rendered shows as escaped text and the blocks after it
// still show. Random HTML/markdown from a seeded PRNG (a failure names its
// seed), fed whole and streamed in pieces.

import { describe, expect, it } from "vitest";
import { createMarkdownView, renderMarkdown } from "../../src/markdown/markdown.js";

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// Tags whose parsing rules are odd (document-level, foreign content,
// table-only, raw text), plus ordinary ones.
const TAGS = [
  "frameset", "frame", "noframes", "html", "body", "head", "template", "svg", "math", "mtext",
  "mglyph", "foreignObject", "table", "tr", "td", "th", "tbody", "caption", "col", "select",
  "option", "textarea", "title", "style", "script", "noscript", "xmp", "plaintext", "iframe",
  "object", "img", "picture", "source", "video", "a", "p", "div", "span", "li", "ul", "pre",
  "code", "details", "summary", "form", "button", "base", "link", "meta", "image", "desc",
];
const ATTRS = [
  'src="http://127.0.0.1:9/x.png"', "srcset=\"a.png 1x, /b.png 2x\"", 'href="/logout"',
  "onerror=alert(1)", 'style="background:url(/x)"', "hidden", 'class="x"', 'xmlns="http://www.w3.org/1999/xhtml"',
  'poster="/p.png"', "background=/bg.png", 'fill="url(/f.svg#a)"', "id=a",
];
const MARKDOWN = [
  "# Heading\n", "- item\n", "1. first\n", "> quote\n", "```\ncode\n", "```\n", "    indented\n",
  "| a | b |\n|---|---|\n", "| 1 | 2 |\n", "**bold", "*em*", "`tick", "[link](http://x.org)",
  "![img](http://127.0.0.1:9/m.png)", "[ref]: http://x.org\n", "---\n", "\n\n", "\n", "text ", "&amp; &#0; ",
  "<!-- comment", "-->", "<![CDATA[ x ]]>", "<?php x ?>", "<!DOCTYPE html>", "\u0000", "\r\n",
];

function snippet(rand) {
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const parts = [];
  const n = 1 + Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.4) {
      const attrs = rand() < 0.5 ? ` ${pick(ATTRS)}` : "";
      parts.push(`<${pick(TAGS)}${attrs}${rand() < 0.1 ? "/" : ""}>`);
    } else if (r < 0.55) parts.push(`</${pick(TAGS)}>`);
    else if (r < 0.9) parts.push(pick(MARKDOWN));
    else parts.push(rand() < 0.5 ? "<" : ">");
  }
  return parts.join("");
}

function pieces(text, rand) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(rand() * 15);
    out.push(text.slice(0, i + n));
    i += n;
  }
  return out;
}

const AFTER = "AFTER-THE-BLOCK";

describe("the markdown renderer never throws", () => {
  it("shows the text after a <frameset> block (escaped block, rest intact)", () => {
    const text = `Intro line.\n\n<frameset><frame src="http://127.0.0.1:9/f"></frameset>\n\n${AFTER} stays visible.`;
    const el = document.createElement("div");
    const view = createMarkdownView(el);
    expect(() => view.update(text)).not.toThrow();
    expect(el.textContent).toContain("Intro line.");
    expect(el.textContent).toContain(AFTER);
    expect(el.querySelector("frameset, frame")).toBeNull();
    expect(() => renderMarkdown(text)).not.toThrow();
    expect(renderMarkdown(text)).toContain(AFTER);
  });

  it("streams a <frameset> block without throwing", () => {
    const text = `<frameset>\n\n${AFTER}`;
    const el = document.createElement("div");
    const view = createMarkdownView(el);
    for (let i = 1; i <= text.length; i++) {
      expect(() => view.update(text.slice(0, i), { streaming: i < text.length })).not.toThrow();
    }
    expect(el.textContent).toContain(AFTER);
  });

  for (let seed = 1; seed <= 300; seed++) {
    it(`random snippet, seed ${seed}`, () => {
      const rand = rng(seed);
      const text = `${snippet(rand)}\n\n${AFTER}\n`;
      expect(() => renderMarkdown(text), `seed ${seed}: ${JSON.stringify(text)}`).not.toThrow();
      const whole = document.createElement("div");
      expect(() => createMarkdownView(whole).update(text), JSON.stringify(text)).not.toThrow();
      const streamed = document.createElement("div");
      const view = createMarkdownView(streamed);
      for (const prefix of pieces(text, rand)) {
        expect(() => view.update(prefix, { streaming: true }), JSON.stringify(prefix)).not.toThrow();
      }
      expect(() => view.update(text), JSON.stringify(text)).not.toThrow();
      // The view renders block by block: the text after the snippet shows
      // unless markdown itself makes it part of the snippet's block (an open
      // fence, or an HTML block that runs to its closing tag).
      for (const el of [whole, streamed]) {
        if (!el.textContent.includes(AFTER)) {
          expect(swallows(text), `seed ${seed}: lost the text after ${JSON.stringify(text)}`).toBe(true);
        }
      }
      expect(whole.querySelector("script, iframe, frameset, frame, object")).toBeNull();
    });
  }
});

/** Whether markdown keeps the tail inside the snippet's block (CommonMark HTML block kinds 1-5, or a fence). */
function swallows(text) {
  return /```|<!--|<\?|<![A-Za-z[]|<(script|pre|style|textarea)\b/i.test(text);
}
