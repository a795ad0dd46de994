// A streaming call's arguments are parsed once: one incremental parser per
// part, fed by the appends the sync layer applies, read by the card and by
// the component it shows; the kernel's validated args win once complete.

import { afterEach, describe, expect, it, vi } from "vitest";
import { createComponentContext } from "../../src/components/slot.js";
import { PartialJsonParser } from "../../src/common/partial-json.js";
import { argsCharsRead, argsStreaming } from "../../src/tool-card/streamed-args.js";
import { MessageStore } from "../../src/sync.js";
import { createToolCard, displayArgs } from "../../src/tool-card/tool-card.js";

const ID = "m1";
const HIDDEN = ["_status_message", "_completion_status_message"];

const message = (parts = []) => ({ id: ID, role: "assistant", parts, status: { type: "running" }, metadata: {} });
const toolCall = (over = {}) => ({
  type: "tool-call",
  tool_call_id: "call_1",
  tool_name: "save_rows",
  args_text: "",
  args: {},
  args_complete: false,
  has_result: false,
  is_error: false,
  approval: null,
  ...over,
});

const rowsText = (n) =>
  JSON.stringify({ _status_message: "saving", rows: Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}` })) });

/** The text in pieces of `size` characters. */
const pieces = (text, size) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** A store holding one message with one tool call, and a frame sender. */
function streamStore(part = toolCall()) {
  const store = new MessageStore();
  store.setOrder([ID]);
  store.setSnapshot(message([part]), 0);
  let seq = 0;
  const frame = (ops) => store.applyFrame({ type: "frame", seq: ++seq, patches: [{ id: ID, ops }] });
  const append = (value) => frame([{ op: "append", part: 0, field: "args_text", value }]);
  const live = () => store.get(ID).parts[0];
  return { store, frame, append, live };
}

afterEach(() => vi.restoreAllMocks());

describe("streamed arguments", () => {
  it("each appended character is read once while the card and component read the args every frame", () => {
    const feed = vi.spyOn(PartialJsonParser.prototype, "feed");
    const { append, live } = streamStore();
    const text = rowsText(60);
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false, standardParams: () => HIDDEN });
    for (const piece of pieces(text, 17)) {
      append(piece);
      card.update(live(), { canAct: false });
      displayArgs(live(), HIDDEN); // another reader of the same frame
    }
    const read = feed.mock.calls.reduce((n, [chunk]) => n + chunk.length, 0);
    expect(read).toBe(text.length); // a re-parse per frame would read about 60 times as much
    expect(argsCharsRead(live())).toBe(text.length);
    expect(argsStreaming(live())).toBe(true);
    expect(displayArgs(live(), HIDDEN)).toEqual({ rows: JSON.parse(text).rows });
  });

  it("a view opened mid-stream starts its parser from the snapshot's text", () => {
    const text = rowsText(5);
    const { append, live } = streamStore(toolCall({ args_text: text.slice(0, 40) }));
    append(text.slice(40));
    expect(argsCharsRead(live())).toBe(text.length);
    expect(displayArgs(live(), HIDDEN)).toEqual({ rows: JSON.parse(text).rows });
  });

  it("once complete, the kernel's args stand when they came after the last append", () => {
    const { append, frame, live } = streamStore();
    append('{"_status_message": "x", "city": "Par');
    append('is", "extra": 1}');
    // The kernel validated the arguments (it keeps only the declared ones).
    frame([
      { op: "set", part: 0, field: "args", value: { city: "Paris" } },
      { op: "set", part: 0, field: "args_complete", value: true },
    ]);
    expect(argsStreaming(live())).toBe(false);
    expect(displayArgs(live(), HIDDEN)).toEqual({ city: "Paris" });
  });

  it("once complete, the parser's value stands when the kernel's args are older than the text", () => {
    const { append, frame, live } = streamStore();
    append('{"city": "Par');
    frame([{ op: "set", part: 0, field: "args", value: { city: "Par" } }]); // an earlier frame's
    append('is"}');
    frame([{ op: "set", part: 0, field: "args_complete", value: true }]);
    expect(displayArgs(live(), HIDDEN)).toEqual({ city: "Paris" });
  });

  it("arguments set after the stream (an edit) are read afresh", () => {
    const { append, frame, live } = streamStore();
    append('{"city": "Paris"}');
    frame([{ op: "set", part: 0, field: "args_complete", value: true }]);
    expect(displayArgs(live())).toEqual({ city: "Paris" });
    frame([{ op: "set", part: 0, field: "args", value: { city: "Lyon" } }]);
    expect(displayArgs(live())).toEqual({ city: "Lyon" });
  });

  it("a part from a snapshot, its args left out by the kernel, is parsed once however often it is read", () => {
    const feed = vi.spyOn(PartialJsonParser.prototype, "feed");
    const text = rowsText(3);
    const part = toolCall({ args_text: text, args_complete: true });
    for (let i = 0; i < 5; i++) expect(displayArgs(part, HIDDEN).rows).toHaveLength(3);
    expect(feed).toHaveBeenCalledTimes(1);
  });

  it("the component a streaming call shows reads the same parse as its card", () => {
    const feed = vi.spyOn(PartialJsonParser.prototype, "feed");
    const model = { get: (k) => ({ component_specs: [{ name: "Table", kind: "builtin", builtin: "table" }] })[k], on() {}, off() {} };
    const components = createComponentContext({ model, send: vi.fn() });
    const { append, live } = streamStore(
      toolCall({ tool_name: "show_component_Table", component: "Table", component_call: { component: "Table", component_id: "call_1" } }),
    );
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false, components, standardParams: () => HIDDEN });
    const text = rowsText(20);
    for (const piece of pieces(text, 23)) {
      append(piece);
      card.update(live(), { canAct: false });
    }
    expect(feed.mock.calls.reduce((n, [chunk]) => n + chunk.length, 0)).toBe(text.length);
  });

  it("a settled component whose message streams on is not printed or compared again on each frame", async () => {
    const model = { get: (k) => ({ component_specs: [{ name: "Table", kind: "builtin", builtin: "table" }] })[k], on() {}, off() {} };
    const components = createComponentContext({ model, send: vi.fn() });
    const { append, frame, live } = streamStore(
      toolCall({ tool_name: "show_component_Table", component: "Table", component_call: { component: "Table", component_id: "call_1" } }),
    );
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false, components, standardParams: () => HIDDEN });
    append(rowsText(30));
    frame([{ op: "set", part: 0, field: "args_complete", value: true }]);
    card.update(live(), { canAct: false });
    await new Promise((r) => setTimeout(r, 0)); // the built-in mounts
    card.update(live(), { canAct: false });
    expect(card.el.querySelectorAll("tbody tr")).toHaveLength(30);
    const stringify = vi.spyOn(JSON, "stringify");
    for (let i = 0; i < 10; i++) card.update(live(), { canAct: false }); // frames of the text after the call
    expect(stringify).not.toHaveBeenCalled();
  });
});
