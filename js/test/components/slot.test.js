import { describe, expect, it, vi } from "vitest";
import { componentHook, createComponentContext, createComponentSlot } from "../../src/components/slot.js";

function fakeModel(traits) {
  const handlers = {};
  return {
    get: (k) => traits[k],
    on: (ev, fn) => {
      handlers[ev] = fn;
    },
    off: vi.fn(),
    fire: (ev, arg) => handlers[ev]?.(arg),
  };
}

const TABLE = { name: "Table", kind: "builtin", builtin: "table" };
const call = (over) => ({
  tool_call_id: "call_1",
  tool_name: "show_component_Table",
  component: "Table",
  component_call: { component: "Table", component_id: "call_1" },
  args_complete: false,
  has_result: false,
  is_error: false,
  ...over,
});

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("component slot", () => {
  it("mounts while props stream and settles when complete", async () => {
    const model = fakeModel({ component_specs: [TABLE], component_outputs: {} });
    const cctx = createComponentContext({ model, send: vi.fn() });
    const slot = createComponentSlot(cctx);
    slot.update(call(), { rows: [{ a: 1 }] });
    await flush();
    expect(slot.el.dataset.status).toBe("streaming");
    expect(slot.el.querySelectorAll("tbody tr")).toHaveLength(1);
    slot.update(call({ args_complete: true, has_result: true }), { rows: [{ a: 1 }, { a: 2 }] });
    expect(slot.el.dataset.status).toBe("complete");
    expect(slot.el.querySelectorAll("tbody tr")).toHaveLength(2);
  });

  it("shows a validation failure as an error state", async () => {
    const model = fakeModel({ component_specs: [TABLE] });
    const slot = createComponentSlot(createComponentContext({ model, send: vi.fn() }));
    slot.update(
      call({ args_complete: true, has_result: true, is_error: true, result: { error: "invalid props: rows.0: bad" } }),
      { rows: [] },
    );
    await flush();
    expect(slot.el.dataset.status).toBe("error");
    expect(slot.el.querySelector(".gu-component-invalid").textContent).toBe("Not shown: invalid props: rows.0: bad");
  });

  it("overlays kernel outputs (a DataFrame's rows) and renders the kernel's effective props of an update", async () => {
    const traits = { component_specs: [TABLE], component_outputs: {}, component_props: {} };
    const model = fakeModel(traits);
    const cctx = createComponentContext({ model, send: vi.fn() });
    const slot = createComponentSlot(cctx);
    slot.update(call({ args_complete: true, has_result: true }), { dataframe: "df", title: "Old" });
    await flush();
    model.fire("msg:custom", {
      type: "component_output",
      output: { tool_call_id: "call_1", props: { rows: [{ x: 1 }, { x: 2 }] }, final: true, seq: 1 },
    });
    expect(slot.el.querySelectorAll("tbody tr")).toHaveLength(2);
    traits.component_props = { call_1: { dataframe: "df", title: "New" } };
    model.fire("change:component_props");
    expect(slot.el.querySelector("caption").textContent).toBe("New");
    expect(slot.el.querySelectorAll("tbody tr")).toHaveLength(2);
    traits.component_props = {}; // the update's branch left: the call's own args again
    model.fire("change:component_props");
    expect(slot.el.querySelector("caption").textContent).toBe("Old");
  });

  it("merges no update call itself: only the kernel's props change a component", async () => {
    const model = fakeModel({ component_specs: [TABLE], component_outputs: {} });
    const cctx = createComponentContext({ model, send: vi.fn() });
    const card = document.createElement("div");
    const before = card.appendChild(document.createElement("div"));
    componentHook(cctx, card, before).update(call({ args_complete: true, has_result: true }), { title: "Old" });
    const update = {
      tool_call_id: "call_2",
      tool_name: "update_component_call_1",
      component_call: { update_of: "call_1" },
      args_complete: true,
      has_result: true,
      is_error: false,
    };
    const updateCard = document.createElement("div");
    componentHook(cctx, updateCard, updateCard.appendChild(document.createElement("div"))).update(update, {
      title: "New",
    });
    await flush();
    expect(card.querySelector("caption").textContent).toBe("Old");
    expect(updateCard.querySelector(".gu-component")).toBeNull();
  });

  it("sends state debounced, and at once on flush", () => {
    const send = vi.fn();
    const timers = [];
    const cctx = createComponentContext({
      send,
      setTimer: (fn) => timers.push(fn) && timers.length,
      clearTimer: (id) => {
        if (id) timers[id - 1] = null;
      },
    });
    cctx.sendComponentState("call_1", { values: { a: "x" } });
    cctx.sendComponentState("call_1", { values: { a: "xy" } });
    expect(send).not.toHaveBeenCalled();
    timers.filter(Boolean).forEach((fn) => fn());
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledWith({ type: "component_state", tool_call_id: "call_1", state: { values: { a: "xy" } } });
    cctx.sendComponentState("call_1", { submitted: true }, { flush: true });
    expect(send).toHaveBeenCalledTimes(2);
  });
});
