import { describe, expect, it, vi } from "vitest";
import { createThreadView } from "../../src/thread/view.js";

const ctx = () => ({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

function message(id, text, extra = {}) {
  return {
    id,
    role: id.startsWith("u") ? "user" : "assistant",
    parts: [{ type: "text", text }],
    status: { type: "complete" },
    metadata: {},
    ...extra,
  };
}

function thread(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(message(i % 2 ? `a${i}` : `u${i}`, `message **${i}**`));
  return out;
}

/** Ids of the messages whose DOM a render changed (attribute writes included). */
function touchedBy(view, fn) {
  const observer = new MutationObserver(() => {});
  observer.observe(view.el, { subtree: true, childList: true, characterData: true, attributes: true });
  fn();
  const ids = new Set();
  for (const record of observer.takeRecords()) {
    const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
    ids.add(node.closest(".gu-message")?.dataset.messageId ?? "(thread)");
  }
  observer.disconnect();
  return ids;
}

const texts = (view) => [...view.el.querySelectorAll(".gu-text")].map((t) => t.textContent.trim());

describe("thread view renders only what changed", () => {
  it("re-renders only the dirty message, leaving the others untouched", () => {
    const view = createThreadView(ctx());
    const messages = thread(6);
    view.render(messages, { running: true });
    const before = [...view.el.querySelectorAll(".gu-message")];
    messages[3].parts[0].text += " and more";
    messages[1].parts[0].text = "changed but not marked dirty";
    const touched = touchedBy(view, () =>
      view.render(messages, { running: true, dirty: new Set(["a3"]) }),
    );
    expect([...touched]).toEqual(["a3"]);
    expect(texts(view)[3]).toBe("message 3 and more");
    // Not marked dirty: not looked at, so still the old text.
    expect(texts(view)[1]).toBe("message 1");
    expect([...view.el.querySelectorAll(".gu-message")]).toEqual(before);
  });

  it("an empty dirty set touches no message; no dirty set updates them all", () => {
    const view = createThreadView(ctx());
    const messages = thread(4);
    view.render(messages, { running: false });
    messages[0].parts[0].text = "edited";
    expect(touchedBy(view, () => view.render(messages, { running: false, dirty: new Set() })).size).toBe(0);
    view.render(messages, { running: false });
    expect(texts(view)[0]).toBe("edited");
  });

  it("a new message renders, and the old last message learns it is no longer last", () => {
    const view = createThreadView(ctx());
    const failed = message("a1", "partial", { status: { type: "incomplete", reason: "error" } });
    const messages = [message("u0", "hi"), failed];
    view.render(messages, { running: false, dirty: new Set() });
    const retry = view.el.querySelector('[data-message-id="a1"] button.gu-retry');
    expect(retry.hidden).toBe(false);
    const more = [...messages, message("u2", "again")];
    const touched = touchedBy(view, () => view.render(more, { running: false, dirty: new Set() }));
    expect(touched.has("u0")).toBe(false);
    expect(retry.hidden).toBe(true);
    expect(texts(view)).toEqual(["hi", "partial", "again"]);
    view.render([more[0], more[2]], { running: false, dirty: new Set() });
    expect(view.el.querySelector('[data-message-id="a1"]')).toBeNull();
  });

  it("a change of `running` updates the last message only", () => {
    const view = createThreadView(ctx());
    const messages = [message("u0", "hi"), message("a1", "cut", { status: { type: "incomplete", reason: "length" } })];
    view.render(messages, { running: true });
    const retry = view.el.querySelector("button.gu-retry");
    expect(retry.hidden).toBe(true);
    const touched = touchedBy(view, () => view.render(messages, { running: false, dirty: new Set() }));
    expect([...touched]).toEqual(["a1"]);
    expect(retry.hidden).toBe(false);
  });

  it("keeps thread order across many messages; appending one moves no other", () => {
    const view = createThreadView(ctx());
    const ids = () => [...view.el.querySelectorAll(".gu-message")].map((m) => m.dataset.messageId);
    let messages = thread(45);
    view.render(messages, { running: false });
    expect(ids()).toEqual(messages.map((m) => m.id));
    const nodes = new Map([...view.el.querySelectorAll(".gu-message")].map((n) => [n.dataset.messageId, n]));

    const records = [];
    const observer = new MutationObserver((r) => records.push(...r));
    observer.observe(view.el, { subtree: true, childList: true });
    messages = [...messages, message("a45", "new")];
    view.render(messages, { running: false, dirty: new Set() });
    const moved = observer.takeRecords().flatMap((r) => [...r.removedNodes]);
    expect(moved).toEqual([]);
    observer.disconnect();
    expect(ids()).toEqual(messages.map((m) => m.id));

    // Out of the middle, into the middle, and back down to a few.
    messages = [...messages.slice(0, 5), ...messages.slice(6, 30), message("u99", "inserted"), ...messages.slice(30)];
    view.render(messages, { running: false, dirty: new Set() });
    expect(ids()).toEqual(messages.map((m) => m.id));
    expect(view.el.querySelector('[data-message-id="a1"]')).toBe(nodes.get("a1"));
    expect(view.el.querySelector('[data-message-id="a5"]')).toBeNull();
    messages = messages.slice(0, 3);
    view.render(messages, { running: false, dirty: new Set() });
    expect(ids()).toEqual(["u0", "a1", "u2"]);
    view.render([], { running: false, dirty: new Set() });
    expect(view.el.querySelector(".gu-message, .gu-chunk")).toBeNull();
    expect(view.el.querySelector(".gu-empty").hidden).toBe(false);
  });
});

describe("the thread keeps its height while a reply is replaced or answered", () => {
  const tall = (el, px) => Object.defineProperty(el, "offsetHeight", { value: px, configurable: true });
  const byId = (view, id) => view.el.querySelector(`[data-message-id="${id}"]`);

  it("Regenerate: the new reply holds the old one's height until it is finished", () => {
    const view = createThreadView(ctx());
    view.render([message("u1", "hi"), message("a1", "a long answer")], { running: false });
    tall(byId(view, "a1"), 300);
    const fresh = message("a2", "", { status: { type: "running" } });
    view.render([message("u1", "hi"), fresh], { running: true });
    expect(byId(view, "a1")).toBeNull();
    expect(byId(view, "a2").style.minHeight).toBe("300px"); // no collapse to an empty reply
    view.render([message("u1", "hi"), message("a2", "another answer")], { running: false, dirty: new Set(["a2"]) });
    expect(byId(view, "a2").style.minHeight).toBe("");
  });

  it("Regenerate with a render in between that shows neither reply: the thread does not shrink", () => {
    const view = createThreadView(ctx());
    view.render([message("u1", "hi"), message("a1", "a long answer")], { running: false });
    tall(byId(view, "a1"), 300);
    const chunk = byId(view, "a1").parentElement;
    tall(chunk, 400);
    view.render([message("u1", "hi")], { running: true }); // the old reply gone, the new one not yet
    expect(chunk.style.minHeight).toBe("400px");
    view.render([message("u1", "hi"), message("a2", "", { status: { type: "running" } })], { running: true });
    expect(byId(view, "a2").style.minHeight).toBe("300px");
    expect(chunk.style.minHeight).toBe(""); // the new reply holds it now
  });

  it("an answered approval: the reply holds its height while it goes on, and lets go when finished", () => {
    const view = createThreadView({ ...ctx(), standardParams: () => [] });
    const call = { type: "tool-call", tool_call_id: "c1", tool_name: "drop_table", args: { name: "t" }, args_text: '{"name": "t"}', args_complete: true, has_result: false, is_error: false };
    const reply = (approval, status) => message("a1", "", { parts: [{ ...call, approval }], status: { type: status } });
    view.render([message("u1", "drop it"), reply({ status: "pending" }, "requires-action")], { running: true });
    expect(byId(view, "a1").querySelector("button.gu-approve")).not.toBeNull();
    tall(byId(view, "a1"), 260);
    view.render([message("u1", "drop it"), reply({ status: "approved" }, "running")], { running: true, dirty: new Set(["a1"]) });
    expect(byId(view, "a1").querySelector("button.gu-approve")).toBeNull();
    expect(byId(view, "a1").style.minHeight).toBe("260px"); // the Approve box went, the height stays
    view.render([message("u1", "drop it"), reply({ status: "approved" }, "complete")], { running: false, dirty: new Set(["a1"]) });
    expect(byId(view, "a1").style.minHeight).toBe("");
  });
});
