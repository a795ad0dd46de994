import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/markdown/markdown.js";
import { XSS } from "../helpers/xss-corpus.js";
import { loadHighlighter } from "../helpers/load-highlighter.js";

// Code colouring is loaded on demand (src/markdown/highlighter.js); these tests see it loaded.
beforeAll(loadHighlighter);

function mount(html) {
  const el = document.createElement("div");
  el.innerHTML = html;
  document.body.append(el);
  return el;
}

afterEach(() => {
  document.body.replaceChildren();
  delete window.__pwned;
});

describe("renderMarkdown sanitizes model text", () => {
  it.each(XSS)("neutralizes %s", (payload) => {
    const el = mount(renderMarkdown(`before ${payload} after`));
    expect(el.querySelector("script, iframe, form, object, embed, style")).toBeNull();
    for (const node of el.querySelectorAll("*")) {
      for (const attr of node.attributes) {
        expect(attr.name.startsWith("on")).toBe(false);
        expect(/^\s*javascript:/i.test(attr.value)).toBe(false);
      }
    }
    for (const node of el.querySelectorAll("*")) node.dispatchEvent?.(new Event("error"));
    expect(window.__pwned).toBeUndefined();
  });

  it("keeps a code block's script as visible text", () => {
    const el = mount(renderMarkdown("```html\n<script>alert(1)</script>\n```"));
    expect(el.querySelector("script")).toBeNull();
    expect(el.textContent).toContain("<script>alert(1)</script>");
  });
});

describe("renderMarkdown formats", () => {
  it("renders GFM tables", () => {
    const el = mount(renderMarkdown("| a | b |\n|---|---|\n| 1 | 2 |"));
    expect([...el.querySelectorAll("td")].map((td) => td.textContent)).toEqual(["1", "2"]);
  });

  it("highlights known languages", () => {
    const el = mount(renderMarkdown("```python\ndef f():\n    return 1\n```"));
    const code = el.querySelector("pre.gu-code code");
    expect(code.className).toContain("language-python");
    expect(code.querySelector(".hljs-keyword")?.textContent).toBe("def");
  });

  it("opens links in a new tab without an opener", () => {
    const el = mount(renderMarkdown("[docs](https://example.org/x)"));
    const a = el.querySelector("a");
    expect(a.getAttribute("href")).toBe("https://example.org/x");
    expect(a.getAttribute("target")).toBe("_blank");
    expect(a.getAttribute("rel")).toContain("noopener");
  });

  it("renders partial markdown while it streams", () => {
    expect(() => renderMarkdown("**bold and | a |\n|--")).not.toThrow();
    expect(renderMarkdown("")).toBe("");
  });
});
