import { describe, expect, it, vi } from "vitest";
import { createComposer } from "../../src/composer/composer.js";
import { footerText, runFooter } from "../../src/thread/footer.js";
import { createMessageView, errorText } from "../../src/thread/message-view.js";
import { createSuggestions } from "../../src/thread/suggestions.js";
import { createToolCard, displayArgs, statusLine } from "../../src/tool-card/tool-card.js";

const key = (el, k, extra = {}) =>
  el.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...extra }));

function ctx(overrides = {}) {
  return { send: vi.fn(), notify: vi.fn(), isHuman: () => false, ...overrides };
}

const call = (extra = {}) => ({
  type: "tool-call",
  tool_call_id: "call_1",
  tool_name: "drop_table",
  args_text: '{"_status_message": "dropping sales", "name": "sales"}',
  args: { name: "sales" },
  args_complete: true,
  has_result: false,
  is_error: false,
  approval: null,
  status_message: "dropping sales",
  completion_status_message: null,
  ...extra,
});

describe("composer", () => {
  it("Enter sends, Shift+Enter does not; the box clears only when told", () => {
    const onSend = vi.fn();
    const c = createComposer({ onSend, onStop: vi.fn() });
    c.input.value = "line one";
    key(c.input, "Enter", { shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    key(c.input, "Enter");
    expect(onSend).toHaveBeenCalledWith("line one", []);
    expect(c.input.value).toBe("line one"); // the kernel has not taken it yet
    c.clear("line one");
    expect(c.input.value).toBe("");
  });

  it("shows stop only while running; stop calls onStop; blank text is not sent", () => {
    const onStop = vi.fn();
    const onSend = vi.fn();
    const c = createComposer({ onSend, onStop });
    const stop = c.el.querySelector("button.gu-stop");
    expect(stop.hidden).toBe(true);
    c.update(true);
    expect(stop.hidden).toBe(false);
    expect(c.el.querySelector("button.gu-send").disabled).toBe(true);
    stop.click();
    expect(onStop).toHaveBeenCalledOnce();
    c.update(false);
    c.input.value = "   ";
    c.el.querySelector("button.gu-send").click();
    expect(onSend).not.toHaveBeenCalled();
  });
});

describe("tool card", () => {
  it("parses streamed args_text and hides standard parameters", () => {
    const part = call({ args: {}, args_complete: false, args_text: '{"_status_message": "x", "name": "sal', _args_streaming: true });
    expect(displayArgs(part, ["_status_message", "_completion_status_message"])).toEqual({ name: "sal" });
  });

  it("status line follows the call's life", () => {
    expect(statusLine(call())).toBe("dropping sales");
    expect(statusLine(call({ status_message: null }))).toBe("Running…");
    expect(statusLine(call({ approval: { status: "pending" } }))).toBe("Waiting for your approval");
    expect(statusLine(call({ has_result: true, completion_status_message: "dropped sales" }))).toBe("dropped sales");
    expect(statusLine(call({ has_result: true, is_error: true }))).toBe("Failed");
    expect(
      statusLine(call({ has_result: true, is_error: true, approval: { status: "rejected", reason: "no" } })),
    ).toBe("Rejected: no");
  });

  it("a pending approval sends approve / always / reject with the reason", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(call({ approval: { status: "pending" } }), { canAct: true });
    expect(card.el.dataset.toolCallId).toBe("call_1");
    expect(card.el.dataset.toolName).toBe("drop_table");
    card.el.querySelector("button.gu-approve").click();
    expect(c.send).toHaveBeenLastCalledWith({ type: "approve", tool_call_id: "call_1", args: null });
    card.el.querySelector("button.gu-always").click();
    expect(c.send).toHaveBeenLastCalledWith({ type: "always", tool_call_id: "call_1", args: null });
    card.el.querySelector(".gu-reject-reason").value = "not on a Friday";
    card.el.querySelector("button.gu-reject").click();
    expect(c.send).toHaveBeenLastCalledWith({ type: "reject", tool_call_id: "call_1", reason: "not on a Friday" });
  });

  it("edited arguments go with the approval; invalid JSON is refused locally", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(call({ approval: { status: "pending" } }), { canAct: true });
    const editor = card.el.querySelector("textarea.gu-args-editor");
    expect(JSON.parse(editor.value)).toEqual({ name: "sales" });
    editor.value = '{"name": "staging"}';
    card.el.querySelector("button.gu-approve").click();
    expect(c.send).toHaveBeenLastCalledWith({ type: "approve", tool_call_id: "call_1", args: { name: "staging" } });
    editor.value = "{nope";
    c.send.mockClear();
    card.el.querySelector("button.gu-approve").click();
    expect(c.send).not.toHaveBeenCalled();
    expect(c.notify).toHaveBeenCalled();
  });

  it("edits survive re-renders while the call stays pending, controls go when decided", () => {
    const card = createToolCard(ctx());
    card.update(call({ approval: { status: "pending" } }), { canAct: true });
    card.el.querySelector("textarea.gu-args-editor").value = "edited";
    card.update(call({ approval: { status: "pending" } }), { canAct: true });
    expect(card.el.querySelector("textarea.gu-args-editor").value).toBe("edited");
    card.update(call({ approval: { status: "approved" } }), { canAct: false });
    expect(card.el.querySelector("button.gu-approve")).toBeNull();
  });

  it("a human tool shows an input whose answer becomes the result", () => {
    const c = ctx({ isHuman: (n) => n === "ask_user" });
    const card = createToolCard(c);
    card.update(call({ tool_name: "ask_user", args: { question: "Which table?" } }), { canAct: true });
    expect(card.el.textContent).toContain("Which table?");
    const input = card.el.querySelector(".gu-human-input");
    input.value = "orders";
    card.el.querySelector("button.gu-human-submit").click();
    expect(c.send).toHaveBeenCalledWith({ type: "tool_result", tool_call_id: "call_1", result: "orders" });
    card.update(call({ tool_name: "ask_user", has_result: true, result: "orders" }), { canAct: false });
    expect(card.el.querySelector(".gu-human-input")).toBeNull();
  });
});

describe("message view", () => {
  const assistant = (extra = {}) => ({
    id: "m1",
    role: "assistant",
    parts: [
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "**hi** <img src=x onerror=alert(1)>" },
    ],
    status: { type: "complete", reason: "stop" },
    metadata: { started_at: 10, ended_at: 12.5, usage: { input_tokens: 7, output_tokens: 5 } },
    ...extra,
  });

  it("renders parts, data attributes, footer", () => {
    const v = createMessageView(ctx());
    v.update(assistant(), { isLast: true, running: false });
    expect(v.el.dataset.role).toBe("assistant");
    expect(v.el.dataset.status).toBe("complete");
    expect(v.el.dataset.messageId).toBe("m1");
    expect(v.el.querySelector("details.gu-reasoning")).not.toBeNull();
    expect(v.el.querySelector(".gu-text strong").textContent).toBe("hi");
    expect(v.el.querySelector(".gu-text img").getAttribute("onerror")).toBeNull();
    expect(v.el.querySelector(".gu-footer").textContent).toBe("12 tokens (7 in, 5 out) · 2.5 s");
    expect(v.el.querySelector(".gu-error")).toBeNull();
  });

  it("reasoning without text (encrypted, kept for the provider) shows nothing", () => {
    const v = createMessageView(ctx());
    const message = assistant({ parts: [{ type: "reasoning", text: "" }, { type: "text", text: "hi" }] });
    v.update(message, { isLast: true, running: false });
    expect(v.el.querySelector("details.gu-reasoning").hidden).toBe(true);
    message.parts[0] = { type: "reasoning", text: "now some" };
    v.update({ ...message }, { isLast: true, running: false });
    expect(v.el.querySelector("details.gu-reasoning").hidden).toBe(false);
  });

  it("an incomplete last message shows its error and a retry button", () => {
    const c = ctx();
    const v = createMessageView(c);
    v.update(assistant({ status: { type: "incomplete", reason: "error", error: "rate limited" } }), {
      isLast: true,
      running: false,
    });
    expect(v.el.querySelector(".gu-error").textContent).toContain("rate limited");
    v.el.querySelector("button.gu-retry").click();
    expect(c.send).toHaveBeenCalledWith({ type: "retry" });
    v.update(assistant({ status: { type: "incomplete", reason: "cancelled" } }), { isLast: false, running: false });
    expect(v.el.querySelector("button.gu-retry").hidden).toBe(true);
  });

  it("renders the user's text as sanitized markdown: fences are code, scripts are gone", () => {
    const v = createMessageView(ctx());
    const text = "Run this python\n```python\nprint(1)\n```\nx <img src=x onerror=alert(1)> **y**\nnext line";
    v.update({ id: "u", role: "user", parts: [{ type: "text", text }], status: { type: "complete" } }, { isLast: false, running: false });
    const bubble = v.el.querySelector(".gu-bubble");
    expect(bubble.querySelector("pre.gu-code code").textContent).toBe("print(1)");
    expect(bubble.textContent).not.toContain("```");
    expect(bubble.querySelector("strong").textContent).toBe("y");
    expect(bubble.querySelector("[onerror]")).toBeNull();
    // the HTML the user typed reads as they typed it: no image, no Load button
    expect(bubble.textContent).toContain("x <img src=x onerror=alert(1)> y");
    expect(bubble.querySelector("img, button.gu-load-image, .gu-held")).toBeNull();
    // the line break the user typed stays in the text (widget.css shows it)
    expect(bubble.querySelector("p:last-of-type").textContent).toContain("\nnext line");
  });

  it("shows a summarized user message as its line, the text behind Details", () => {
    const v = createMessageView(ctx());
    const text = 'Pressed a button on an A2UI surface.\n\n```json\n{"version": "v0.9"}\n```';
    const user = (metadata) => ({ id: "u", role: "user", parts: [{ type: "text", text }], status: { type: "complete" }, metadata });
    v.update(user({ summary: "Pressed Join: name, email, digest off" }), { isLast: false, running: false });
    const bubble = v.el.querySelector(".gu-bubble");
    expect(bubble.firstElementChild.textContent).toBe("Pressed Join: name, email, digest off");
    const details = bubble.querySelector("details.gu-user-details");
    expect(details.open).toBe(false);
    expect(details.querySelector("summary").textContent).toBe("Details");
    expect(details.querySelector("pre.gu-code").textContent).toContain('"version": "v0.9"');
    // the same text without a summary: shown whole, no disclosure
    v.update(user({}), { isLast: false, running: false });
    expect(bubble.querySelector("details, .gu-user-summary")).toBeNull();
    expect(bubble.querySelector(".gu-parts pre.gu-code")).not.toBeNull();
    // an assistant's metadata never summarizes its text
    v.update({ ...user({ summary: "x" }), role: "assistant" }, { isLast: false, running: false });
    expect(bubble.querySelector(".gu-user-summary")).toBeNull();
  });

  it("updates a streaming text part in place", () => {
    const v = createMessageView(ctx());
    const m = { id: "m1", role: "assistant", parts: [{ type: "text", text: "Hel" }], status: { type: "running" }, metadata: {} };
    v.update(m, { isLast: true, running: true });
    const textEl = v.el.querySelector(".gu-text");
    m.parts[0].text = "Hello";
    v.update(m, { isLast: true, running: true });
    expect(v.el.querySelector(".gu-text")).toBe(textEl);
    expect(textEl.textContent.trim()).toBe("Hello");
    expect(v.el.querySelector(".gu-footer").hidden).toBe(true);
  });
});

describe("small pieces", () => {
  it("errorText explains each incomplete reason", () => {
    expect(errorText({ type: "complete" })).toBe("");
    expect(errorText({ type: "incomplete", reason: "cancelled" })).toBe("Stopped.");
    expect(errorText({ type: "incomplete", reason: "length" })).toContain("length");
  });

  it("footer needs a finished assistant message", () => {
    expect(runFooter({ role: "user", metadata: { ended_at: 1 } })).toBeNull();
    expect(runFooter({ role: "assistant", metadata: { started_at: 1 } })).toBeNull();
    expect(footerText({ seconds: 1.23 })).toBe("1.2 s");
  });

  it("suggestion chips send their text and hide while running", () => {
    const pick = vi.fn();
    const s = createSuggestions(pick);
    s.update(["Tell me more", "Show a chart"], true);
    const chips = s.el.querySelectorAll("button.gu-suggestion");
    expect(chips).toHaveLength(2);
    chips[1].click();
    expect(pick).toHaveBeenCalledWith("Show a chart");
    s.update(["Tell me more"], false);
    expect(s.el.hidden).toBe(true);
  });
});
