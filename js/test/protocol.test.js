// The wire contract, replayed from tests/fixtures/wire.json (so does
// tests/widget/test_widget_wire.py): the browser applies the kernel's ops and
// frames and must reach the kernel's message, reads every kernel message the
// fixture holds, and builds every browser message exactly as the kernel
// accepts it.

import { describe, expect, it } from "vitest";
import {
  FROM_KERNEL,
  TO_KERNEL_TYPES,
  componentIdOf,
  isPatchOp,
  readLimits,
  readServerMessage,
  shownComponent,
  toKernel,
  updateOf,
} from "../src/protocol.js";
import { FROM_KERNEL_VALIDATORS, LIMIT_KEYS } from "../src/protocol-wire.generated.js";
import { MessageStore, applyOps } from "../src/sync.js";
import { displayArgs } from "../src/tool-card/tool-card.js";
import WIRE from "../../tests/fixtures/wire.json";

const { stream } = WIRE;

describe("the fixture's stream", () => {
  it("every op is one this view applies", () => {
    for (const op of stream.ops.flat()) expect(isPatchOp(op), JSON.stringify(op)).toBe(true);
  });

  it("the kernel's ops rebuild the kernel's message", () => {
    const message = structuredClone(stream.message);
    for (const ops of stream.ops) applyOps(message, ops);
    expect(message).toEqual(stream.message_after_ops);
  });

  it("the frames, on top of the first snapshot, give the message as sent", () => {
    const store = new MessageStore();
    store.setSnapshot(structuredClone(stream.message), 0);
    store.setOrder([stream.message.id]);
    for (const frame of stream.frames) {
      expect(readServerMessage(frame)).toBe(frame);
      store.applyFrame(frame);
    }
    expect(store.get(stream.message.id)).toEqual(stream.result);
  });

  it("a snapshot newer than the frames wins, as the kernel stamps it", () => {
    const store = new MessageStore();
    const snapshot = readServerMessage(WIRE.to_browser.snapshot);
    for (const frame of stream.frames) store.applyFrame(frame);
    for (const item of snapshot.messages) store.setSnapshot(item.message, item.rev);
    expect(store.get(stream.message.id)).toEqual(stream.result);
  });

  it("the view reads components' names the kernel sent, and hides its standard parameters", () => {
    const [show, update, plain] = stream.result.parts.filter((p) => p.type === "tool-call");
    expect([shownComponent(show), componentIdOf(show), updateOf(show)]).toEqual(["Table", "call_1", null]);
    expect([shownComponent(update), componentIdOf(update), updateOf(update)]).toEqual([null, null, "call_1"]);
    expect([shownComponent(plain), updateOf(plain)]).toEqual([null, null]);
    expect(displayArgs({ ...plain, args: {} }, WIRE.standard_params)).toEqual({ q: "x" });
    expect(displayArgs({ ...plain, args: {} })).toEqual({ _status_message: "looking up", q: "x" });
  });
});

describe("the kernel's limits (the `limits` trait)", () => {
  it("are read from the kernel, every one the fixture holds; none is kept here", () => {
    expect(readLimits(WIRE.limits)).toEqual({
      maxUploadBytes: WIRE.limits.max_upload_bytes,
      maxAttachments: WIRE.limits.max_attachments,
      maxWindow: WIRE.limits.max_window,
      maxFilter: WIRE.limits.max_filter,
      maxFieldChars: WIRE.limits.max_field_chars,
    });
    expect(Object.values(readLimits(WIRE.limits)).every(Number.isInteger)).toBe(true);
  });

  it("a missing or malformed limit means no early check (the kernel still refuses)", () => {
    expect(readLimits(undefined).maxWindow).toBe(Infinity);
    expect(readLimits({ max_window: "9", max_attachments: -1 })).toEqual({
      maxUploadBytes: Infinity,
      maxAttachments: Infinity,
      maxWindow: Infinity,
      maxFilter: Infinity,
      maxFieldChars: Infinity,
    });
  });
});

describe("kernel -> browser", () => {
  it("reads every message the kernel sends", () => {
    for (const [name, msg] of Object.entries(WIRE.to_browser)) {
      expect(readServerMessage(msg), name).toBe(msg);
    }
  });

  it("drops unknown or malformed messages", () => {
    for (const bad of [
      null,
      "frame",
      [],
      { type: "nope" },
      { type: "toString" },
      { type: "frame", seq: "1", patches: [] },
      { type: "frame", seq: 1, patches: [{ id: 3, ops: [] }] },
      { type: "snapshot", seq: 1, messages: [{ rev: 1 }] },
      { type: "accepted", request: "retry" },
      { type: "error", message: 3 },
      { type: "component_output", output: { tool_call_id: 1 } },
    ]) {
      expect(readServerMessage(bad), JSON.stringify(bad)).toBeNull();
    }
  });

  it("skips ops it cannot apply", () => {
    for (const bad of [
      { op: "status", value: { type: "complete" } },
      { op: "append", part: 0, field: "text", value: 3 },
      { op: "set", field: "text", value: "x" },
      { op: "add_part", part: -1, value: {} },
    ]) {
      expect(isPatchOp(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("browser -> kernel", () => {
  it.each(WIRE.to_kernel.map((c) => [c.build[0], c]))("%s is built as the kernel accepts it", (_name, c) => {
    const [name, ...args] = c.build;
    expect(toKernel[name](...args)).toEqual(c.message);
  });

  it("the fixture covers every message the browser builds", () => {
    expect(new Set(WIRE.to_kernel.map((c) => c.build[0]))).toEqual(new Set(Object.keys(toKernel)));
  });
});

describe("the generated protocol (make protocol, from widget/_protocol.py)", () => {
  it("has a validator for every message the kernel sends", () => {
    expect(Object.keys(FROM_KERNEL_VALIDATORS)).toEqual(Object.keys(FROM_KERNEL));
  });

  it("has a builder for every message the kernel accepts", () => {
    const built = Object.values(toKernel).map((build) => build("x", 1, 1, 1).type);
    expect(built).toEqual([...TO_KERNEL_TYPES]);
  });

  it("names every limit the kernel sends", () => {
    expect(Object.values(LIMIT_KEYS).sort()).toEqual(Object.keys(WIRE.limits).sort());
  });
});
