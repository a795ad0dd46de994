import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import COFFEE from "../../../tests/fixtures/a2ui/v0_8_coffee_order.json";
import LOGIN from "../../../tests/fixtures/a2ui/v0_8_login_form.json";

// JSON Lines: read as text (vitest runs in js/)
const CONTACT = readFileSync(join(process.cwd(), "../tests/fixtures/a2ui/v0_9_contact_form.jsonl"), "utf8");
import { renderSurface } from "../../src/a2ui/render.js";
import { applyMessages, normalizeComponent, pointerGet, pointerSet } from "../../src/a2ui/surfaces.js";
import { createComponentContext, createComponentSlot } from "../../src/components/slot.js";

const BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const A2UI = { name: "A2UI", kind: "builtin", builtin: "a2ui" };

const form = () => [
  { version: "v0.9", createSurface: { surfaceId: "s1", catalogId: BASIC } },
  {
    version: "v0.9",
    updateComponents: {
      surfaceId: "s1",
      components: [
        { id: "root", component: "Card", child: "col" },
        { id: "col", component: "Column", children: ["title", "name", "echo", "go"] },
        { id: "title", component: "Text", text: "# Sign up", variant: "h2" },
        { id: "name", component: "TextField", label: "Name", value: { path: "/name" } },
        { id: "echo", component: "Text", text: { path: "/name" } },
        { id: "go_label", component: "Text", text: "Send" },
        {
          id: "go",
          component: "Button",
          child: "go_label",
          variant: "primary",
          action: { event: { name: "submit", context: { who: { path: "/name" } } } },
        },
      ],
    },
  },
  { version: "v0.9", updateDataModel: { surfaceId: "s1", path: "/", value: { name: "Ada" } } },
];

function fakeModel(traits) {
  return { get: (k) => traits[k], on: vi.fn(), off: vi.fn() };
}

const call = (over) => ({
  tool_call_id: "a1",
  tool_name: "show_a2ui",
  component: "A2UI",
  component_call: { component: "A2UI", component_id: "a1" },
  args_complete: false,
  has_result: false,
  is_error: false,
  ...over,
});

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("A2UI surfaces", () => {
  it("reads v0.8 components as v0.9 ones", () => {
    const v08 = {
      id: "b",
      component: {
        Button: { child: "t", primary: true, action: { name: "login", context: [{ key: "e", value: { path: "/e" } }] } },
      },
    };
    expect(normalizeComponent(v08, "v0.8")).toEqual({
      id: "b",
      component: "Button",
      child: "t",
      variant: "primary",
      action: { event: { name: "login", context: { e: { path: "/e" } } } },
    });
    const surfaces = applyMessages(new Map(), [
      { dataModelUpdate: { surfaceId: "x", contents: [{ key: "email", valueString: "a@b" }] } },
      { beginRendering: { surfaceId: "x", root: "r" } },
    ]);
    expect(surfaces.get("x").root).toBe("r");
    expect(surfaces.get("x").data).toEqual({ email: "a@b" });
  });

  it("sets and reads JSON Pointers without changing the original", () => {
    const before = { a: { b: 1 } };
    const after = pointerSet(before, "/a/c~1d", 2);
    expect(before).toEqual({ a: { b: 1 } });
    expect(pointerGet(after, "/a/c~1d")).toBe(2);
  });
});

describe("A2UI renderer", () => {
  it("draws text as text, binds fields both ways and presses a button", () => {
    const surface = applyMessages(new Map(), form()).get("s1");
    const press = vi.fn();
    const edit = vi.fn((path, value) => {
      surface.data = pointerSet(surface.data, path, value);
    });
    const view = renderSurface(surface, { data: () => surface.data, edit, press });
    expect(view.el.querySelector("h2").textContent).toBe("Sign up");
    const input = view.el.querySelector("input");
    expect(input.value).toBe("Ada");
    input.value = "Grace";
    input.dispatchEvent(new Event("input"));
    view.refresh();
    expect(edit).toHaveBeenCalledWith("/name", "Grace");
    expect(view.el.querySelector('[data-a2ui-id="echo"]').textContent).toBe("Grace");
    view.el.querySelector("button").click();
    expect(press).toHaveBeenCalledWith("go");
  });

  it("refuses a component outside the basic catalog in its place, and runs no HTML", () => {
    const surface = applyMessages(new Map(), [
      {
        version: "v0.9",
        updateComponents: {
          surfaceId: "s",
          components: [
            { id: "root", component: "Column", children: ["bad", "t"] },
            { id: "bad", component: "Iframe", src: "https://evil.example" },
            { id: "t", component: "Text", text: "<img src=x onerror=alert(1)>" },
          ],
        },
      },
    ]).get("s");
    const view = renderSurface(surface, { data: () => surface.data, edit: vi.fn(), press: vi.fn() });
    expect(view.el.querySelector(".gu-a2ui-error").textContent).toContain("“Iframe” (id bad) is not in the basic catalog");
    expect(view.el.querySelector("iframe")).toBeNull();
    expect(view.el.querySelector("img")).toBeNull();
    expect(view.el.querySelector('[data-a2ui-id="t"]').textContent).toBe("<img src=x onerror=alert(1)>");
  });

  it("loads no image URL by itself", () => {
    const surface = applyMessages(new Map(), [
      {
        version: "v0.9",
        updateComponents: { surfaceId: "s", components: [{ id: "root", component: "Image", url: "https://e.example/a.png" }] },
      },
    ]).get("s");
    const view = renderSurface(surface, { data: () => surface.data, edit: vi.fn(), press: vi.fn() });
    const img = view.el.querySelector("img");
    expect(img.getAttribute("src")).toBeNull();
    expect(img.dataset.guSrc).toBe("https://e.example/a.png");
    expect(view.el.querySelector("button.gu-load-resource")).not.toBeNull();
  });
});

describe("A2UI in a component slot", () => {
  it("renders progressively as messages stream and sends one a2ui_action with the user's input", async () => {
    const send = vi.fn();
    const model = fakeModel({ component_specs: [A2UI], component_outputs: {}, running: false });
    const slot = createComponentSlot(createComponentContext({ model, send }));
    const messages = form();
    const partial = structuredClone(messages.slice(0, 2));
    partial[1].updateComponents.components = partial[1].updateComponents.components.slice(0, 3);
    slot.update(call(), { messages: partial });
    await flush();
    expect(slot.el.querySelector("h2").textContent).toBe("Sign up");
    expect(slot.el.querySelectorAll(".gu-a2ui-pending").length).toBeGreaterThan(0); // name, echo, go not yet
    expect(slot.el.querySelector("input")).toBeNull();
    slot.update(call({ args_complete: true, has_result: true }), { messages });
    expect(slot.el.querySelector(".gu-a2ui-pending")).toBeNull();
    const input = slot.el.querySelector("input");
    input.value = "Lin";
    input.dispatchEvent(new Event("input"));
    slot.el.querySelector("button.gu-a2ui-button").click();
    expect(send).toHaveBeenCalledWith({
      type: "a2ui_action",
      tool_call_id: "a1",
      surface_id: "s1",
      component_id: "go",
      data: { s1: { "/name": "Lin" } },
    });
  });
});

describe("a call that only updates a surface", () => {
  it("says which surface it updated instead of an empty box", async () => {
    const model = fakeModel({ component_specs: [A2UI], component_outputs: {}, running: false });
    const slot = createComponentSlot(createComponentContext({ model, send: vi.fn() }));
    const update = { version: "v0.9", updateDataModel: { surfaceId: "s1", path: "/name", value: "Bo" } };
    slot.update(call({ args_complete: true, has_result: true }), { messages: [update] });
    await flush();
    expect(slot.el.querySelector(".gu-a2ui-update").textContent).toBe("Updated the A2UI surface “s1” shown earlier.");
    expect(slot.el.querySelector(".gu-a2ui-pending")).toBeNull();
  });
});

describe("the spec's samples", () => {
  const samples = {
    "v0.8 login form": LOGIN,
    "v0.8 coffee order": COFFEE,
    // the sample's last line deletes the surface: drawn before it
    "v0.9 contact form": CONTACT.trim().split("\n").slice(0, 3).map((line) => JSON.parse(line)),
  };
  it.each(Object.entries(samples))("%s renders whole: every component drawn, none refused", (_name, messages) => {
    const [surface] = applyMessages(new Map(), messages).values();
    const view = renderSurface(surface, { data: () => surface.data, edit: vi.fn(), press: vi.fn() });
    expect(view.el.querySelector(".gu-a2ui-error")).toBeNull();
    expect(view.el.querySelector(".gu-a2ui-pending")).toBeNull();
    expect(view.el.querySelectorAll("[data-a2ui-id]").length).toBeGreaterThan(5);
    expect(view.el.querySelectorAll("button.gu-a2ui-button").length).toBeGreaterThan(0);
  });
});

describe("deleteSurface", () => {
  it("removes the surface from the slot that drew it and from a call that only deletes", async () => {
    const model = fakeModel({ component_specs: [A2UI], component_outputs: {}, running: false });
    const slot = createComponentSlot(createComponentContext({ model, send: vi.fn() }));
    const done = call({ args_complete: true, has_result: true });
    slot.update(done, { messages: form() });
    await flush();
    expect(slot.el.querySelector('[data-surface-id="s1"]')).not.toBeNull();
    const gone = { version: "v0.9", deleteSurface: { surfaceId: "s1" } };
    slot.update(done, { messages: [...form(), gone] }); // the kernel's redraw after a later call
    expect(slot.el.querySelector('[data-surface-id="s1"]')).toBeNull();
    expect(slot.el.querySelector("input")).toBeNull();
    expect(slot.el.querySelector(".gu-a2ui-removed").textContent).toBe("Removed the A2UI surface “s1”.");
    const later = createComponentSlot(createComponentContext({ model, send: vi.fn() }));
    later.update(call({ tool_call_id: "a2", args_complete: true, has_result: true }), { messages: [gone] });
    await flush();
    expect(later.el.querySelector(".gu-a2ui-removed").textContent).toBe("Removed the A2UI surface “s1”.");
    expect(applyMessages(new Map(), [...form(), gone]).get("s1").deleted).toBe(true);
  });
});
