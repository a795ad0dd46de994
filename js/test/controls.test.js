// The chat's controls: icons instead of emoji, one Tab stop per message's
// actions (arrows inside), the right actions for a reply's state, the focus
// after a decision, and the chat's own keys.
import { describe, expect, it } from "vitest";
import { createActionBar } from "../src/thread/action-bar.js";
import { icon, iconNames } from "../src/common/icons.js";
import { ChatView } from "../src/widget.js";
import { FakeModel } from "./helpers/fake-model.js";

const key = (el, k, extra = {}) =>
  el.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...extra }));

const text = (id, role, words, status = "complete", extra = {}) => ({
  id,
  role,
  parts: [{ type: "text", text: words }],
  status: { type: status },
  metadata: {},
  ...extra,
});

const pendingCall = {
  type: "tool-call",
  tool_call_id: "call_1",
  tool_name: "drop_table",
  args_text: '{"name": "sales"}',
  args: { name: "sales" },
  args_complete: true,
  has_result: false,
  is_error: false,
  approval: { status: "pending" },
};

/** A chat view over `messages` (child models), attached to the document. */
async function chatOf(messages, state = {}) {
  const children = new Map();
  const manager = { get_model: async (id) => children.get(id) };
  messages.forEach((message, i) => children.set(`c${i}`, new FakeModel({ __id: `c${i}`, message, rev: 0 })));
  const model = new FakeModel(
    {
      messages: messages.map((_, i) => `IPY_MODEL_c${i}`),
      phase: "idle",
      running: false,
      offline: true,
      model_name: "demo",
      suggestions: [],
      human_tools: [],
      ...state,
    },
    manager,
  );
  const el = document.createElement("div");
  document.body.append(el);
  const view = new ChatView(model, el);
  await view.start();
  return { view, model, el, children };
}

/** Characters a rendered chat may show: printable ASCII, Latin letters, and typographic punctuation. */
const SAFE = /^[\s\x20-\x7e\u00a0-\u024f\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u00b7]*$/u;

function oddCharacters(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const odd = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!SAFE.test(node.textContent ?? "")) odd.push(node.textContent);
  }
  return odd;
}

describe("icons", () => {
  it("draws every icon as a 16 px SVG in the text's colour, hidden from screen readers", () => {
    for (const name of iconNames) {
      const svg = icon(name);
      expect(svg.namespaceURI).toBe("http://www.w3.org/2000/svg");
      expect(svg.getAttribute("width")).toBe("16");
      expect(svg.getAttribute("stroke")).toBe("currentColor");
      expect(svg.getAttribute("aria-hidden")).toBe("true");
      expect(svg.childElementCount).toBeGreaterThan(0);
    }
  });

  it("a rendered chat shows no emoji or odd glyph, and every icon button has a name", async () => {
    const attachment = { type: "attachment", kind: "image", name: "plot.png", size: 2048 };
    const user = { ...text("u1", "user", "hi"), parts: [attachment, { type: "text", text: "hi" }] };
    const reply = text("a1", "assistant", "Hello", "complete", { branch: { index: 1, count: 2 } });
    const { el } = await chatOf([user, reply], {
      thread_list: [{ id: "t1", title: "First" }],
      thread_id: "t1",
      persist_kind: "folder",
    });
    expect(oddCharacters(el)).toEqual([]);
    const buttons = [...el.querySelectorAll("button")].filter((b) => b.querySelector("svg"));
    expect(buttons.length).toBeGreaterThanOrEqual(8);
    for (const b of buttons) expect(b.getAttribute("aria-label") || b.textContent.trim()).toBeTruthy();
    el.remove();
  });
});

describe("the actions of a message", () => {
  const bar = () => {
    const b = createActionBar({ send: () => {} }, { onEdit: () => {} });
    document.body.append(b.el);
    return b;
  };
  const visible = (b) => [...b.el.querySelectorAll("button")].filter((x) => !x.closest("[hidden]"));

  it("are one Tab stop; arrows, Home and End move inside, and no key leaks out", () => {
    const b = bar();
    b.update(text("a1", "assistant", "Hello"));
    const stops = () => visible(b).filter((x) => x.tabIndex === 0);
    expect(b.el.getAttribute("role")).toBe("toolbar");
    expect(stops()).toHaveLength(1);
    const [copy, regenerate, up, down] = visible(b);
    expect(stops()[0]).toBe(copy);
    copy.focus();
    let leaked = 0;
    document.body.addEventListener("keydown", () => leaked++, { once: true });
    key(copy, "ArrowRight");
    expect(document.activeElement).toBe(regenerate);
    expect(stops()).toEqual([regenerate]); // Tab comes back to the button last used
    key(regenerate, "End");
    expect(document.activeElement).toBe(down);
    key(down, "ArrowRight");
    expect(document.activeElement).toBe(copy); // wraps
    key(copy, "ArrowLeft");
    expect(document.activeElement).toBe(down);
    key(down, "Home");
    expect(document.activeElement).toBe(copy);
    expect(leaked).toBe(0);
    expect(up.tabIndex).toBe(-1);
    b.el.remove();
  });

  it("a reply waiting for approval has no action bar (no stray Copy under the approval) until it is finished", () => {
    const b = bar();
    b.update(text("a1", "assistant", "Let me drop it", "requires-action"));
    expect(b.el.hidden).toBe(true);
    b.update(text("a1", "assistant", "Done"));
    expect(b.el.hidden).toBe(false);
    expect(visible(b).map((x) => x.getAttribute("aria-label"))).toEqual([
      "Copy message",
      "Regenerate reply",
      "Good reply",
      "Bad reply",
    ]);
    b.el.remove();
  });

  it("a stopped last reply offers Retry, not Regenerate as well", async () => {
    const stopped = { ...text("a1", "assistant", "Half a"), status: { type: "incomplete", reason: "cancelled" } };
    const { el } = await chatOf([text("u1", "user", "hi"), stopped]);
    const names = [...el.querySelectorAll('[data-message-id="a1"] button')]
      .filter((x) => !x.closest("[hidden]"))
      .map((x) => x.getAttribute("aria-label") || x.textContent);
    expect(names).toContain("Retry");
    expect(names).not.toContain("Regenerate reply");
    el.remove();
  });
});

describe("keyboard", () => {
  it("after Approve the focus stays in the chat: on the composer", async () => {
    const waiting = { id: "a1", role: "assistant", parts: [pendingCall], status: { type: "requires-action" }, metadata: {} };
    const { el, view, children } = await chatOf([text("u1", "user", "drop it"), waiting], { phase: "waiting" });
    const approve = el.querySelector("button.gu-approve");
    approve.focus();
    approve.click();
    // The kernel answers: the call was approved and the reply goes on.
    const decided = { ...pendingCall, approval: { status: "approved" } };
    children.get("c1").set("message", { ...waiting, parts: [decided], status: { type: "running" } });
    children.get("c1").set("rev", 1);
    view.renderNow();
    await Promise.resolve();
    expect(el.querySelector("button.gu-approve")).toBeNull();
    expect(document.activeElement).toBe(view.composer.input);
    el.remove();
  });

  it("after Stop the focus goes to the composer, not to the page", async () => {
    const { el, model, view } = await chatOf([text("u1", "user", "hi"), text("a1", "assistant", "Wor", "running")], { running: true });
    const stop = el.querySelector("button.gu-stop");
    stop.focus();
    stop.click();
    expect(model.sent.at(-1)).toEqual({ type: "cancel" });
    model.set("running", false); // the kernel stopped the run: Stop hides
    view.renderNow();
    expect(stop.hidden).toBe(true);
    expect(document.activeElement).toBe(view.composer.input);
    el.remove();
  });

  it("after Ask the model the focus waits in the composer, then goes to Send to the server", async () => {
    const args = { server: "`python asking.py`", messages: [{ role: "user", text: "Sum it" }], max_tokens: 200 };
    const ask = (extra, a = args) => ({ ...pendingCall, tool_call_id: "req_1", tool_name: "mcp_sampling", synthetic: true, args: a, args_text: JSON.stringify(a), ...extra });
    const waiting = (part) => ({ id: "a1", role: "assistant", parts: [part], status: { type: "requires-action" }, metadata: {} });
    const { el, view, children } = await chatOf([text("u1", "user", "sum"), waiting(ask({}))], { running: true, phase: "waiting" });
    const update = (part) => {
      children.get("c1").set("message", waiting(part));
      children.get("c1").set("rev", children.get("c1").get("rev") + 1);
      view.renderNow();
    };
    const askButton = [...el.querySelectorAll(".gu-request button.gu-approve")].find((b) => b.textContent === "Ask the model");
    askButton.focus();
    askButton.click();
    update(ask({ approval: { status: "approved" }, status_message: "Asking the model…" })); // the model answers
    await Promise.resolve();
    expect(document.activeElement).toBe(view.composer.input); // not the page
    update(ask({ approval: { status: "pending" } }, { ...args, reply: "A sum.", reply_model: "demo" }));
    expect(document.activeElement?.textContent).toBe("Send to the server");
    el.remove();
  });

  it("Esc in the chat stops a streaming run; not when idle, and Esc outside is left alone", async () => {
    const { el, model, view } = await chatOf([text("u1", "user", "hi"), text("a1", "assistant", "Wor", "running")], {
      running: true,
      phase: "thinking",
    });
    const outside = document.createElement("button");
    document.body.append(outside);
    model.sent.length = 0;
    key(outside, "Escape");
    expect(model.sent).toEqual([]);
    let reached = 0;
    document.body.addEventListener("keydown", () => reached++, { once: true });
    key(view.composer.input, "Escape");
    expect(model.sent).toEqual([{ type: "cancel" }]);
    expect(reached).toBe(0); // JupyterLab did not read it
    model.set("running", false);
    view.renderNow();
    key(el.querySelector(".gu-thread"), "Escape");
    expect(model.sent).toEqual([{ type: "cancel" }]);
    outside.remove();
    el.remove();
  });

  it("arrows, Page keys, Space and Enter in the log stay in the chat and keep their default (it scrolls)", async () => {
    const { el } = await chatOf([text("u1", "user", "hi"), text("a1", "assistant", "Hello")]);
    const thread = el.querySelector(".gu-thread");
    const reached = [];
    const notebook = (event) => reached.push(event.key); // JupyterLab's command mode reads keys here
    document.body.addEventListener("keydown", notebook);
    thread.focus();
    for (const name of ["ArrowDown", "ArrowUp", "PageDown", "PageUp", "Home", "End", " "]) {
      expect(key(thread, name)).toBe(true); // not prevented: the browser scrolls the log
    }
    expect(key(el.querySelector("button.gu-send"), "Enter")).toBe(true);
    expect(reached).toEqual([]);
    key(thread, "a"); // a key the chat does not use goes on
    expect(reached).toEqual(["a"]);
    document.body.removeEventListener("keydown", notebook);
    el.remove();
  });

  it("/ in the chat focuses the composer; typed in a box it is text", async () => {
    const { el, view } = await chatOf([text("u1", "user", "hi"), text("a1", "assistant", "Hello")]);
    const copy = el.querySelector('[data-message-id="a1"] button.gu-action-copy');
    copy.focus();
    expect(key(copy, "/")).toBe(false); // default prevented: no "/" typed anywhere
    expect(document.activeElement).toBe(view.composer.input);
    expect(key(view.composer.input, "/")).toBe(true);
    expect(view.composer.input.getAttribute("aria-keyshortcuts")).toBe("/");
    el.remove();
  });
});

describe("thread menu", () => {
  it("the header of a one-thread chat has no thread controls until it is saved or gets a second thread", async () => {
    const first = { id: "t1", title: "First" };
    const { view, model, el } = await chatOf([], { thread_list: [first], thread_id: "t1", persist_kind: "" });
    const menu = el.querySelector(".gu-header .gu-thread-menu");
    expect(menu.hidden).toBe(true);
    model.set("persist_kind", "folder");
    view.renderNow();
    expect(menu.hidden).toBe(false);
    model.set("persist_kind", "");
    model.set("thread_list", [first, { id: "t2", title: "Second" }]);
    view.renderNow();
    expect(menu.hidden).toBe(false);
    view.destroy();
    el.remove();
  });

  it("is a listbox the keyboard opens, moves through and picks from; no key leaks", async () => {
    const { createThreadMenu } = await import("../src/thread/menu.js");
    const sent = [];
    const menu = createThreadMenu({ send: (m) => sent.push(m) });
    document.body.append(menu.el);
    menu.update(
      [
        { id: "t1", title: "Sales" },
        { id: "t2", title: "Plots" },
        { id: "t3", title: "Maps" },
      ],
      "t1",
    );
    const button = menu.el.querySelector("button.gu-thread-select");
    const list = menu.el.querySelector("[role=listbox]");
    expect(button.getAttribute("aria-haspopup")).toBe("listbox");
    expect(menu.el.querySelector("select")).toBeNull();
    let leaked = 0;
    document.body.addEventListener("keydown", () => leaked++);
    key(button, "ArrowDown");
    expect(list.hidden).toBe(false);
    expect(document.activeElement).toBe(list);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    key(list, "ArrowDown");
    key(list, "ArrowDown");
    expect(list.getAttribute("aria-activedescendant")).toBe(list.children[2].id);
    key(list, "Escape");
    expect(list.hidden).toBe(true);
    expect(document.activeElement).toBe(button);
    expect(sent).toEqual([]);
    key(button, "ArrowDown");
    key(list, "End");
    key(list, "ArrowUp");
    key(list, "Enter");
    expect(sent).toEqual([{ type: "switch_thread", thread_id: "t2" }]);
    expect(list.hidden).toBe(true);
    expect(leaked).toBe(0);
    menu.destroy();
    menu.el.remove();
  });
});
