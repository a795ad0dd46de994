// A running tool's progress (an MCP server's notifications) is a bar on its
// card while it runs; its log lines are in the details, as text; a server's
// images for the user only show in the card as any result image does.
import { describe, expect, it, vi } from "vitest";
import { resultImages } from "../../src/tool-card/result-images.js";
import { createToolCard } from "../../src/tool-card/tool-card.js";

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const running = (extra = {}) => ({
  type: "tool-call",
  tool_call_id: "call_p",
  tool_name: "steps",
  args_text: "{}",
  args: {},
  args_complete: true,
  has_result: false,
  is_error: false,
  approval: null,
  result: null,
  ...extra,
});

const card = () => createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

describe("tool progress", () => {
  it("shows a bar with the reported fraction and text while the call runs, none once answered", () => {
    const c = card();
    c.update(running(), { canAct: false });
    const bar = c.el.querySelector("progress.gu-tool-progress");
    expect(bar.hidden).toBe(true); // nothing reported yet
    c.update(running({ progress: 0.4, status_message: "Step 2 of 5" }), { canAct: false });
    expect(bar.hidden).toBe(false);
    expect(bar.value).toBeCloseTo(0.4);
    expect(bar.getAttribute("aria-label")).toBe("steps: 40%");
    expect(c.el.querySelector(".gu-tool-status").textContent).toBe("Step 2 of 5");
    c.update(running({ progress: 7 }), { canAct: false });
    expect(bar.value).toBe(1); // a server's nonsense is clamped
    c.update(running({ progress: 1, has_result: true, result: "done" }), { canAct: false });
    expect(bar.hidden).toBe(true);
  });

  it("keeps the log lines in the details as text", () => {
    const c = card();
    c.update(running({ log: ["[info] step 1", "<img src=x onerror=alert(1)>"] }), { canAct: false });
    const log = c.el.querySelector(".gu-tool-details .gu-tool-log");
    expect(log.hidden).toBe(false);
    expect(log.textContent).toBe("[info] step 1\n<img src=x onerror=alert(1)>");
    expect(log.querySelector("img")).toBeNull();
    c.update(running(), { canAct: false });
    expect(log.hidden).toBe(true);
  });

  it("shows a result's images for the user only", () => {
    expect(resultImages({ text: "x", for_user: { images: [{ src: PNG }, { src: "https://e.com/a.png" }] } })).toEqual([
      PNG,
    ]);
  });
});
