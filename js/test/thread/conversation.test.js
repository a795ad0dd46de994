// Conversation controls in jsdom: the action bar, the branch picker, the
// in-place editor, code-block copy, the composer's Esc / Up keys, jump to
// latest, starters and the thread menu.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listenForCodeCopies } from "../../src/common/clipboard.js";
import { createComposer } from "../../src/composer/composer.js";
import { createMarkdownView, renderMarkdown } from "../../src/markdown/markdown.js";
import { createMessageView } from "../../src/thread/message-view.js";
import { createThreadMenu, showsThreadControls } from "../../src/thread/menu.js";
import { createThreadView } from "../../src/thread/view.js";

const key = (el, k, extra = {}) =>
  el.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...extra }));

const ctx = (extra = {}) => ({ send: vi.fn(), notify: vi.fn(), isHuman: () => false, ...extra });

const user = (extra = {}) => ({
  id: "u1",
  role: "user",
  parts: [{ type: "text", text: "first question" }],
  status: { type: "complete" },
  ...extra,
});
const reply = (extra = {}) => ({
  id: "a1",
  role: "assistant",
  parts: [{ type: "text", text: "Here is **code**:\n\n```python\nprint(1)\n```\n" }],
  status: { type: "complete" },
  metadata: {},
  ...extra,
});

const byLabel = (el, label) => el.querySelector(`[aria-label="${label}"]`);
const idle = { isLast: true, running: false };

let clipboard;
beforeEach(() => {
  clipboard = { writeText: vi.fn(async () => {}) };
  Object.defineProperty(navigator, "clipboard", { value: clipboard, configurable: true });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("action bar", () => {
  it("a user message offers copy and edit; a reply copy, regenerate and thumbs", () => {
    const u = createMessageView(ctx());
    u.update(user(), idle);
    const a = createMessageView(ctx());
    a.update(reply(), idle);
    const shown = (v) =>
      [...v.el.querySelectorAll(".gu-actions button")]
        .filter((b) => !b.hidden && !b.closest("[hidden]"))
        .map((b) => b.getAttribute("aria-label"));
    expect(shown(u)).toEqual(["Copy message", "Edit message"]);
    expect(shown(a)).toEqual(["Copy message", "Regenerate reply", "Good reply", "Bad reply"]);
  });

  it("is hidden while its message streams, and made once, not per frame", () => {
    const v = createMessageView(ctx());
    v.update(reply({ status: { type: "running" } }), { isLast: true, running: true });
    const bar = v.el.querySelector(".gu-actions");
    expect(bar.hidden).toBe(true);
    const observer = new MutationObserver(() => {});
    observer.observe(bar, { subtree: true, childList: true, attributes: true, characterData: true });
    for (let i = 0; i < 5; i++) {
      v.update(reply({ status: { type: "running" }, parts: [{ type: "text", text: `word ${i}` }] }), {
        isLast: true,
        running: true,
      });
    }
    expect(observer.takeRecords()).toEqual([]); // streaming frames leave the bar alone
    observer.disconnect();
    v.update(reply(), idle);
    expect(v.el.querySelector(".gu-actions")).toBe(bar);
    expect(bar.hidden).toBe(false);
  });

  it("copy puts the message's markdown on the clipboard and says so", async () => {
    const v = createMessageView(ctx());
    v.update(reply(), idle);
    const copy = byLabel(v.el, "Copy message");
    copy.click();
    await vi.waitFor(() => expect(clipboard.writeText).toHaveBeenCalled());
    expect(clipboard.writeText).toHaveBeenCalledWith(reply().parts[0].text);
    // an icon button keeps its icon; its name says it
    await vi.waitFor(() => expect(copy.getAttribute("aria-label")).toBe("Copied"));
  });

  it("regenerate and thumbs send their messages; a second press takes a rating back", () => {
    const c = ctx();
    const v = createMessageView(c);
    v.update(reply(), idle);
    byLabel(v.el, "Regenerate reply").click();
    byLabel(v.el, "Good reply").click();
    expect(c.send.mock.calls.map((x) => x[0])).toEqual([
      { type: "regenerate", message_id: "a1" },
      { type: "feedback", message_id: "a1", rating: "up" },
    ]);
    v.update(reply({ metadata: { feedback: { rating: "up", comment: null } } }), idle);
    expect(byLabel(v.el, "Good reply").getAttribute("aria-pressed")).toBe("true");
    expect(byLabel(v.el, "Bad reply").getAttribute("aria-pressed")).toBe("false");
    byLabel(v.el, "Good reply").click();
    expect(c.send).toHaveBeenLastCalledWith({ type: "feedback", message_id: "a1", rating: null });
  });

  it("edit and regenerate stay enabled while another reply streams (the kernel stops it)", () => {
    const v = createMessageView(ctx());
    v.update(user(), { isLast: false, running: true });
    expect(byLabel(v.el, "Edit message").disabled).toBe(false);
  });
});

describe("branch picker", () => {
  it("shows ‹ 2 / 3 › and steps between versions, stopping at the ends", () => {
    const c = ctx();
    const v = createMessageView(c);
    v.update(user(), idle);
    expect(v.el.querySelector(".gu-branch-picker").hidden).toBe(true); // one version: no picker
    v.update(user({ branch: { index: 1, count: 3 } }), idle);
    const picker = v.el.querySelector(".gu-branch-picker");
    expect(picker.hidden).toBe(false);
    expect(picker.textContent).toBe("2 / 3");
    byLabel(v.el, "Previous version").click();
    byLabel(v.el, "Next version").click();
    expect(c.send.mock.calls.map((x) => x[0])).toEqual([
      { type: "switch_branch", message_id: "u1", index: 0 },
      { type: "switch_branch", message_id: "u1", index: 2 },
    ]);
    v.update(user({ branch: { index: 2, count: 3 } }), idle);
    expect(byLabel(v.el, "Next version").disabled).toBe(true);
    expect(byLabel(v.el, "Previous version").disabled).toBe(false);
  });

  it("ignores a malformed branch field", () => {
    const v = createMessageView(ctx());
    for (const branch of [{ index: 3, count: 3 }, { index: "1", count: 2 }, null, { index: -1, count: 2 }]) {
      v.update(user({ branch }), idle);
      expect(v.el.querySelector(".gu-branch-picker").hidden).toBe(true);
    }
  });
});

describe("editing a user message", () => {
  it("Edit opens the text in place; Enter sends it; the editor stays until closed", () => {
    const sendEdit = vi.fn();
    const v = createMessageView(ctx({ sendEdit }));
    v.update(user(), idle);
    byLabel(v.el, "Edit message").click();
    const box = byLabel(v.el, "Edit your message");
    expect(box.value).toBe("first question");
    expect(v.el.querySelector(".gu-parts").hidden).toBe(true);
    box.value = "second question";
    key(box, "Enter");
    expect(sendEdit).toHaveBeenCalledWith("u1", "second question");
    expect(v.editing).toBe(true); // until the kernel takes it
    v.closeEditor();
    expect(v.editing).toBe(false);
    expect(v.el.querySelector(".gu-parts").hidden).toBe(false);
  });

  it("Esc cancels and keeps the message as it was; blank text is not sent", () => {
    const sendEdit = vi.fn();
    const v = createMessageView(ctx({ sendEdit }));
    document.body.append(v.el);
    v.update(user(), idle);
    v.edit();
    const box = byLabel(v.el, "Edit your message");
    box.value = "   ";
    key(box, "Enter");
    expect(sendEdit).not.toHaveBeenCalled();
    key(box, "Escape");
    expect(v.editing).toBe(false);
    expect(v.el.querySelector(".gu-text").textContent.trim()).toBe("first question");
    expect(document.activeElement).toBe(byLabel(v.el, "Edit message")); // the focus goes back
  });
});

describe("code blocks", () => {
  it("each code block gets a Copy code button; the code's text stays the code", () => {
    const el = document.createElement("div");
    createMarkdownView(el).update("a\n\n```python\nprint(1)\n```\n\n```\nx = 2\n```\n");
    const buttons = el.querySelectorAll("button.gu-copy-code");
    expect(buttons.length).toBe(2);
    expect([...el.querySelectorAll("pre")].map((p) => p.textContent)).toEqual(["print(1)", "x = 2"]);
    // the one-shot render gives the same markup
    expect(renderMarkdown("a\n\n```python\nprint(1)\n```\n\n```\nx = 2\n```\n")).toBe(el.innerHTML);
  });

  it("a click copies that block's code and shows Copied, then Copy again", async () => {
    vi.useFakeTimers();
    const root = document.createElement("div");
    document.body.append(root);
    const stop = listenForCodeCopies(root);
    createMarkdownView(root).update("```python\nprint(1)\n```\n\n```\nx = 2\n```\n");
    const second = root.querySelectorAll("button.gu-copy-code")[1];
    second.click();
    await vi.waitFor(() => expect(second.textContent).toBe("Copied"));
    expect(clipboard.writeText).toHaveBeenCalledWith("x = 2");
    expect(second.getAttribute("aria-label")).toBe("Copied");
    vi.advanceTimersByTime(2000);
    expect(second.textContent).toBe("Copy");
    expect(second.getAttribute("aria-label")).toBe("Copy code");
    stop();
    root.remove();
  });

  it("a button the model wrote is not ours: it is stripped, and copies nothing", () => {
    const el = document.createElement("div");
    createMarkdownView(el).update('<button class="gu-copy-code">Copy</button> text');
    expect(el.querySelector("button")).toBeNull();
  });
});

describe("composer keys", () => {
  it("Esc leaves the box and lets JupyterLab read the key", () => {
    const notebook = document.createElement("div");
    notebook.className = "jp-Notebook";
    notebook.tabIndex = 0;
    const c = createComposer({ onSend: vi.fn(), onStop: vi.fn() });
    notebook.append(c.el);
    document.body.append(notebook);
    const seen = vi.fn();
    notebook.addEventListener("keydown", seen);
    c.input.focus();
    key(c.input, "Escape");
    expect(document.activeElement).toBe(notebook);
    expect(seen).toHaveBeenCalledOnce(); // other keys stay in the box
    key(c.input, "a");
    expect(seen).toHaveBeenCalledOnce();
    notebook.remove();
  });

  it("Up in an empty box edits the last user message; with text it moves the caret", () => {
    const onEditLast = vi.fn(() => true);
    const c = createComposer({ onSend: vi.fn(), onStop: vi.fn(), onEditLast });
    c.input.value = "draft";
    key(c.input, "ArrowUp");
    expect(onEditLast).not.toHaveBeenCalled();
    c.input.value = "";
    const handled = !key(c.input, "ArrowUp");
    expect(onEditLast).toHaveBeenCalledOnce();
    expect(handled).toBe(true);
  });

  it("the thread opens the editor on its last user message", () => {
    const view = createThreadView(ctx());
    view.render([user(), reply(), user({ id: "u2", parts: [{ type: "text", text: "again" }] }), reply({ id: "a2" })], {
      running: false,
    });
    expect(view.editLastUser()).toBe(true);
    const box = byLabel(view.el, "Edit your message");
    expect(box.value).toBe("again");
    expect(box.closest(".gu-message").dataset.messageId).toBe("u2");
    expect(createThreadView(ctx()).editLastUser()).toBe(false);
  });
});

describe("jump to latest", () => {
  function scrollable(view, { top }) {
    Object.defineProperty(view.el, "scrollHeight", { value: 1000, configurable: true });
    Object.defineProperty(view.el, "clientHeight", { value: 200, configurable: true });
    view.el.scrollTop = top;
    view.el.dispatchEvent(new Event("scroll"));
  }

  it("shows while a reply streams and the user scrolled up; a click goes back to the end", () => {
    const view = createThreadView(ctx());
    const jump = view.el.querySelector("button.gu-jump");
    view.render([user(), reply({ status: { type: "running" } })], { running: true });
    expect(jump.hidden).toBe(true); // following the stream
    scrollable(view, { top: 100 });
    expect(jump.hidden).toBe(false);
    expect(jump.textContent).toContain("Jump to latest");
    jump.click();
    expect(view.el.scrollTop).toBe(1000);
    expect(jump.hidden).toBe(true);
  });

  it("stays hidden when nothing streams", () => {
    const view = createThreadView(ctx());
    view.render([user(), reply()], { running: false });
    scrollable(view, { top: 100 });
    expect(view.el.querySelector("button.gu-jump").hidden).toBe(true);
  });
});

describe("starters", () => {
  it("an empty thread offers its starters; a click sends one; they go with the first message", () => {
    const sendStarter = vi.fn();
    const view = createThreadView(ctx({ sendStarter }));
    view.render([], { running: false, starters: ["Plot sales", "Explain this"] });
    const group = view.el.querySelector('[aria-label="Conversation starters"]');
    expect([...group.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Plot sales", "Explain this"]);
    group.querySelector("button").click();
    expect(sendStarter).toHaveBeenCalledWith("Plot sales");
    view.render([user()], { running: true, starters: ["Plot sales"] });
    expect(view.el.querySelector(".gu-empty").hidden).toBe(true);
    // gone, not just hidden: a follow-up chip of the same text is the only one there
    expect(group.querySelectorAll("button")).toHaveLength(0);
  });
});

describe("thread menu", () => {
  const threads = [
    { id: "t1", title: "Sales questions" },
    { id: "t2", title: "Plots" },
  ];

  it("lists the threads by title, switches, and starts a new one", () => {
    const c = ctx();
    const menu = createThreadMenu(c);
    menu.update([], "");
    expect(menu.el.hidden).toBe(true); // no thread listed: no menu
    menu.update(threads, "t1");
    expect(menu.el.hidden).toBe(false);
    const button = menu.el.querySelector("button.gu-thread-select");
    // named by the title it shows, after a hidden "Thread:" (label in name, WCAG 2.5.3)
    expect(button.hasAttribute("aria-label")).toBe(false);
    expect(button.querySelector(".gu-sr-only").textContent).toBe("Thread: ");
    const options = [...menu.el.querySelectorAll("[role=option]")];
    expect(options.map((o) => o.textContent)).toEqual(["Sales questions", "Plots"]);
    expect(options.map((o) => o.getAttribute("aria-selected"))).toEqual(["true", "false"]);
    expect(button.querySelector(".gu-thread-picker-name").textContent).toBe("Sales questions");
    button.click();
    options[1].click();
    byLabel(menu.el, "New thread").click();
    byLabel(menu.el, "Download transcript").click();
    expect(c.send.mock.calls.map((x) => x[0])).toEqual([
      { type: "switch_thread", thread_id: "t2" },
      { type: "new_thread" },
      { type: "transcript" },
    ]);
  });

  it("a chat of one unsaved thread has no thread controls; a saved one has them", () => {
    const menu = createThreadMenu(ctx());
    const one = [threads[0]];
    const shown = () => !menu.el.hidden;
    const canStartNew = () => shown() && !byLabel(menu.el, "New thread").hidden;
    menu.update(one, "t1");
    expect(shown()).toBe(false); // no list, Rename, New or download for a single chat
    menu.update(one, "t1", "folder"); // persist= a folder: named, and more threads may come
    expect(shown()).toBe(true);
    expect(canStartNew()).toBe(true);
    menu.update(one, "t1", "file"); // persist= a file keeps one thread: no New
    expect(shown()).toBe(true);
    expect(canStartNew()).toBe(false);
    expect(byLabel(menu.el, "Rename thread").hidden).toBe(false);
    menu.update(threads, "t1"); // a second thread (from code): the controls show
    expect(canStartNew()).toBe(true);
    expect(showsThreadControls(one, "")).toBe(false);
  });

  it("renames the current thread: Enter saves, Esc does not", () => {
    const c = ctx();
    const menu = createThreadMenu(c);
    document.body.append(menu.el);
    menu.update(threads, "t2");
    byLabel(menu.el, "Rename thread").click();
    const title = byLabel(menu.el, "Thread title");
    expect(title.value).toBe("Plots");
    title.value = "Sales plots";
    key(title, "Enter");
    expect(c.send).toHaveBeenCalledWith({ type: "rename_thread", thread_id: "t2", title: "Sales plots" });
    expect(title.hidden).toBe(true);
    byLabel(menu.el, "Rename thread").click();
    title.value = "never";
    key(title, "Escape");
    expect(c.send).toHaveBeenCalledTimes(1);
    menu.el.remove();
  });
});

describe("kernel answers of the conversation controls", () => {
  it("reads a transcript and an accepted edit; drops malformed ones", async () => {
    const { readServerMessage } = await import("../../src/protocol.js");
    expect(readServerMessage({ type: "transcript", markdown: "# x", filename: "x.md" })).not.toBeNull();
    expect(readServerMessage({ type: "accepted", request: "edit", ref: "v-1" })).not.toBeNull();
    for (const bad of [
      { type: "transcript", markdown: 3, filename: "x.md" },
      { type: "transcript", markdown: "# x" },
      { type: "accepted", request: "feedback" },
    ]) {
      expect(readServerMessage(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
