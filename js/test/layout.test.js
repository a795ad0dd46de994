// The chat's size: bounded by the `height` trait (the thread scrolls and
// follows the stream inside), text boxes as tall as their text with no
// scrollbar until they overflow.
import { describe, expect, it } from "vitest";
import { fitToText } from "../src/composer/composer.js";
import { createThreadView } from "../src/thread/view.js";
import { ChatView, chatHeight } from "../src/widget.js";
import { FakeModel } from "./helpers/fake-model.js";

/** Give `el` the heights a browser would lay it out with (jsdom lays out nothing). */
function heights(el, { scroll, client, offset = client }) {
  Object.defineProperty(el, "scrollHeight", { value: scroll, configurable: true });
  Object.defineProperty(el, "clientHeight", { value: client, configurable: true });
  Object.defineProperty(el, "offsetHeight", { value: offset, configurable: true });
}

const user = (id, text) => ({ id, role: "user", parts: [{ type: "text", text }], status: { type: "complete" } });
const reply = (id, status = "complete") => ({ id, role: "assistant", parts: [{ type: "text", text: "ok" }], status: { type: status }, metadata: {} });

async function chatWith(traits) {
  const model = new FakeModel({ _chat_key: `c-${Math.random()}`, messages: [], phase: "idle", running: false, human_tools: [], ...traits }, {
    get_model: async () => null,
  });
  const el = document.createElement("div");
  const view = new ChatView(model, el);
  await view.start();
  return { model, view, root: el.querySelector(".gu-chat") };
}

describe("the chat's height", () => {
  it("reads the trait: a length bounds the chat, 'auto' and '' (older notebooks) do not", () => {
    expect(chatHeight("min(640px, 80vh)")).toBe("min(640px, 80vh)");
    expect(chatHeight("30rem")).toBe("30rem");
    expect(chatHeight("auto")).toBe("");
    expect(chatHeight("")).toBe("");
    expect(chatHeight(undefined)).toBe("");
  });

  it("bounds the whole chat (header and composer in view), and the thread scrolls inside", async () => {
    const { model, view, root } = await chatWith({ height: "min(640px, 80vh)" });
    const thread = root.querySelector(".gu-thread");
    // the box, not only the thread: a thread of 640 px under a header and
    // above a composer made a chat taller than the screen
    expect(root.style.maxHeight).toBe("min(640px, 80vh)");
    expect(root.classList.contains("gu-chat-bounded")).toBe(true);
    expect(thread.classList.contains("gu-thread-fixed")).toBe(true);
    expect(thread.style.maxHeight).toBe("");
    model.set("height", "auto");
    view.renderNow();
    expect(root.style.maxHeight).toBe("");
    expect(root.classList.contains("gu-chat-bounded")).toBe(false);
    expect(thread.classList.contains("gu-thread-fixed")).toBe(false);
  });
});

describe("following the stream in a bounded thread", () => {
  function streaming() {
    const view = createThreadView({ send: () => {}, components: null });
    view.setHeight("640px");
    return view;
  }
  const scrollTo = (view, top) => {
    view.el.scrollTop = top;
    view.el.dispatchEvent(new Event("scroll"));
  };

  it("keeps the newest line in view while the user stays at the bottom", () => {
    const view = streaming();
    heights(view.el, { scroll: 1000, client: 400 });
    view.render([user("u1", "hi"), reply("a1", "running")], { running: true });
    expect(view.el.scrollTop).toBe(1000);
    heights(view.el, { scroll: 1400, client: 400 });
    view.render([user("u1", "hi"), reply("a1", "running")], { running: true });
    expect(view.el.scrollTop).toBe(1400);
    expect(view.jump.hidden).toBe(true);
  });

  it("stops following when the user scrolls up, and Jump to latest follows again", () => {
    const view = streaming();
    heights(view.el, { scroll: 1000, client: 400 });
    view.render([user("u1", "hi"), reply("a1", "running")], { running: true });
    scrollTo(view, 200);
    heights(view.el, { scroll: 1400, client: 400 });
    view.render([user("u1", "hi"), reply("a1", "running")], { running: true });
    expect(view.el.scrollTop).toBe(200); // where the user is reading
    expect(view.jump.hidden).toBe(false);
    view.jump.click();
    expect(view.el.scrollTop).toBe(1400);
    heights(view.el, { scroll: 1800, client: 400 });
    view.render([user("u1", "hi"), reply("a1", "running")], { running: true });
    expect(view.el.scrollTop).toBe(1800);
  });

  it("a thread that grows with the page leaves scrolling to the notebook", () => {
    const view = createThreadView({ send: () => {}, components: null });
    view.setHeight("");
    heights(view.el, { scroll: 1000, client: 1000 });
    view.render([user("u1", "hi"), reply("a1", "running")], { running: true });
    expect(view.el.scrollTop).toBe(0);
  });
});

describe("text boxes fit their text", () => {
  it("an empty one-line box is as tall as its line and borders: no scrollbar", () => {
    const box = document.createElement("textarea");
    // 1px borders: offsetHeight counts them, clientHeight and scrollHeight do not
    heights(box, { scroll: 29, client: 29, offset: 31 });
    fitToText(box);
    expect(box.style.height).toBe("31px"); // was 29px: 2 px short, so it scrolled
    expect(box.style.overflowY).toBe("hidden");
  });

  it("a box taller than its limit scrolls", () => {
    const box = document.createElement("textarea");
    heights(box, { scroll: 500, client: 29, offset: 31 });
    fitToText(box, 200);
    expect(box.style.height).toBe("200px");
    expect(box.style.overflowY).toBe("auto");
  });

  it("the edit box of a three-line message shows its three lines", () => {
    const view = createThreadView({ send: () => {}, components: null });
    view.render([user("u1", "one\ntwo\nthree"), reply("a1")], { running: false });
    expect(view.editLastUser()).toBe(true);
    const box = view.el.querySelector("textarea.gu-edit-input");
    expect(box.value).toBe("one\ntwo\nthree");
    expect(box.rows).toBeGreaterThanOrEqual(3); // was 2: the third line scrolled out
    expect(box.style.overflowY).toBe("hidden");
  });
});
