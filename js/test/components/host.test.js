import { describe, expect, it, vi } from "vitest";
import { hashSource, loadModule, mountComponent } from "../../src/components/host.js";
import { propsStatus } from "../../src/components/status.js";

const done = (props) => propsStatus(props, true);

describe("mountComponent", () => {
  it("renders a built-in and updates it as props stream", async () => {
    const el = document.createElement("div");
    const spec = { name: "Metric", kind: "builtin", builtin: "metric" };
    const partial = { metrics: [{ label: "Revenue", value: 12 }] };
    const host = mountComponent({ el, spec, props: partial, status: propsStatus(partial, false) });
    await host.ready;
    expect(el.querySelectorAll(".gu-c-metric")).toHaveLength(1);
    const full = { metrics: [{ label: "Revenue", value: 12 }, { label: "Users", value: 3, delta: -1 }] };
    host.update(full, done(full));
    expect(el.querySelectorAll(".gu-c-metric")).toHaveLength(2);
    expect(el.querySelector(".gu-down").textContent).toContain("1");
  });

  it("imports a registered ES module once per source and calls update", async () => {
    const calls = [];
    const mod = {
      render: ({ props, el }) => {
        calls.push(["render", props.n]);
        el.textContent = `n=${props.n}`;
      },
      update: ({ props, el }) => {
        calls.push(["update", props.n]);
        el.textContent = `n=${props.n}`;
      },
    };
    const importer = vi.fn(async () => mod);
    const source = "export function render() {} // unique-1";
    const spec = { name: "Counter", kind: "js", esm: source };
    const el1 = document.createElement("div");
    const a = mountComponent({ el: el1, spec, props: { n: 1 }, status: done({}), importer });
    const b = mountComponent({ el: document.createElement("div"), spec, props: { n: 2 }, status: done({}), importer });
    await Promise.all([a.ready, b.ready]);
    expect(importer).toHaveBeenCalledTimes(1);
    a.update({ n: 3 }, done({}));
    a.update({ n: 3 }, done({})); // unchanged props: skipped
    expect(el1.textContent).toBe("n=3");
    expect(calls).toEqual([
      ["render", 1],
      ["render", 2],
      ["update", 3],
    ]);
  });

  it("shows an error box in the slot when the component throws, then recovers", async () => {
    const mod = {
      render: ({ props, el }) => {
        if (!props.ok) throw new Error("bad props");
        el.textContent = "fine";
      },
    };
    const el = document.createElement("div");
    const spec = { name: "Fragile", kind: "js", esm: "export function render() {} // unique-2" };
    const host = mountComponent({ el, spec, props: { ok: false }, status: done({}), importer: async () => mod });
    await host.ready;
    expect(el.querySelector(".gu-component-error").textContent).toBe("Fragile failed: bad props");
    host.update({ ok: true }, done({}));
    expect(el.querySelector(".gu-component-error")).toBeNull();
    expect(el.textContent).toBe("fine");
  });

  it("reports a module that fails to load or is not registered", async () => {
    const el = document.createElement("div");
    const spec = { name: "Broken", kind: "js", esm: "export const x = ; // unique-3" };
    const host = mountComponent({
      el,
      spec,
      props: {},
      status: done({}),
      importer: async () => {
        throw new SyntaxError("Unexpected token ';'");
      },
    });
    await host.ready;
    expect(el.textContent).toContain("Broken failed: Unexpected token");
    const el2 = document.createElement("div");
    await mountComponent({ el: el2, spec: { name: "Nope", kind: "missing" }, props: {}, status: done({}) }).ready;
    expect(el2.textContent).toContain("not registered");
  });

  it("passes state and setState through", async () => {
    const seen = [];
    const mod = {
      render: ({ setState, state }) => {
        seen.push(state);
        setState({ a: 1 });
        setState((s) => ({ b: s.a + 1 }));
      },
    };
    const setState = vi.fn();
    const spec = { name: "S", kind: "js", esm: "export function render() {} // unique-4" };
    await mountComponent({
      el: document.createElement("div"),
      spec,
      props: {},
      status: done({}),
      state: { z: 0 },
      setState,
      importer: async () => mod,
    }).ready;
    expect(seen).toEqual([{ z: 0 }]);
    expect(setState).toHaveBeenLastCalledWith({ z: 0, a: 1, b: 2 }, undefined);
  });
});

describe("loadModule", () => {
  it("keys the cache by source and retries after a failure", async () => {
    const importer = vi.fn().mockRejectedValueOnce(new Error("net")).mockResolvedValue({ ok: 1 });
    const src = "export function render() {} // unique-5";
    await expect(loadModule(src, importer)).rejects.toThrow("net");
    await expect(loadModule(src, importer)).resolves.toEqual({ ok: 1 });
    await loadModule(src, importer);
    expect(importer).toHaveBeenCalledTimes(2);
    expect(hashSource("a")).not.toBe(hashSource("b"));
  });
});

describe("propsStatus", () => {
  it("marks the chain of last fields as streaming, the rest complete", () => {
    const s = propsStatus({ title: "T", rows: [{ a: 1 }, { a: 2, b: "x" }] }, false);
    expect(s.fields).toEqual({
      title: "complete",
      rows: "streaming",
      "rows.0": "complete",
      "rows.0.a": "complete",
      "rows.1": "streaming",
      "rows.1.a": "complete",
      "rows.1.b": "streaming",
    });
    expect(s.isStreaming("title")).toBe(false);
    expect(s.isStreaming("caption")).toBe(true); // not parsed yet: still to come
    const d = propsStatus({ title: "T" }, true);
    expect(d.streaming).toBe(false);
    expect(d.isStreaming("caption")).toBe(false);
  });
});
