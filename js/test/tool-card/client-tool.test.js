// A call of a tool an AG-UI client declared waits for that client, not for
// the notebook: its card says so (the kernel's status text) and offers
// nothing to click; the header says who it waits for.
import { describe, expect, it, vi } from "vitest";
import { createToolCard } from "../../src/tool-card/tool-card.js";
import { liveActivity, phaseText } from "../../src/widget.js";

const WAITS = "Waiting for the AG-UI client to answer";
const call = {
  type: "tool-call",
  tool_call_id: "c1",
  tool_name: "browser_confirm",
  args_text: '{"question": "Delete it?"}',
  args: { question: "Delete it?" },
  args_complete: true,
  has_result: false,
  is_error: false,
  status_message: WAITS,
};
const waiting = (parts) => [{ id: "a", role: "assistant", status: { type: "requires-action" }, parts }];
const humans = (...names) => (name) => names.includes(name);

describe("a call the AG-UI client answers", () => {
  it("says who answers it and has no buttons or form", () => {
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: humans("ask_user") });
    card.update(call, { canAct: true });
    expect(card.el.querySelector(".gu-tool-status")?.textContent).toBe(WAITS);
    expect(card.el.querySelector(".gu-tool-controls")?.childElementCount).toBe(0);
    // nothing to approve, answer or send (the arguments print, with their copy button, in the open Details only)
    expect([...card.el.querySelectorAll("button, input, textarea, select")].map((b) => b.className)).toEqual([]);
  });

  it("makes the header wait for the client, not for the user", () => {
    const header = (parts, isHuman) => phaseText(liveActivity("waiting", waiting(parts), isHuman), "");
    expect(header([call], humans("ask_user"))).toBe("Waiting for the AG-UI client");
    const ask = { ...call, tool_call_id: "h1", tool_name: "ask_user", status_message: undefined };
    expect(header([call, ask], humans("ask_user"))).toBe("Waiting for your answer"); // the user has one to give
    expect(header([{ ...call, approval: { status: "pending" } }], humans())).toBe("Waiting for your approval");
  });
});
