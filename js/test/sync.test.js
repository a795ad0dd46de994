import { describe, expect, it, vi } from "vitest";
import { argsStreaming } from "../src/tool-card/streamed-args.js";
import { MessageStore, applyOps } from "../src/sync.js";

const msg = (id, text = "") => ({
  id,
  role: "assistant",
  parts: text ? [{ type: "text", text }] : [],
  status: { type: "running" },
  metadata: {},
});

describe("applyOps", () => {
  it("applies append, set and add_part", () => {
    const m = msg("m1");
    applyOps(m, [
      { op: "add_part", part: 0, value: { type: "text", text: "He" } },
      { op: "append", part: 0, field: "text", value: "llo" },
      { op: "add_part", part: 1, value: { type: "tool-call", tool_call_id: "c", args_text: "" } },
      { op: "append", part: 1, field: "args_text", value: '{"a":' },
      { op: "set", part: 1, field: "status_message", value: "working" },
      { op: "unknown-op", value: 1 },
    ]);
    expect(m.parts[0].text).toBe("Hello");
    expect(m.parts[1].args_text).toBe('{"a":');
    expect(argsStreaming(m.parts[1])).toBe(true); // its parser reads the appends
    expect(m.parts[1].status_message).toBe("working");
  });

  it("ignores ops on parts that do not exist instead of throwing", () => {
    const m = msg("m1");
    expect(() => applyOps(m, [{ op: "append", part: 3, field: "text", value: "x" }])).not.toThrow();
    expect(m.parts).toEqual([]);
  });
});

describe("MessageStore", () => {
  it("applies frames on top of the snapshot and notifies", () => {
    const store = new MessageStore();
    const seen = vi.fn();
    store.subscribe(seen);
    store.setSnapshot(msg("m1", "Hi"), 0);
    store.setOrder(["m1"]);
    store.applyFrame({ type: "frame", seq: 1, patches: [{ id: "m1", ops: [{ op: "append", part: 0, field: "text", value: " there" }] }] });
    expect(store.get("m1").parts[0].text).toBe("Hi there");
    expect(seen).toHaveBeenCalledWith(["m1"]);
  });

  it("ignores frames already inside a newer snapshot", () => {
    const store = new MessageStore();
    store.setSnapshot(msg("m1", "Hello"), 5);
    store.applyFrame({ seq: 4, patches: [{ id: "m1", ops: [{ op: "append", part: 0, field: "text", value: "lo" }] }] });
    expect(store.get("m1").parts[0].text).toBe("Hello");
  });

  it("replays frames that arrived before their snapshot (comms reorder)", () => {
    const store = new MessageStore();
    store.setSnapshot(msg("m1", "A"), 1);
    // frame 3 arrives before the snapshot at rev 2 that it builds on
    store.applyFrame({ seq: 3, patches: [{ id: "m1", ops: [{ op: "append", part: 0, field: "text", value: "C" }] }] });
    store.setSnapshot(msg("m1", "AB"), 2);
    expect(store.get("m1").parts[0].text).toBe("ABC");
  });

  it("keeps the newest snapshot when an older one arrives late", () => {
    const store = new MessageStore();
    store.setSnapshot(msg("m1", "new"), 7);
    store.setSnapshot(msg("m1", "old"), 3);
    expect(store.get("m1").parts[0].text).toBe("new");
  });

  it("buffers frames for a message whose model has not arrived yet", () => {
    const store = new MessageStore();
    store.applyFrame({ seq: 1, patches: [{ id: "m2", ops: [{ op: "add_part", part: 0, value: { type: "text", text: "x" } }] }] });
    expect(store.get("m2")).toBeNull();
    store.setSnapshot(msg("m2"), 0);
    store.setOrder(["m2"]);
    expect(store.messages().map((m) => m.parts[0].text)).toEqual(["x"]);
  });

  it("does not mutate the snapshot it was given", () => {
    const store = new MessageStore();
    const base = msg("m1", "a");
    store.setSnapshot(base, 0);
    store.applyFrame({ seq: 1, patches: [{ id: "m1", ops: [{ op: "append", part: 0, field: "text", value: "b" }] }] });
    expect(base.parts[0].text).toBe("a");
  });

  it("a stream of many frames converges to the final text", () => {
    const store = new MessageStore();
    store.setSnapshot(msg("m1"), 0);
    const words = Array.from({ length: 500 }, (_, i) => `w${i} `);
    store.applyFrame({ seq: 1, patches: [{ id: "m1", ops: [{ op: "add_part", part: 0, value: { type: "text", text: "" } }] }] });
    words.forEach((w, i) =>
      store.applyFrame({ seq: i + 2, patches: [{ id: "m1", ops: [{ op: "append", part: 0, field: "text", value: w }] }] }),
    );
    expect(store.get("m1").parts[0].text).toBe(words.join(""));
  });
});
