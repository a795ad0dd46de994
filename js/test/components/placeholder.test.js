// A component call is on screen from its name on. Gemini, Ollama and Groq
// send a call's whole arguments in one piece, maybe a while after its name:
// until props begin, the slot shows a placeholder naming the component
// ("Preparing the table…", an accessible busy status), then the component,
// settled in one step when the arguments came whole. A call that ends with
// no arguments or text that is not JSON shows its error, never a placeholder
// that waits for ever. Frames go through the real sync layer and message view.

import { afterEach, describe, expect, it, vi } from "vitest";
import { BUILTINS } from "../../src/components/host.js";
import { createComponentContext, readableName } from "../../src/components/slot.js";
import { createMessageView } from "../../src/thread/message-view.js";
import { MessageStore } from "../../src/sync.js";

const ID = "m1";
const HIDDEN = ["_status_message", "_completion_status_message"];
const SPECS = [
  { name: "Table", kind: "builtin", builtin: "table" },
  { name: "Probe", kind: "builtin", builtin: "probe" },
];

/** A built-in that records what each of its renders saw. */
function probeModule() {
  const seen = [];
  const draw = ({ props, status, el }) => {
    seen.push({ props: JSON.parse(JSON.stringify(props)), streaming: status.streaming });
    el.textContent = `probe ${props.label ?? ""}`;
  };
  return { seen, module: { render: draw, update: draw } };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

const nameOnly = (component, over = {}) => ({
  type: "tool-call",
  tool_call_id: "call_1",
  tool_name: `show_component_${component}`,
  component_call: { component, component_id: "call_1" },
  args_text: "",
  args: {},
  args_complete: false,
  has_result: false,
  is_error: false,
  approval: null,
  ...over,
});

/** One running assistant message, a frame sender and its view, as the thread view wires them. */
function thread() {
  const store = new MessageStore();
  store.setOrder([ID]);
  store.setSnapshot({ id: ID, role: "assistant", parts: [], status: { type: "running" }, metadata: {} }, 0);
  const model = { get: (k) => (k === "component_specs" ? SPECS : k === "component_outputs" ? {} : undefined), on() {}, off() {} };
  const components = createComponentContext({ model, send: vi.fn() });
  const view = createMessageView({
    send: vi.fn(),
    notify: vi.fn(),
    isHuman: () => false,
    components,
    standardParams: () => HIDDEN,
  });
  let seq = 0;
  const render = () => view.update(store.get(ID), { isLast: true, running: true });
  const frame = (...ops) => {
    store.applyFrame({ type: "frame", seq: ++seq, patches: [{ id: ID, ops }] });
    render();
  };
  const append = (value) => frame({ op: "append", part: 0, field: "args_text", value });
  const set = (field, value) => frame({ op: "set", part: 0, field, value });
  const end = (status) => {
    store.setSnapshot({ ...store.get(ID), status }, ++seq);
    render();
  };
  const slot = () => view.el.querySelector(".gu-component");
  const placeholder = () => view.el.querySelector(".gu-component-placeholder");
  return { frame, append, set, end, slot, placeholder, el: view.el };
}

afterEach(() => {
  delete BUILTINS.probe;
});

describe("a component call before its props", () => {
  it("shows a named, busy placeholder from the name on, then the table once its whole arguments arrive", async () => {
    const t = thread();
    t.frame({ op: "add_part", part: 0, value: nameOnly("Table") });
    await flush();
    const ph = t.placeholder();
    expect(ph).not.toBeNull();
    expect(ph.textContent).toBe("Preparing the table…");
    expect(ph.getAttribute("role")).toBe("status");
    expect(ph.getAttribute("aria-busy")).toBe("true");
    expect(t.slot().dataset.status).toBe("preparing");
    expect(t.el.querySelector("table")).toBeNull();

    t.append(JSON.stringify({ title: "Cities", rows: [{ city: "Lima" }, { city: "Oslo" }] }));
    await flush();
    expect(t.placeholder()).toBeNull();
    expect(t.el.querySelectorAll("tbody tr")).toHaveLength(2);
    // all the arguments are there: settled now, before the kernel marks them complete
    expect(t.slot().dataset.status).toBe("complete");
    t.set("args_complete", true);
    expect(t.el.querySelector("caption").textContent).toBe("Cities");
    expect(t.placeholder()).toBeNull();
  });

  it("renders whole arguments in one step: no streaming render in between", async () => {
    const probe = probeModule();
    BUILTINS.probe = probe.module;
    const t = thread();
    t.frame({ op: "add_part", part: 0, value: nameOnly("Probe") });
    await flush();
    expect(t.placeholder().textContent).toBe("Preparing the probe…");
    expect(probe.seen).toEqual([]); // nothing half-made is drawn under the placeholder
    t.append('{"label": "ready", "_status_message": "drawing"}');
    await flush();
    t.set("args_complete", true);
    t.set("has_result", true);
    expect(probe.seen).toEqual([{ props: { label: "ready" }, streaming: false }]);
    expect(t.slot().textContent).toBe("probe ready");
  });

  it("also when the name and the whole arguments come in one frame", async () => {
    const probe = probeModule();
    BUILTINS.probe = probe.module;
    const t = thread();
    t.frame(
      { op: "add_part", part: 0, value: nameOnly("Probe") },
      { op: "append", part: 0, field: "args_text", value: '{"label": "at once"}' },
    );
    await flush();
    expect(t.placeholder()).toBeNull();
    expect(probe.seen).toEqual([{ props: { label: "at once" }, streaming: false }]);
  });

  it("streams props progressively when they come in pieces, after the placeholder", async () => {
    const probe = probeModule();
    BUILTINS.probe = probe.module;
    const t = thread();
    t.frame({ op: "add_part", part: 0, value: nameOnly("Probe") });
    t.append('{"'); // no prop yet: still the placeholder
    t.append("_status_message\": \"thinking\", \"");
    await flush();
    expect(t.placeholder()).not.toBeNull();
    t.append('label": "hal');
    await flush();
    expect(t.placeholder()).toBeNull();
    expect(t.slot().dataset.status).toBe("streaming");
    t.append('f"}');
    t.set("args_complete", true);
    expect(probe.seen.map((s) => [s.props.label, s.streaming])).toEqual([
      ["hal", true],
      ["half", false],
    ]);
  });
});

describe("a component call is never stuck on its placeholder", () => {
  it.each([
    ["no arguments", "", "Not shown: invalid props for component Table: rows: Field required"],
    ["text that is not JSON", '{"rows": [{"city": "Li', "Not shown: the arguments are not valid JSON"],
  ])("a call that ends with %s shows the validation error", async (_what, text, error) => {
    const t = thread();
    t.frame({ op: "add_part", part: 0, value: nameOnly("Table") });
    if (text) t.append(text);
    await flush();
    t.set("args_complete", true);
    expect(t.placeholder()).toBeNull();
    t.frame(
      { op: "set", part: 0, field: "result", value: { error: error.replace("Not shown: ", "") } },
      { op: "set", part: 0, field: "is_error", value: true },
      { op: "set", part: 0, field: "has_result", value: true },
    );
    await flush();
    expect(t.placeholder()).toBeNull();
    expect(t.slot().dataset.status).toBe("error");
    expect(t.el.querySelector(".gu-component-invalid").textContent).toBe(error);
    if (!text) expect(t.el.querySelector(".gu-component-mount").childElementCount).toBe(0); // no empty table under it
  });

  it("a message that ended without finishing the call shows no placeholder", async () => {
    const t = thread();
    t.frame({ op: "add_part", part: 0, value: nameOnly("Table") });
    await flush();
    expect(t.placeholder()).not.toBeNull();
    t.end({ type: "incomplete", reason: "error", error: "the connection was lost" });
    await flush();
    expect(t.placeholder()).toBeNull();
    expect(t.slot().dataset.status).not.toBe("preparing");
  });
});

describe("a tool call that is not a component", () => {
  it("shows its card with the tool's name from the name on", () => {
    const t = thread();
    t.frame({
      op: "add_part",
      part: 0,
      value: { ...nameOnly("x"), tool_name: "query_sales", component_call: undefined },
    });
    const card = t.el.querySelector(".gu-tool-call");
    expect(card.dataset.toolName).toBe("query_sales");
    expect(card.querySelector(".gu-tool-head").hidden).toBe(false);
    expect(card.querySelector(".gu-tool-name").textContent).toBe("query_sales");
    expect(card.querySelector(".gu-tool-status").textContent).toBe("Calling…");
    expect(t.placeholder()).toBeNull();
  });
});

describe("readableName", () => {
  it.each([
    ["Table", "table"],
    ["SalesChart", "sales chart"],
    ["KPICard", "KPI card"],
    ["A2UI", "A2UI"],
    ["Chart2Day", "chart2 day"],
    ["my_plot", "my plot"],
    ["", "component"],
  ])("%s reads as %s", (name, words) => {
    expect(readableName(name)).toBe(words);
  });
});
