// A closed card prints neither its arguments nor its result: a 1 MB call
// would cost the frame that completes it more than half a second. Opening
// Details prints them; past PRINT_LIMIT only the head is highlighted, and a
// button prints the whole text plain, invisible characters still marked.
import { describe, expect, it, vi } from "vitest";
import { createToolCard, PRINT_LIMIT } from "../../src/tool-card/tool-card.js";

const call = (args, extra = {}) => ({
  type: "tool-call",
  tool_call_id: "call_big",
  tool_name: "save_rows",
  args_text: JSON.stringify(args),
  args,
  args_complete: true,
  has_result: false,
  is_error: false,
  approval: null,
  result: null,
  ...extra,
});

const card = () => createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

function open(c) {
  const details = c.el.querySelector("details.gu-tool-details");
  details.open = true;
  details.dispatchEvent(new Event("toggle"));
}

const rows = (n) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}` })) });

describe("the card's details", () => {
  it("print nothing while closed, and the arguments and result once opened", () => {
    const c = card();
    c.update(call({ city: "Oslo" }, { has_result: true, result: { temp: 3 } }), { canAct: false });
    expect(c.el.querySelector(".gu-tool-args").textContent).toBe("");
    expect(c.el.querySelector(".gu-tool-result").textContent).toBe("");
    open(c);
    expect(c.el.querySelector(".gu-tool-args").textContent).toContain('"city": "Oslo"');
    expect(c.el.querySelector(".gu-tool-result").textContent).toContain('"temp": 3');
    // open, a new result is printed at once
    c.update(call({ city: "Oslo" }, { has_result: true, result: { temp: 4 } }), { canAct: false });
    expect(c.el.querySelector(".gu-tool-result").textContent).toContain('"temp": 4');
  });

  it("print the arguments of a call waiting for approval: they are what the user decides on", () => {
    const c = card();
    c.update(call({ name: "sales" }, { approval: { status: "pending" } }), { canAct: true });
    expect(c.el.querySelector(".gu-tool-args").textContent).toContain('"name": "sales"');
  });

  it("highlight only the head of a big call, and print the whole on a click", () => {
    const args = rows(5_000);
    const whole = JSON.stringify(args, null, 2);
    expect(whole.length).toBeGreaterThan(3 * PRINT_LIMIT);
    const c = card();
    c.update(call(args), { canAct: false });
    open(c);
    const block = c.el.querySelector(".gu-tool-args");
    const more = block.querySelector("button.gu-tool-more");
    expect(more.textContent).toMatch(/^Show all \d+ K characters$/);
    expect(block.textContent.length).toBeLessThanOrEqual(PRINT_LIMIT + 100);
    expect(block.textContent).toContain('"name": "row 0"');
    expect(block.textContent).not.toContain('"name": "row 4999"');
    more.click();
    expect(block.querySelector("button.gu-tool-more")).toBeNull();
    expect(block.querySelector("pre.gu-tool-whole").textContent).toBe(whole);
  });

  it("mark an invisible character in the whole text as in the head", () => {
    const args = rows(5_000);
    args.rows[4_999].name = "row\u202Eend";
    const c = card();
    c.update(call(args), { canAct: false });
    open(c);
    const block = c.el.querySelector(".gu-tool-args");
    expect(block.querySelector(".gu-invisible")).toBeNull(); // not in the head
    block.querySelector("button.gu-tool-more").click();
    expect(block.querySelector(".gu-invisible").title).toContain("U+202E");
  });
});
