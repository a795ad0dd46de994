// The approval card of a tool server's tool shows what the server claims
// about it (the call's `approval.note`, set by the kernel), as plain text.
import { describe, expect, it, vi } from "vitest";
import { createToolCard } from "../../src/tool-card/tool-card.js";

const ctx = () => ({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

const pending = (approval) => ({
  type: "tool-call",
  tool_call_id: "call_1",
  tool_name: "peek",
  args_text: "{}",
  args: {},
  args_complete: true,
  has_result: false,
  is_error: false,
  approval,
});

describe("approval note", () => {
  it("shows the server's claims above the buttons, as text", () => {
    const card = createToolCard(ctx());
    const note = "The server says: read-only, destructive (not verified). <img src=x onerror=alert(1)>";
    card.update(pending({ status: "pending", note }), { canAct: true });
    const shown = card.el.querySelector(".gu-approval-note");
    expect(shown?.textContent).toBe(note);
    expect(card.el.querySelector(".gu-approval-note img")).toBeNull();
    expect(card.el.querySelector("button.gu-approve")).not.toBeNull();
  });

  it("adds nothing for a call without a note", () => {
    const card = createToolCard(ctx());
    card.update(pending({ status: "pending" }), { canAct: true });
    expect(card.el.querySelector(".gu-approval-note")).toBeNull();
  });
});
