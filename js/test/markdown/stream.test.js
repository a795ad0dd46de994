import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMarkdownView, renderMarkdown } from "../../src/markdown/markdown.js";
import { XSS } from "../helpers/xss-corpus.js";
import { loadHighlighter } from "../helpers/load-highlighter.js";

// Code colouring is loaded on demand (src/markdown/highlighter.js); these tests see it loaded.
beforeAll(loadHighlighter);

// Documents with every kind of top-level block, and the places where
// streaming is tricky: blocks that continue past a blank line (lists,
// indented code), setext headings, tables growing row by row, fences.
const DOCS = [
  "Hello **world**, this is `code` and a [link](https://example.org).\n\nSecond paragraph.",
  "# Title\n\nIntro line\nstill intro.\n\n## Part\n\n- one\n- two\n  - nested\n\nAfter the list.",
  "Setext heading\n==============\n\nAnd another\n---\n\ntext",
  "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nTable above.\n\n| c |\n|---|\n| 5 |",
  "Code:\n\n```python\ndef f(x):\n    return x * 2\n```\n\nThen:\n\n```js\nconst a = 1;\n```\n\nDone.",
  "para\n\n    indented code\n\n    still code\n\nafter code",
  "1. first\n\n2. second (loose list)\n\n   continued paragraph\n3. third\n\nend",
  "> quote line\n> more\nlazy continuation\n\n> second quote\n\n***\n\n- [ ] task\n- [x] done",
  "Reply with **bold** and *em* and ~~strike~~.\n\n".repeat(3) + "tail *unfinished",
  "a\n\n\n\nb\n\n\n\n```\nunclosed fence\n\nstill in it",
  "Line one\r\nLine two\r\n\r\nNew para\r\n- item\r\n",
  "Uses a [reference][ref] link.\n\nMore text.\n\n[ref]: https://example.org/ref\n\nAfter def.",
  "Text\n\n<div class=\"x\">\n\ninside\n\n</div>\n\n<b>bold html</b> text\n\nend",
  "",
];

// A small seeded PRNG, so a failure names a reproducible chunking.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function chunks(text, seed) {
  const rand = rng(seed);
  const out = [];
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(rand() * (rand() < 0.2 ? 40 : 6));
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function oneShot(text, streaming) {
  const el = document.createElement("div");
  createMarkdownView(el).update(text, { streaming });
  return el.innerHTML;
}

function rawHtml(text) {
  return /<[a-z/]/i.test(text.replace(/```[\s\S]*?```/g, ""));
}

afterEach(() => {
  document.body.replaceChildren();
  delete window.__pwned;
});

describe("incremental markdown view", () => {
  it.each(DOCS.map((doc, i) => [i, doc]))("doc %i streamed in random chunks equals a one-shot render", (_i, doc) => {
    for (let seed = 1; seed <= 5; seed++) {
      const el = document.createElement("div");
      const view = createMarkdownView(el);
      let text = "";
      for (const chunk of chunks(doc, seed)) {
        text += chunk;
        view.update(text, { streaming: true });
        expect(el.innerHTML, `seed ${seed} after ${JSON.stringify(text)}`).toBe(oneShot(text, true));
      }
      view.update(text, { streaming: false });
      expect(el.innerHTML, `seed ${seed}`).toBe(oneShot(doc, false));
      // Without raw HTML (which stays inside its own block here), the same
      // DOM as rendering the whole text as one HTML string.
      if (!rawHtml(doc)) {
        const whole = document.createElement("div");
        whole.innerHTML = renderMarkdown(doc);
        expect(el.innerHTML, `seed ${seed}`).toBe(whole.innerHTML);
      }
    }
  }, 60_000);

  it("keeps the DOM nodes of completed blocks, and patches the growing one in place", () => {
    const el = document.createElement("div");
    const view = createMarkdownView(el);
    view.update("First paragraph.\n\nSecond", { streaming: true });
    const first = el.querySelector("p");
    const second = el.querySelectorAll("p")[1];
    const seen = [];
    const observer = new MutationObserver((records) => seen.push(...records));
    observer.observe(el, { subtree: true, childList: true, characterData: true, attributes: true });
    view.update("First paragraph.\n\nSecond grows", { streaming: true });
    view.update("First paragraph.\n\nSecond grows.\n\nThird", { streaming: true });
    const records = observer.takeRecords();
    observer.disconnect();
    expect(el.querySelector("p")).toBe(first);
    expect(first.textContent).toBe("First paragraph.");
    // Nothing inside the completed paragraph was touched.
    expect(records.filter((r) => first.contains(r.target))).toEqual([]);
    expect(records.flatMap((r) => [...r.removedNodes])).not.toContain(first);
    // The growing paragraph is patched in place, not built again.
    expect(el.querySelectorAll("p")[1]).toBe(second);
    expect(second.textContent).toBe("Second grows.");
    expect(el.querySelectorAll("p")[2].textContent).toBe("Third");
  });

  it("highlights a code block once it is complete, not while it streams", () => {
    const el = document.createElement("div");
    const view = createMarkdownView(el);
    view.update("```python\ndef f():\n", { streaming: true });
    expect(el.querySelector(".hljs-keyword")).toBeNull();
    expect(el.querySelector("code").textContent).toContain("def f():");
    view.update("```python\ndef f():\n    return 1\n```\n\nafter", { streaming: true });
    expect(el.querySelector(".hljs-keyword")?.textContent).toBe("def");
    view.update("```python\ndef f():\n```", { streaming: false });
    expect(el.querySelector(".hljs-keyword")?.textContent).toBe("def");
  });

  it("follows text that is replaced rather than appended", () => {
    const el = document.createElement("div");
    const view = createMarkdownView(el);
    view.update("one\n\ntwo\n\nthree", { streaming: true });
    view.update("uno\n\ntwo", { streaming: false });
    expect([...el.querySelectorAll("p")].map((p) => p.textContent)).toEqual(["uno", "two"]);
    view.update("", { streaming: false });
    expect(el.innerHTML).toBe("");
  });

  it("a link definition arriving later resolves references in earlier blocks", () => {
    const el = document.createElement("div");
    const view = createMarkdownView(el);
    view.update("See [the docs][d].\n\nMore.\n\n", { streaming: true });
    expect(el.querySelector("a")).toBeNull();
    view.update("See [the docs][d].\n\nMore.\n\n[d]: https://example.org/d\n", { streaming: true });
    expect(el.querySelector("a")?.getAttribute("href")).toBe("https://example.org/d");
  });
});

// The shared corpus, plus raw HTML split over blocks.
const STREAMED_XSS = [...XSS, "<div>\n\n<img src=x onerror=\"window.__pwned=1\">\n\n</div>"];

function assertSafe(el) {
  expect(el.querySelector("script, iframe, form, object, embed, style")).toBeNull();
  for (const node of el.querySelectorAll("*")) {
    for (const attr of node.attributes) {
      expect(attr.name.startsWith("on")).toBe(false);
      expect(/^\s*javascript:/i.test(attr.value)).toBe(false);
    }
  }
}

describe("incremental markdown view sanitizes every frame", () => {
  it.each(STREAMED_XSS)("neutralizes %s at every prefix", (payload) => {
    const doc = `Intro paragraph.\n\nbefore ${payload} after\n\nend`;
    const el = document.createElement("div");
    document.body.append(el);
    const view = createMarkdownView(el);
    for (let n = 1; n <= doc.length; n++) {
      view.update(doc.slice(0, n), { streaming: n < doc.length });
      assertSafe(el);
    }
    for (const node of el.querySelectorAll("*")) node.dispatchEvent?.(new Event("error"));
    expect(window.__pwned).toBeUndefined();
  });
});
