import { describe, expect, it } from "vitest";
import { ChatView, modelRef } from "../src/widget.js";
import { FakeModel } from "./helpers/fake-model.js";

function setup() {
  const children = new Map();
  const manager = { get_model: async (id) => children.get(id) };
  const child = (id, message, rev = 0) => {
    const m = new FakeModel({ __id: id, message, rev });
    children.set(id, m);
    return m;
  };
  const user = child("c1", { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }], status: { type: "complete" } });
  const bot = child("c2", { id: "a1", role: "assistant", parts: [], status: { type: "running" }, metadata: {} });
  const model = new FakeModel(
    { _chat_key: `chat-${Math.random()}`, messages: ["IPY_MODEL_c1", "IPY_MODEL_c2"], phase: "thinking", running: true, offline: true, model_name: "demo", suggestions: [], human_tools: [] },
    manager,
  );
  return { model, user, bot, child };
}

async function view(model) {
  const el = document.createElement("div");
  const v = new ChatView(model, el);
  await v.start();
  return { v, el };
}

describe("ChatView", () => {
  it("shows a message whose model the page learns of late (the manager still restoring)", async () => {
    const { model, bot } = setup();
    let known = false;
    const children = new Map([["c2", bot]]);
    model.widget_manager = {
      get_model: async (id) => {
        if (id === "c1" && !known) throw new Error("widget model not found");
        return id === "c1" ? setup().user : children.get(id);
      },
    };
    const { v, el } = await view(model);
    expect([...el.querySelectorAll(".gu-message")].map((m) => m.dataset.role)).toEqual(["assistant"]);
    known = true;
    await new Promise((resolve) => setTimeout(resolve, 80));
    v.renderNow();
    expect([...el.querySelectorAll(".gu-message")].map((m) => m.dataset.role)).toEqual(["user", "assistant"]);
    v.destroy();
  });

  it("renders the thread from child models and says hello", async () => {
    const { model } = setup();
    const { el } = await view(model);
    expect(model.sent).toEqual([{ type: "hello" }]);
    expect(el.querySelector(".gu-chat").dataset.phase).toBe("thinking");
    expect(el.querySelector(".gu-phase").textContent).toBe("Thinking…");
    expect(el.querySelector(".gu-offline-badge").hidden).toBe(false);
    const msgs = el.querySelectorAll(".gu-message");
    expect([...msgs].map((m) => m.dataset.role)).toEqual(["user", "assistant"]);
    expect(el.querySelector("button.gu-stop").hidden).toBe(false);
  });

  it("streams frames into the DOM and converges on the final trait", async () => {
    const { model, bot } = setup();
    const { v, el } = await view(model);
    model.fire("msg:custom", { type: "frame", seq: 1, patches: [{ id: "a1", ops: [{ op: "add_part", part: 0, value: { type: "text", text: "Hel" } }] }] });
    model.fire("msg:custom", { type: "frame", seq: 2, patches: [{ id: "a1", ops: [{ op: "append", part: 0, field: "text", value: "lo" }] }] });
    v.renderNow();
    expect(el.querySelector('[data-message-id="a1"] .gu-text').textContent.trim()).toBe("Hello");
    bot.set("message", { id: "a1", role: "assistant", parts: [{ type: "text", text: "Hello!" }], status: { type: "complete" }, metadata: {} });
    bot.set("rev", 2);
    model.set("phase_detail", "drop_table");
    model.set("phase", "running-tool");
    v.renderNow();
    expect(el.querySelector(".gu-phase").textContent).toBe("Running drop table…");
    model.set("running", false);
    model.set("phase", "idle");
    v.renderNow();
    const node = el.querySelector('[data-message-id="a1"]');
    expect(node.dataset.status).toBe("complete");
    expect(node.querySelector(".gu-text").textContent.trim()).toBe("Hello!");
  });

  it("no live region holds the streamed text: one status says the reply's start and end", async () => {
    const { model, bot } = setup();
    model.set("running", false);
    const { v, el } = await view(model);
    model.set("running", true);
    v.renderNow();
    model.fire("msg:custom", { type: "frame", seq: 1, patches: [{ id: "a1", ops: [{ op: "add_part", part: 0, value: { type: "text", text: "Streamed words" } }] }] });
    v.renderNow();
    const live = () => [...el.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"], [role="log"]:not([aria-live="off"])')];
    expect(live().map((n) => n.textContent)).toEqual(["Assistant is replying…"]);
    bot.set("message", { id: "a1", role: "assistant", parts: [{ type: "text", text: "Streamed words." }], status: { type: "complete" }, metadata: {} });
    bot.set("rev", 2);
    model.set("running", false);
    v.renderNow();
    expect(live().map((n) => n.textContent)).toEqual(["Reply finished."]);
  });

  it("a frame re-renders only the message it patches", async () => {
    const { model } = setup();
    const { v, el } = await view(model);
    const records = [];
    const observer = new MutationObserver((r) => records.push(...r));
    observer.observe(el.querySelector(".gu-thread"), { subtree: true, childList: true, characterData: true, attributes: true });
    model.fire("msg:custom", { type: "frame", seq: 1, patches: [{ id: "a1", ops: [{ op: "add_part", part: 0, value: { type: "text", text: "Hi" } }] }] });
    model.fire("msg:custom", { type: "frame", seq: 2, patches: [{ id: "a1", ops: [{ op: "append", part: 0, field: "text", value: " there" }] }] });
    v.renderNow();
    records.push(...observer.takeRecords());
    observer.disconnect();
    const where = (r) => (r.target.nodeType === 1 ? r.target : r.target.parentElement).closest(".gu-message");
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records.map((r) => where(r)?.dataset.messageId))).toEqual(new Set(["a1"]));
    expect(el.querySelector('[data-message-id="a1"] .gu-text').textContent.trim()).toBe("Hi there");
  });

  it("a snapshot reply catches a late view up", async () => {
    const { model } = setup();
    const { v, el } = await view(model);
    model.fire("msg:custom", {
      type: "snapshot",
      seq: 9,
      messages: [{ rev: 9, message: { id: "a1", role: "assistant", parts: [{ type: "text", text: "so far" }], status: { type: "running" } } }],
    });
    v.renderNow();
    expect(el.querySelector('[data-message-id="a1"] .gu-text').textContent.trim()).toBe("so far");
  });

  it("a failed save shows until the kernel clears it, apart from passing notices", async () => {
    const { model } = setup();
    model.state.save_error = "Not saved: t.json was taken over by another chat";
    const { v, el } = await view(model);
    const box = el.querySelector(".gu-save-error");
    expect(box.hidden).toBe(false);
    expect(box.textContent).toContain("t.json was taken over");
    v.send({ type: "cancel" }); // clears the passing notice, not the save failure
    v.renderNow();
    expect(box.hidden).toBe(false);
    model.set("save_error", "");
    v.renderNow();
    expect(box.hidden).toBe(true);
    expect(box.textContent).toBe("");
  });

  it("errors from the kernel show in the notice; clicks go to the kernel", async () => {
    const { model } = setup();
    const { el } = await view(model);
    model.fire("msg:custom", { type: "error", message: "tool call x is not waiting for approval" });
    const notice = el.querySelector(".gu-notice");
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toContain("not waiting");
    el.querySelector("button.gu-stop").click();
    expect(model.sent.at(-1)).toEqual({ type: "cancel" });
    expect(notice.hidden).toBe(true);
  });

  it("two views of one model render independently and clean up", async () => {
    const { model } = setup();
    const count = () => model.handlers.get("msg:custom").size;
    const a = await view(model);
    const perView = count();
    const b = await view(model);
    expect(a.el.querySelectorAll(".gu-message")).toHaveLength(2);
    expect(b.el.querySelectorAll(".gu-message")).toHaveLength(2);
    expect(count()).toBe(2 * perView);
    a.v.destroy();
    expect(count()).toBe(perView);
  });

  it("modelRef reads ipywidgets references", () => {
    expect(modelRef("IPY_MODEL_abc")).toBe("abc");
    expect(modelRef("nope")).toBeNull();
  });
});

/** Type `text` in the composer and click Send; returns the message sent. */
function typeAndSend(el, model, text) {
  el.querySelector("textarea.gu-input").value = text;
  el.querySelector("button.gu-send").disabled = false;
  el.querySelector("button.gu-send").click();
  return model.sent.at(-1);
}

describe("sending with no kernel", () => {
  it("keeps the text and says why until a kernel answers", async () => {
    const { model } = setup();
    const { el } = await view(model);
    const input = el.querySelector("textarea.gu-input");
    const sent = typeAndSend(el, model, "hello?");
    expect(sent).toMatchObject({ type: "send", text: "hello?" });
    expect(input.value).toBe("hello?"); // nothing answered hello: a saved copy keeps the text
    const notice = el.querySelector(".gu-notice");
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toMatch(/No kernel has answered/);
    model.fire("msg:custom", { type: "snapshot", seq: 0, messages: [] }); // a busy kernel catches up
    expect(notice.hidden).toBe(true);
    model.fire("msg:custom", { type: "accepted", request: "send", ref: sent.ref }); // and takes the text
    expect(input.value).toBe("");
  });
});

describe("the composer clears only once the kernel took the message", () => {
  async function live() {
    const { model } = setup();
    const { el } = await view(model);
    model.fire("msg:custom", { type: "snapshot", seq: 0, messages: [] });
    return { model, el, input: el.querySelector("textarea.gu-input"), notice: el.querySelector(".gu-notice") };
  }

  it("clears the box when the kernel accepts this view's send", async () => {
    const { model, el, input, notice } = await live();
    const sent = typeAndSend(el, model, "hi again");
    expect(typeof sent.ref).toBe("string");
    expect(input.value).toBe("hi again"); // not yet: the kernel may refuse it
    model.fire("msg:custom", { type: "accepted", request: "send", ref: "another-view-1" });
    expect(input.value).toBe("hi again"); // another view's send
    model.fire("msg:custom", { type: "accepted", request: "send", ref: sent.ref });
    expect(input.value).toBe("");
    expect(notice.hidden).toBe(true);
  });

  it("keeps a refused message in the box with the kernel's reason", async () => {
    const { model, el, input, notice } = await live();
    const long = "x".repeat(1_000_001);
    const sent = typeAndSend(el, model, long);
    model.fire("msg:custom", {
      type: "error",
      request: "send",
      ref: sent.ref,
      message: "message too long: 1,000,001 characters, the chat takes at most 1,000,000; shorten it",
    });
    expect(input.value).toBe(long);
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toMatch(/too long.*still in the box/);
    // Shortened and sent again: taken, so cleared.
    const again = typeAndSend(el, model, "short now");
    expect(again.ref).not.toBe(sent.ref);
    model.fire("msg:custom", { type: "accepted", request: "send", ref: again.ref });
    expect(input.value).toBe("");
  });

  it("keeps what the user typed meanwhile", async () => {
    const { model, el, input } = await live();
    const sent = typeAndSend(el, model, "first");
    input.value = "first, and more";
    model.fire("msg:custom", { type: "accepted", request: "send", ref: sent.ref });
    expect(input.value).toBe("first, and more");
  });

  it("a second Enter while the send is pending sends nothing more", async () => {
    const { model, el } = await live();
    typeAndSend(el, model, "once");
    const count = model.sent.length;
    el.querySelector("button.gu-send").click();
    expect(model.sent).toHaveLength(count);
  });
});

describe("model images in the thread", () => {
  const REMOTE = "http://127.0.0.1:9/chart.png?secret=1";

  it("wait behind a button; a click loads them in every view of the chat", async () => {
    const { model, bot } = setup();
    const a = await view(model);
    bot.set("message", {
      id: "a1",
      role: "assistant",
      parts: [{ type: "text", text: `Here: ![chart](${REMOTE})` }],
      status: { type: "complete" },
      metadata: {},
    });
    a.v.renderNow();
    const img = () => a.el.querySelector('[data-message-id="a1"] img');
    expect(img().getAttribute("src")).toBeNull();
    const button = a.el.querySelector('[data-message-id="a1"] button.gu-load-resource');
    expect(button.textContent).toBe("Load image from 127.0.0.1:9");
    button.click();
    expect(img().getAttribute("src")).toBe(REMOTE);
    // A second output of the same chat: anywidget hands each view its own
    // proxy of the model, so the chat is known by its key, not by identity.
    const b = await view(Object.create(model));
    expect(b.el.querySelector('[data-message-id="a1"] img').getAttribute("src")).toBe(REMOTE);
    expect(b.el.querySelector("button.gu-load-resource")).toBeNull();
  });
});
