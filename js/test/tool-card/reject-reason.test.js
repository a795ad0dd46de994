// The reason field beside Reject / Decline: Enter rejects with the reason
// typed, as the button does; its keys never reach the notebook.
import { describe, expect, it, vi } from "vitest";
import { createToolCard } from "../../src/tool-card/tool-card.js";

const ctx = () => ({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

const call = (tool_name, args, extra = {}) => ({
  type: "tool-call",
  tool_call_id: "call_1",
  tool_name,
  args_text: JSON.stringify(args),
  args,
  args_complete: true,
  has_result: false,
  is_error: false,
  approval: { status: "pending" },
  ...extra,
});

/** Types `text` into the card's reason field and presses a key there; whether the key went on. */
function press(card, text, init) {
  const reason = /** @type {HTMLInputElement} */ (card.el.querySelector(".gu-reject-reason"));
  reason.value = text;
  const event = new KeyboardEvent("keydown", { bubbles: true, cancelable: true, ...init });
  const outside = vi.fn();
  document.body.append(card.el);
  document.body.addEventListener("keydown", outside);
  reason.dispatchEvent(event);
  document.body.removeEventListener("keydown", outside);
  card.el.remove();
  return outside.mock.calls.length > 0;
}

describe("the reject reason field", () => {
  it("rejects an approval with its reason on Enter", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(call("drop_table", { name: "users" }), { canAct: true });
    expect(press(card, "  not that table ", { key: "Enter" })).toBe(false);
    expect(c.send).toHaveBeenCalledWith({ type: "reject", tool_call_id: "call_1", reason: "not that table" });
  });

  it("declines a sampling request with its reason on Enter", () => {
    const c = ctx();
    const card = createToolCard(c);
    const sampling = { server: "asking", messages: [{ role: "user", text: "Sum it" }], max_tokens: 50 };
    card.update(call("mcp_sampling", sampling, { synthetic: true }), { canAct: true });
    press(card, "no", { key: "Enter" });
    expect(c.send).toHaveBeenCalledWith({ type: "reject", tool_call_id: "call_1", reason: "no" });
  });

  it("sends nothing for other keys or while an input method composes", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(call("drop_table", { name: "users" }), { canAct: true });
    expect(press(card, "x", { key: "a" })).toBe(false);
    press(card, "x", { key: "Enter", isComposing: true });
    expect(c.send).not.toHaveBeenCalled();
  });
});
