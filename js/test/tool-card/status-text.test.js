import { describe, expect, it, vi } from "vitest";
import { argsLine, createToolCard, decisionLine, statusLine } from "../../src/tool-card/tool-card.js";
import { activityName, liveActivity, phaseText } from "../../src/widget.js";

const running = (parts) => [{ id: "a", role: "assistant", status: { type: "running" }, parts }];
const streamingCall = (extra = {}) => ({ type: "tool-call", tool_call_id: "c", tool_name: "show_component", args_complete: false, ...extra });
const header = (phase, messages, detail = "") => {
  const activity = liveActivity(phase, messages);
  return phaseText(activity, activityName(messages) || detail);
};

describe("the header says what happens", () => {
  it("names the component whose props stream", () => {
    const chart = running([streamingCall({ component_call: { component: "Chart" } })]);
    expect(header("thinking", chart)).toBe("Drawing a chart…");
    const table = running([streamingCall({ component_call: { component: "Table" } })]);
    expect(header("thinking", table)).toBe("Preparing the table…");
  });

  it("names the tool whose call streams, and thinking or writing otherwise", () => {
    expect(header("thinking", running([streamingCall({ tool_name: "get_weather" })]))).toBe("Calling get weather…");
    expect(header("thinking", running([{ type: "text", text: "Hel" }]))).toBe("Writing…");
    expect(header("thinking", running([]))).toBe("Thinking…");
    // a call whose arguments are in is no longer streaming: the kernel's phase speaks
    expect(header("thinking", running([streamingCall({ args_complete: true })]))).toBe("Thinking…");
  });

  it("says what a wait waits for", () => {
    const waiting = (part) => [{ id: "a", role: "assistant", status: { type: "requires-action" }, parts: [part] }];
    expect(header("waiting", waiting({ type: "tool-call", tool_name: "x", approval: { status: "pending" } }))).toBe(
      "Waiting for your approval",
    );
    expect(header("waiting", waiting({ type: "tool-call", tool_name: "ask_user" }))).toBe("Waiting for your answer");
    expect(header("waiting", [])).toBe("Waiting for you");
    expect(phaseText("running-tool", "remember, get_weather")).toBe("Running remember, get weather…");
  });
});

describe("a card's status line", () => {
  const call = (extra = {}) => ({ type: "tool-call", tool_call_id: "c", tool_name: "remember", args_complete: true, ...extra });

  it("says how the call stands beside its name, not 'Called remember', when it has no status texts", () => {
    expect(statusLine(call({ args_complete: false }))).toBe("Calling…");
    expect(statusLine(call())).toBe("Running…");
    expect(statusLine(call({ has_result: true, result: "ok" }))).toBe("Done");
    expect(statusLine(call({ has_result: true, is_error: true, result: {} }))).toBe("Failed");
  });

  it("says who decided a gated call", () => {
    const approved = (by, edited = false) => ({ status: "approved", decided_by: by, edited });
    expect(decisionLine(approved("user"))).toBe("Approved by you");
    expect(decisionLine(approved("user", true))).toBe("Approved by you, edited");
    expect(decisionLine(approved("code"))).toBe("Approved from code");
    expect(decisionLine(approved("grant"))).toBe("Approved by an always-allow rule");
    expect(decisionLine(approved("client", true))).toBe("Approved by the AG-UI client, edited");
    expect(decisionLine({ status: "rejected", decided_by: "client", reason: "keep v" })).toBe("Rejected by the AG-UI client: keep v");
    expect(decisionLine({ status: "rejected", decided_by: "user", reason: "too big" })).toBe("Rejected by you: too big");
    expect(statusLine(call({ has_result: true, result: "ok", approval: approved("user") }))).toBe("Done · Approved by you");
    expect(statusLine(call({ has_result: true, result: "x", approval: { status: "rejected", decided_by: "user", reason: "no" } }))).toBe(
      "Rejected by you: no",
    );
  });

  it("keeps an old thread file's decision without a source readable", () => {
    expect(decisionLine({ status: "approved" })).toBe("");
    expect(statusLine(call({ has_result: true, result: "ok", approval: { status: "approved" } }))).toBe("Done");
    expect(statusLine(call({ has_result: true, result: "x", approval: { status: "rejected", reason: "no" } }))).toBe("Rejected: no");
  });
});

describe("the always-allow grants", () => {
  it("are listed and each chip sends only a revoke", async () => {
    const { ChatView } = await import("../../src/widget.js");
    const { FakeModel } = await import("../helpers/fake-model.js");
    const model = new FakeModel(
      { _chat_key: `chat-${Math.random()}`, messages: [], phase: "idle", running: false, suggestions: [], human_tools: [], always_allowed: ["run_python"] },
      { get_model: async () => null },
    );
    const el = document.createElement("div");
    const v = new ChatView(model, el);
    await v.start();
    const row = el.querySelector(".gu-grants");
    expect(row.hidden).toBe(false);
    expect(row.textContent).toContain("Allowed without asking:");
    const chip = row.querySelector("button.gu-grant");
    expect(chip.getAttribute("aria-label")).toBe("Stop allowing run python without asking");
    chip.click();
    expect(model.sent.at(-1)).toEqual({ type: "revoke_always", tool_name: "run_python" });
    model.set("always_allowed", []);
    v.renderNow();
    expect(row.hidden).toBe(true);
    v.destroy();
  });

  it("names the arguments that ran once the user edited them, not the model's texts for its own", () => {
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false, standardParams: () => ["status", "completion"] });
    const weather = (extra) => ({
      type: "tool-call",
      tool_call_id: "w1",
      tool_name: "get_weather",
      args_complete: true,
      args: { city: "Bergen", status: "looking up the weather in Oslo", completion: "looked up the weather in Oslo" },
      status_message: "looking up the weather in Oslo",
      completion_status_message: "looked up the weather in Oslo",
      approval: { status: "approved", decided_by: "user", edited: true },
      ...extra,
    });
    const line = () => card.el.querySelector(".gu-tool-status")?.textContent;
    card.update(weather({}), { canAct: true });
    expect(line()).toBe("Running with city: Bergen · Approved by you, edited");
    card.update(weather({ has_result: true, result: { city: "Bergen" } }), { canAct: true });
    expect(line()).toBe("Ran with city: Bergen · Approved by you, edited");
    // approved as written: the model's own texts are right
    card.update(weather({ has_result: true, result: {}, approval: { status: "approved", decided_by: "user" } }), { canAct: true });
    expect(line()).toBe("looked up the weather in Oslo · Approved by you");
  });

  it("writes arguments in one bounded line", () => {
    expect(argsLine({})).toBe("no arguments");
    expect(argsLine({ city: "Bergen", days: 2, units: ["c"] })).toBe('city: Bergen, days: 2, units: ["c"]');
    const long = argsLine({ text: "x".repeat(500) });
    expect(long.length).toBe(80);
    expect(long.endsWith("…")).toBe(true);
  });
});
