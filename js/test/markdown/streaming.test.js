import { describe, expect, it } from "vitest";
import { createMarkdownView } from "../../src/markdown/markdown.js";
import { openInlineClosers } from "../../src/markdown/close.js";
import { createMessageView } from "../../src/thread/message-view.js";

function view(text, opts) {
  const el = document.createElement("div");
  createMarkdownView(el).update(text, opts);
  return el;
}

describe("open inline markers while streaming", () => {
  it.each([
    ["The **key", "key", "strong"],
    ["it is *really", "really", "em"],
    ["an _open", "open", "em"],
    ["run `pip inst", "pip inst", "code"],
    ["***both", "both", "em"],
    ["a **b*", "b", "strong"],
  ])("%j renders as it would close", (text, inner, tag) => {
    const el = view(text, { streaming: true });
    expect(el.querySelector(tag)?.textContent).toBe(inner);
    expect(el.textContent).not.toMatch(/[*_`]/);
  });

  it("closes the code span first, then the emphasis around it", () => {
    expect(openInlineClosers("**use `foo")).toBe("`**");
    expect(view("**use `foo", { streaming: true }).querySelector("strong code")?.textContent).toBe("foo");
  });

  it.each([
    ["2 * 3 is six", "2 * 3 is six"],
    ["snake_case_name", "snake_case_name"],
    ["a done *pair* here", "a done pair here"],
    ["`a` and `b`", "a and b"],
    ["just typed **", "just typed **"],
    ["escaped \\*star", "escaped *star"],
  ])("%j is left as written", (text, shown) => {
    expect(view(text, { streaming: true }).textContent.trim()).toBe(shown);
  });

  it("a lone list bullet is a bullet, not emphasis", () => {
    const el = view("- one\n* ", { streaming: true });
    expect(el.querySelector("em, strong")).toBeNull();
    expect(view("* item *open", { streaming: true }).querySelector("li em")?.textContent).toBe("open");
  });

  it("never touches a code fence, and only the last block", () => {
    const fence = view("```python\nx = 2 * 3\ny = `z\n", { streaming: true });
    expect(fence.querySelector("code").textContent).toBe("x = 2 * 3\ny = `z");
    const earlier = view("first *open\n\nsecond **b", { streaming: true });
    expect(earlier.querySelector("p").textContent).toBe("first *open");
    expect(earlier.querySelectorAll("p")[1].querySelector("strong")?.textContent).toBe("b");
  });

  it("a finished reply keeps a lone marker as written; a stopped one closes it", () => {
    expect(view("tail *unfinished", { streaming: false }).querySelector("em")).toBeNull();
    expect(view("tail *unfinished", { streaming: false, cut: true }).querySelector("em")?.textContent).toBe(
      "unfinished",
    );
  });

  it("a message stopped mid-text shows its last part's emphasis closed", () => {
    const ctx = { send() {}, notify() {}, isHuman: () => false, resources: undefined };
    const msg = createMessageView(ctx);
    msg.update(
      {
        id: "m1",
        role: "assistant",
        status: { type: "incomplete", reason: "cancelled" },
        parts: [{ type: "text", text: "The answer is **forty" }],
      },
      { isLast: true, running: false },
    );
    expect(msg.el.querySelector(".gu-text strong")?.textContent).toBe("forty");
  });
});

describe("a code fence while it streams", () => {
  it("shows the code as it comes, with no Copy until the fence closes; nothing before its first line", () => {
    const el = document.createElement("div");
    const md = createMarkdownView(el);
    const frames = (text) => {
      md.update(text, { streaming: true });
      const copy = el.querySelectorAll("button.gu-copy-code:not([data-pending])").length; // seen and reachable
      return { pre: el.querySelector("pre")?.textContent ?? null, copy };
    };
    expect(frames("Here:\n\n```python\n")).toEqual({ pre: null, copy: 0 }); // no empty grey bar
    expect(frames("Here:\n\n```python\nimport pandas as pd\ndf =")).toEqual({ pre: "import pandas as pd\ndf =", copy: 0 });
    expect(frames("Here:\n\n```python\nimport pandas as pd\ndf = 1\n```")).toEqual({ pre: "import pandas as pd\ndf = 1", copy: 1 });
    expect(frames("Here:\n\n```python\nimport pandas as pd\ndf = 1\n```\n\nDone")).toEqual({ pre: "import pandas as pd\ndf = 1", copy: 1 });
    md.update("Here:\n\n````\na\n```\nb", { streaming: true }); // a shorter run inside does not close it
    expect(el.querySelectorAll("button.gu-copy-code:not([data-pending])")).toHaveLength(0);
    expect(el.querySelector("button.gu-copy-code[data-pending]")?.tabIndex).toBe(-1); // its room only
    md.update("Here:\n\n```python\nx = 1", { streaming: false, cut: true }); // stopped mid-fence: final, Copy offered
    expect(el.querySelectorAll("button.gu-copy-code:not([data-pending])")).toHaveLength(1);
  });
});
