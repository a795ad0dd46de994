import { describe, expect, it, vi } from "vitest";
import { renderSurface } from "../../src/a2ui/render.js";
import { applyMessages, pointerSet } from "../../src/a2ui/surfaces.js";

// The basic catalog's List, Tabs, Modal, Slider and DateTimeInput, each drawn and used.
function draw(components, data = {}) {
  const surface = applyMessages(new Map(), [
    { version: "v0.9", updateComponents: { surfaceId: "s", components } },
    { version: "v0.9", updateDataModel: { surfaceId: "s", path: "/", value: data } },
  ]).get("s");
  const edit = vi.fn((path, value) => {
    surface.data = pointerSet(surface.data, path, value);
  });
  const view = renderSurface(surface, { data: () => surface.data, edit, press: vi.fn() });
  return { el: view.el, view, edit, surface };
}
const text = (id, t) => ({ id, component: "Text", text: t });
const shown = (el) => [...el.querySelectorAll('[data-a2ui-component="Text"]')].map((e) => e.textContent);

describe("A2UI catalog components", () => {
  it("List draws a template child per item, horizontally when asked", () => {
    const { el } = draw(
      [
        { id: "root", component: "List", direction: "horizontal", children: { componentId: "item", path: "/fruit" } },
        { id: "item", component: "Text", text: { path: "name" } },
      ],
      { fruit: [{ name: "apple" }, { name: "pear" }, { name: "fig" }] },
    );
    const list = el.querySelector('[data-a2ui-component="List"]');
    expect(list.classList.contains("gu-a2ui-row")).toBe(true);
    expect(shown(list)).toEqual(["apple", "pear", "fig"]);
    const vertical = draw([{ id: "root", component: "List", children: ["a", "b"] }, text("a", "A"), text("b", "B")]).el;
    expect(vertical.querySelector(".gu-a2ui-list").classList.contains("gu-a2ui-column")).toBe(true);
    expect(shown(vertical)).toEqual(["A", "B"]);
  });

  it("Tabs shows the first tab's child and another on a click", () => {
    const { el } = draw([
      {
        id: "root",
        component: "Tabs",
        tabs: [
          { title: "One", child: "p1" },
          { title: { path: "/second" }, child: "p2" },
        ],
      },
      text("p1", "first panel"),
      text("p2", "second panel"),
    ], { second: "Two" });
    const tabs = [...el.querySelectorAll('[role="tab"]')];
    expect(tabs.map((t) => t.textContent)).toEqual(["One", "Two"]);
    expect(tabs.map((t) => t.getAttribute("aria-selected"))).toEqual(["true", "false"]);
    expect(el.querySelector('[role="tabpanel"]').textContent).toBe("first panel");
    tabs[1].click();
    expect(tabs.map((t) => t.getAttribute("aria-selected"))).toEqual(["false", "true"]);
    expect(el.querySelector('[role="tabpanel"]').textContent).toBe("second panel");
  });

  it("Modal keeps its content hidden until its trigger is clicked, and hides it again", () => {
    const { el } = draw([
      { id: "root", component: "Modal", trigger: "open", content: "body" },
      { id: "open", component: "Button", child: "open_label", action: { event: { name: "noop" } } },
      text("open_label", "Details"),
      text("body", "The fine print"),
    ]);
    const content = el.querySelector(".gu-a2ui-modal-content");
    expect(content.hidden).toBe(true);
    expect(content.textContent).toBe("The fine print");
    el.querySelector(".gu-a2ui-modal-trigger button").click();
    expect(content.hidden).toBe(false);
    el.querySelector(".gu-a2ui-modal-trigger").click();
    expect(content.hidden).toBe(true);
  });

  it("Slider shows its bound value, its bounds, and writes what the user drags to", () => {
    const { el, edit, surface } = draw(
      [{ id: "root", component: "Slider", label: "Volume", min: 0, max: 11, value: { path: "/volume" } }],
      { volume: 7 },
    );
    const input = el.querySelector('input[type="range"]');
    expect([input.min, input.max, input.value]).toEqual(["0", "11", "7"]);
    expect(el.querySelector(".gu-a2ui-label").textContent).toBe("Volume");
    expect(el.querySelector(".gu-a2ui-slider-value").textContent).toBe("7");
    input.value = "9";
    input.dispatchEvent(new Event("input"));
    expect(edit).toHaveBeenCalledWith("/volume", 9);
    expect(surface.data.volume).toBe(9);
    expect(el.querySelector(".gu-a2ui-slider-value").textContent).toBe("9");
    const fixed = draw([{ id: "root", component: "Slider", max: 5, value: 3 }]).el.querySelector("input");
    expect([fixed.value, fixed.disabled]).toEqual(["3", true]); // a literal cannot be moved
  });

  it("DateTimeInput is a date, time or both input bound to the data model", () => {
    const kinds = (c) => draw([{ id: "root", component: "DateTimeInput", value: { path: "/when" }, ...c }]).el.querySelector("input").type;
    expect(kinds({})).toBe("date");
    expect(kinds({ enableDate: false, enableTime: true })).toBe("time");
    expect(kinds({ enableDate: true, enableTime: true })).toBe("datetime-local");
    const { el, edit, view } = draw(
      [{ id: "root", component: "DateTimeInput", label: "Arrive", value: { path: "/when" } }],
      { when: "2026-01-26" },
    );
    const input = el.querySelector("input");
    expect(input.value).toBe("2026-01-26");
    expect(el.querySelector(".gu-a2ui-label").textContent).toBe("Arrive");
    input.value = "2026-02-01";
    input.dispatchEvent(new Event("change"));
    expect(edit).toHaveBeenCalledWith("/when", "2026-02-01");
    view.refresh();
    expect(input.value).toBe("2026-02-01");
  });
});
