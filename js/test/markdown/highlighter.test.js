// Code colouring is loaded on demand: the widget bundle leaves highlight.js
// out, a view asks its kernel for the module when a code block with a
// language first shows, and the blocks shown plain meanwhile are coloured
// when it arrives. Each test starts from fresh modules (nothing loaded).
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel } from "../helpers/fake-model.js";

let md, hl;

beforeEach(async () => {
  vi.resetModules();
  hl = await import("../../src/markdown/highlighter.js");
  md = await import("../../src/markdown/markdown.js");
});

const PY = "```python\ndef f():\n    return 1\n```";
const real = () => import("../../src/markdown/highlight.js");

function mount(html) {
  const el = document.createElement("div");
  el.innerHTML = html;
  return el;
}

describe("markdown before and after the highlighter loads", () => {
  it("shows code plain, asks once, and colours the shown blocks when it arrives", async () => {
    const load = vi.fn(real);
    hl.addHighlighterLoader(load);
    const el = mount(md.renderMarkdown(PY));
    md.renderMarkdown(PY); // a second render while it loads: still one request
    const code = el.querySelector("pre.gu-code code");
    expect(code.querySelector(".hljs-keyword")).toBeNull();
    expect(code.textContent).toBe("def f():\n    return 1");
    expect(code.getAttribute("data-gu-highlight")).toBe("python");
    const done = vi.fn();
    hl.onHighlighterReady(done);
    expect(await hl.wantHighlighter()).not.toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
    expect(done).toHaveBeenCalledTimes(1);
    md.highlightCodeIn(el);
    expect(code.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(code.textContent).toBe("def f():\n    return 1");
    expect(code.hasAttribute("data-gu-highlight")).toBe(false);
    // Rendered from now on: coloured at once, no mark.
    const later = mount(md.renderMarkdown(PY)).querySelector("code");
    expect(later.querySelector(".hljs-keyword")).not.toBeNull();
    expect(later.hasAttribute("data-gu-highlight")).toBe(false);
  });

  it("starts loading while a block still streams, and marks only complete blocks", async () => {
    const load = vi.fn(real);
    hl.addHighlighterLoader(load);
    const el = document.createElement("div");
    const view = md.createMarkdownView(el);
    view.update("```python\ndef f():\n", { streaming: true });
    await vi.waitFor(() => expect(load).toHaveBeenCalledTimes(1));
    expect(el.querySelector("[data-gu-highlight]")).toBeNull(); // re-rendered when complete anyway
    await hl.wantHighlighter();
    view.update(`${PY}\n\nafter`, { streaming: false });
    expect(el.querySelector(".hljs-keyword")?.textContent).toBe("def");
  });

  it("keeps code that the model wrote as text when colouring it later", async () => {
    hl.addHighlighterLoader(real);
    const el = mount(md.renderMarkdown("```html\n<img src=x onerror=alert(1)><script>alert(2)</script>\n```"));
    await hl.wantHighlighter();
    md.highlightCodeIn(el);
    expect(el.querySelector("img, script")).toBeNull();
    expect(el.querySelector("code").textContent).toBe("<img src=x onerror=alert(1)><script>alert(2)</script>");
    expect(el.querySelector("code .hljs-tag")).not.toBeNull();
  });

  it("leaves a language it does not know plain", async () => {
    hl.addHighlighterLoader(real);
    const el = mount(md.renderMarkdown("```cobol\nDISPLAY 'HI'.\n```"));
    await hl.wantHighlighter();
    md.highlightCodeIn(el);
    expect(el.querySelector("code").innerHTML).toBe("DISPLAY 'HI'.");
  });

  it("a loader that fails is not asked again; another view's loader is", async () => {
    const broken = vi.fn(async () => {
      throw new Error("no kernel");
    });
    hl.addHighlighterLoader(broken);
    md.renderMarkdown(PY);
    expect(await hl.wantHighlighter()).toBeNull();
    md.renderMarkdown(PY);
    expect(await hl.wantHighlighter()).toBeNull();
    expect(broken).toHaveBeenCalledTimes(1);
    const el = mount(md.renderMarkdown(PY));
    expect(el.querySelector("code").textContent).toBe("def f():\n    return 1");
    const second = vi.fn(real);
    hl.addHighlighterLoader(second);
    expect(await hl.wantHighlighter()).not.toBeNull();
    expect(second).toHaveBeenCalledTimes(1);
  });

  it("does not take a module without a highlight function", async () => {
    hl.addHighlighterLoader(async () => ({ default: {} }));
    expect(await hl.wantHighlighter()).toBeNull();
    expect(hl.highlighter()).toBeNull();
  });
});

describe("a chat view fetches the highlighter from its kernel", () => {
  async function chatWithCode() {
    const { ChatView } = await import("../../src/widget.js");
    const child = new FakeModel({
      __id: "c1",
      rev: 0,
      message: { id: "a1", role: "assistant", parts: [{ type: "text", text: PY }], status: { type: "complete" }, metadata: {} },
    });
    const manager = { get_model: async () => child };
    const model = new FakeModel(
      { _chat_key: `chat-${Math.random()}`, messages: ["IPY_MODEL_c1"], phase: "idle", suggestions: [], human_tools: [] },
      manager,
    );
    const el = document.createElement("div");
    const view = new ChatView(model, el);
    await view.start();
    view.renderNow();
    return { view, model, el };
  }

  const asked = (model) => model.sent.filter((m) => m.type === "load_module");

  it("asks once, imports the source the kernel sends, and colours the thread", async () => {
    const { view, model, el } = await chatWithCode();
    view.notice("Something the user has not read");
    view.renderNow();
    expect(asked(model)).toEqual([{ type: "load_module", name: "highlight" }]);
    expect(view.noticeEl.textContent).toBe("Something the user has not read"); // not cleared by it
    const sources = [];
    view.importSource = async (source) => {
      sources.push(source);
      return real();
    };
    model.fire("msg:custom", { type: "module", name: "highlight", source: "SOURCE" });
    await vi.waitFor(() => expect(el.querySelector(".gu-text .hljs-keyword")?.textContent).toBe("def"));
    expect(sources).toEqual(["SOURCE"]);
    expect(asked(model)).toHaveLength(1);
  });

  it("keeps code plain when the kernel has no module, and asks no more", async () => {
    const { view, model, el } = await chatWithCode();
    model.fire("msg:custom", { type: "module", name: "highlight", error: "missing" });
    await hl.wantHighlighter();
    view.dirty = null;
    view.renderNow();
    await Promise.resolve();
    expect(asked(model)).toHaveLength(1);
    expect(el.querySelector(".gu-text code").textContent).toBe("def f():\n    return 1");
    expect(el.querySelector(".hljs-keyword")).toBeNull();
  });

  it("a closed view's request passes to the next view", async () => {
    const first = await chatWithCode();
    first.view.destroy();
    const second = await chatWithCode();
    await Promise.resolve();
    second.view.renderNow();
    await vi.waitFor(() => expect(asked(second.model)).toHaveLength(1));
  });
});
