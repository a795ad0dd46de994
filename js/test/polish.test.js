// What a new user sees: components standing as themselves, the header saying
// what happens, no finished-run footer on a waiting message, a warning before
// a send rejects a waiting call, readable error and result texts, tables.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createComponentContext } from "../src/components/slot.js";
import { cellText, numericColumns } from "../src/components/table.js";
import { createComposer } from "../src/composer/composer.js";
import { createMessageView } from "../src/thread/message-view.js";
import { createToolCard, statusLine } from "../src/tool-card/tool-card.js";
import { headerModelName, liveActivity, phaseText } from "../src/widget.js";
import { loadHighlighter } from "./helpers/load-highlighter.js";

// Code colouring is loaded on demand (src/markdown/highlighter.js); these tests see it loaded.
beforeAll(loadHighlighter);

function ctx(overrides = {}) {
  return { send: vi.fn(), notify: vi.fn(), isHuman: () => false, ...overrides };
}

const componentCall = (extra = {}) => ({
  type: "tool-call",
  tool_call_id: "c1",
  tool_name: "show_component_Markdown",
  args_text: '{"text": "hi"}',
  args: { text: "hi" },
  args_complete: true,
  has_result: true,
  result: "shown",
  is_error: false,
  approval: null,
  component_call: { component: "Markdown", component_id: "c1" },
  ...extra,
});

describe("a tool call's status", () => {
  it("is the card's data-status, the word messages use (state is the agent's shared state)", () => {
    const card = createToolCard(ctx());
    const call = (extra) => componentCall({ tool_name: "get_weather", component_call: undefined, ...extra });
    card.update(call({ has_result: false, approval: { status: "pending" } }), { canAct: false });
    expect(card.el.dataset.status).toBe("approval");
    expect(card.el.hasAttribute("data-state")).toBe(false);
    card.update(call({ has_result: true, is_error: true, result: "boom" }), { canAct: false });
    expect(card.el.dataset.status).toBe("error");
  });
});

describe("a component stands as itself", () => {
  it("its card has no 'Called show_component_…' line and its details stay folded", () => {
    const components = createComponentContext({ send: vi.fn() });
    const card = createToolCard(ctx({ components }));
    card.update(componentCall(), { canAct: false });
    expect(card.el.classList.contains("gu-tool-call-ui")).toBe(true);
    expect(card.el.querySelector(".gu-tool-head").hidden).toBe(true);
    expect(card.el.querySelector("details").open).toBe(false);
    expect(card.el.querySelector(".gu-component")).not.toBeNull();
  });

  it("a non-UI tool keeps its status line", () => {
    const card = createToolCard(ctx());
    card.update(componentCall({ tool_name: "get_weather", component_call: undefined, completion_status_message: null }), {
      canAct: false,
    });
    expect(card.el.classList.contains("gu-tool-call-ui")).toBe(false);
    expect(card.el.querySelector(".gu-tool-head").hidden).toBe(false);
    expect(card.el.querySelector(".gu-tool-status").textContent).toBe("Done");
  });
});

describe("the header says what is happening", () => {
  const running = (parts) => [{ id: "a", role: "assistant", status: { type: "running" }, parts }];
  it("writing while text streams, thinking before, a tool while one runs", () => {
    expect(liveActivity("thinking", running([{ type: "text", text: "Hel" }]))).toBe("writing");
    expect(liveActivity("thinking", running([{ type: "reasoning", text: "hm" }]))).toBe("thinking");
    expect(liveActivity("thinking", running([]))).toBe("thinking");
    expect(liveActivity("running-tool", running([{ type: "text", text: "x" }]))).toBe("running-tool");
    expect(phaseText("writing", "")).toBe("Writing…");
    expect(phaseText("waiting", "")).toBe("Waiting for you");
  });

  it("names the offline demo once: the badge, not also the model name", () => {
    expect(headerModelName("offline demo", true)).toBe("");
    expect(headerModelName("gpt-4o-mini", false)).toBe("gpt-4o-mini");
    // a replay is offline too, and keeps its own name ("Replay of <model> (recorded <date>)")
    expect(headerModelName("Replay of smollm2 (recorded 2026-12-02)", true)).toBe("Replay of smollm2 (recorded 2026-12-02)");
  });
});

describe("a message waiting for the user", () => {
  it("shows no finished-run footer", () => {
    const v = createMessageView(ctx());
    v.update(
      {
        id: "m",
        role: "assistant",
        parts: [{ type: "text", text: "needs approval" }],
        status: { type: "requires-action" },
        metadata: { started_at: 1, ended_at: 2 },
      },
      { isLast: true, running: false },
    );
    expect(v.el.querySelector(".gu-footer").hidden).toBe(true);
  });
});

describe("sending while a call waits", () => {
  it("warns first, says what happens, sends on confirm", () => {
    const onSend = vi.fn();
    const c = createComposer({ onSend, onStop: vi.fn(), warnBeforeSend: () => "drop_table waits: sending rejects it." });
    c.input.value = "hello";
    c.el.querySelector("button.gu-send").click();
    expect(onSend).not.toHaveBeenCalled();
    const warning = c.el.querySelector(".gu-composer-warning");
    expect(warning.hidden).toBe(false);
    expect(warning.textContent).toContain("sending rejects it");
    warning.querySelector("button.gu-send-anyway").click();
    expect(onSend).toHaveBeenCalledWith("hello", []);
    expect(warning.hidden).toBe(true);
  });

  it("sends at once when nothing waits", () => {
    const onSend = vi.fn();
    const c = createComposer({ onSend, onStop: vi.fn(), warnBeforeSend: () => null });
    c.input.value = "hello";
    c.el.querySelector("button.gu-send").click();
    expect(onSend).toHaveBeenCalledWith("hello", []);
  });
});

describe("error and result texts", () => {
  it("a failing tool shows its error message", () => {
    const part = componentCall({
      tool_name: "get_weather",
      component_call: undefined,
      is_error: true,
      result: { error: "get_weather raised ValueError: no station for Atlantis" },
    });
    expect(statusLine(part)).toBe("get_weather raised ValueError: no station for Atlantis");
    const card = createToolCard(ctx());
    card.update(part, { canAct: false });
    expect(card.el.querySelector(".gu-tool-traceback")).toBeNull();
    card.update({ ...part, result: { ...part.result }, traceback: "Traceback (most recent call last):\n  boom" }, {
      canAct: false,
    });
    const fold = card.el.querySelector("details.gu-tool-traceback");
    expect(fold.open).toBe(false);
    expect(fold.textContent).toContain("most recent call last");
  });

  it("arguments and result are formatted the same: highlighted JSON under headings", () => {
    const card = createToolCard(ctx());
    card.update(
      componentCall({ tool_name: "get_weather", component_call: undefined, args: { city: "Paris" }, result: { temp: 21 } }),
      { canAct: false },
    );
    const details = card.el.querySelector("details.gu-tool-details");
    details.open = true; // printed when the user opens them
    details.dispatchEvent(new Event("toggle"));
    // the Log heading is there but hidden until a server sends log lines
    const labels = [...card.el.querySelectorAll(".gu-tool-label")].filter((l) => !l.hidden).map((l) => l.textContent);
    expect(labels).toEqual(["Arguments", "Result"]);
    for (const sel of [".gu-tool-args", ".gu-tool-result"]) {
      const block = card.el.querySelector(sel);
      expect(block.querySelector("code.hljs, code.language-json")).not.toBeNull();
      expect(block.querySelector(".hljs-attr")).not.toBeNull();
    }
    expect(card.el.querySelector(".gu-tool-result").textContent).not.toContain("Result:");
  });
});

describe("tables", () => {
  it("numbers get thousands separators; numeric columns are known", () => {
    expect(cellText(120433)).toBe((120433).toLocaleString());
    expect(cellText(120433)).not.toBe("120433");
    const rows = [{ a: "x", n: 1200, m: null }, { a: "y", n: 3, m: 4 }];
    expect([...numericColumns(["a", "n", "m"], rows)]).toEqual(["n", "m"]);
  });
});
