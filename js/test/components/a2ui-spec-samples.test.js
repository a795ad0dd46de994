import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { renderSurface } from "../../src/a2ui/render.js";
import { applyMessages } from "../../src/a2ui/surfaces.js";

// The spec's basic-catalog examples (google/A2UI, tests/fixtures/a2ui/spec/SOURCES.md)
const SPEC = join(process.cwd(), "../tests/fixtures/a2ui/spec");
const samples = ["v0_8", "v0_9"].flatMap((version) =>
  readdirSync(join(SPEC, version))
    .filter((name) => name.endsWith(".json"))
    .map((name) => {
      const sample = JSON.parse(readFileSync(join(SPEC, version, name), "utf8"));
      return [`${version}/${name}`, Array.isArray(sample) ? sample : sample.messages];
    }),
);

describe("the spec's basic-catalog samples", () => {
  it.each(samples)("%s draws every component, none refused or missing", (_name, messages) => {
    const surfaces = [...applyMessages(new Map(), messages).values()];
    expect(surfaces.length).toBeGreaterThan(0);
    for (const surface of surfaces) {
      const view = renderSurface(surface, { data: () => surface.data, edit: vi.fn(), press: vi.fn() });
      const problems = [...view.el.querySelectorAll(".gu-a2ui-error, .gu-a2ui-pending")].map((el) => el.outerHTML);
      expect(problems).toEqual([]);
      expect(view.el.querySelectorAll("[data-a2ui-id]").length).toBeGreaterThan(1);
      const blank = [...view.el.querySelectorAll('[data-a2ui-component="Text"]')].filter((el) => !el.textContent.trim());
      expect(blank.map((el) => el.dataset.a2uiId)).toEqual([]); // every binding and format call gave text
      expect([...view.el.querySelectorAll(".gu-a2ui-icon")].filter((el) => el.textContent === "•")).toEqual([]);
    }
  });

  const drawn = (name) => {
    const [, messages] = samples.find(([n]) => n === name);
    const [surface] = applyMessages(new Map(), messages).values();
    return renderSurface(surface, { data: () => surface.data, edit: vi.fn(), press: vi.fn() }).el;
  };
  const textOf = (el, id) => [...el.querySelectorAll(`[data-a2ui-id="${id}"]`)].map((e) => e.textContent);

  it("runs the catalog's format functions: currency, numbers, plurals, strings, dates", () => {
    const product = drawn("v0_9/05_product-card.json");
    expect(textOf(product, "price")).toEqual(["$199.99"]);
    expect(textOf(product, "reviews")).toEqual(["(2,847 reviews)"]);
    expect(textOf(drawn("v0_9/13_coffee-order.json"), "item-price")).toEqual(["$6.45", "$4.25"]);
    expect(textOf(drawn("v0_9/04_weather-current.json"), "day-temp")).toEqual(["74°", "76°", "71°", "73°", "75°"]);
    expect(textOf(drawn("v0_9/03_calendar-day.json"), "day-number")).toEqual(["28"]); // "2025-12-28" in any time zone
    expect(textOf(drawn("v0_9/19_software-purchase.json"), "total-value")[0]).toMatch(/^\$[\d,.]+\/year$/);
  });

  it("reads a v0.8 valueString holding JSON as the list it is, as the official renderer does", () => {
    expect(textOf(drawn("v0_8/04_weather-current.json"), "day1-temp")).toEqual(["74°"]);
  });
});
