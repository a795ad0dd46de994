import { describe, expect, it, vi } from "vitest";
import * as chart from "../../src/components/chart.js";
import * as form from "../../src/components/form.js";
import * as image from "../../src/components/image.js";
import * as markdown from "../../src/components/markdown.js";
import * as metric from "../../src/components/metric.js";
import { bundleElement } from "../../src/components/python-component.js";
import * as output from "../../src/components/python-component.js";
import * as table from "../../src/components/table.js";
import { propsStatus } from "../../src/components/status.js";

const complete = (props) => propsStatus(props, true);

describe("table", () => {
  it("renders rows as text and sorts by a clicked column", () => {
    const el = document.createElement("div");
    const props = {
      title: "Sales",
      rows: [
        { region: "b", sales: 10 },
        { region: "<img src=x onerror=alert(1)>", sales: 2 },
        { region: "a", sales: 30 },
      ],
    };
    table.render({ props, el, status: complete(props) });
    const cells = () => [...el.querySelectorAll("tbody tr")].map((tr) => tr.cells[1].textContent);
    expect(el.querySelector("img")).toBeNull(); // model text never becomes markup
    expect(cells()).toEqual(["10", "2", "30"]);
    const salesHeader = el.querySelectorAll("th")[1];
    salesHeader.click();
    expect(cells()).toEqual(["2", "10", "30"]);
    el.querySelectorAll("th")[1].click();
    expect(cells()).toEqual(["30", "10", "2"]);
    expect(el.querySelectorAll("th")[1].getAttribute("aria-sort")).toBe("descending");
  });

  it("shows a column of amounts with the same decimals in every row", () => {
    const el = document.createElement("div");
    const rows = [
      { order: 1.5, units: 3, price: 39 },
      { order: 2, units: 40, price: 39.5 },
      { order: 3, units: 7, price: 12.25 },
    ];
    table.render({ props: { rows }, el, status: complete({ rows }) });
    const column = (i) => [...el.querySelectorAll("tbody tr")].map((tr) => tr.cells[i].textContent);
    expect(column(2)).toEqual(["39.00", "39.50", "12.25"]);
    expect(column(1)).toEqual(["3", "40", "7"]); // whole numbers stay whole
    expect(column(0)).toEqual(["1.5", "2", "3"]); // an identifier column as sent
  });

  it("says when a DataFrame was truncated", () => {
    const el = document.createElement("div");
    table.render({ props: { columns: ["n"], rows: [{ n: 1 }], total_rows: 5000, truncated: true }, el });
    expect(el.querySelector(".gu-c-note").textContent).toBe("Showing 1 of 5000 rows.");
  });

  it("sorts numbers numerically and empty cells last", () => {
    const rows = [{ v: 10 }, { v: null }, { v: 9 }];
    expect(table.sortRows(rows, "v", false).map((r) => r.v)).toEqual([9, 10, null]);
  });
});

describe("metric", () => {
  it("shows a change with its unit", () => {
    const el = document.createElement("div");
    const metrics = [
      { label: "Revenue", value: 559000, unit: "USD", delta: 4.2, delta_unit: "%" },
      { label: "Customers", value: 1284, delta: -12, delta_unit: "customers" },
      { label: "NPS", value: 61, delta: 3 },
    ];
    metric.render({ props: { metrics }, el });
    const deltas = [...el.querySelectorAll(".gu-c-metric-delta")].map((d) => d.textContent);
    expect(deltas).toEqual(["▲ 4.2%", "▼ 12 customers", "▲ 3"]);
  });
});

describe("chart", () => {
  it("draws a line per series and bars for kind=bar", () => {
    const el = document.createElement("div");
    const props = { x: ["a", "b", "c"], series: [{ name: "s1", values: [1, 2, 3] }, { name: "s2", values: [3, 1] }] };
    chart.render({ props, el });
    expect(el.querySelectorAll("polyline")).toHaveLength(2);
    expect(el.querySelectorAll("circle")).toHaveLength(5);
    expect(el.querySelector(".gu-c-legend").textContent).toBe("s1s2");
    const bars = document.createElement("div");
    chart.render({ props: { ...props, kind: "bar" }, el: bars });
    expect(bars.querySelectorAll("rect")).toHaveLength(5);
  });

  it("picks round ticks that cover the values", () => {
    expect(chart.ticks(0, 100)).toEqual([0, 25, 50, 75, 100]);
    expect(chart.ticks(0, 96)).toEqual([0, 25, 50, 75, 100]);
    expect(chart.ticks(0, 7)).toEqual([0, 2, 4, 6, 8]);
    expect(chart.ticks(-13, 47)).toEqual([-20, 0, 20, 40, 60]);
    expect(chart.ticks(0.1, 0.3)).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
  });

  it("draws its y axis up to at least the largest value", () => {
    const el = document.createElement("div");
    chart.render({ props: { x: ["a", "b", "c"], series: [{ values: [40, 96, 71] }] }, el });
    const labels = [...el.querySelectorAll("svg > text")].map((t) => t.textContent);
    expect(labels.slice(0, 5)).toEqual(["0", "25", "50", "75", "100"]);
    const top = Math.min(...[...el.querySelectorAll("line.gu-grid")].map((l) => Number(l.getAttribute("y1"))));
    const highest = Math.min(...[...el.querySelectorAll("circle")].map((c) => Number(c.getAttribute("cy"))));
    expect(highest).toBeGreaterThanOrEqual(top); // no point above the top grid line
  });
});

describe("image", () => {
  it("sets only safe sources, and only once the src finished streaming", () => {
    expect(image.isSafeSrc("https://x.org/a.png")).toBe(true);
    expect(image.isSafeSrc("javascript:alert(1)")).toBe(false);
    expect(image.isSafeSrc("data:text/html;base64,AAAA")).toBe(false);
    const streaming = document.createElement("div");
    const partial = { src: "https://x.org/a.p" };
    image.render({ props: partial, status: propsStatus(partial, false), el: streaming });
    expect(streaming.querySelector("img").getAttribute("src")).toBeNull();
    const bad = document.createElement("div");
    image.render({ props: { src: "javascript:alert(1)" }, status: complete({}), el: bad });
    expect(bad.querySelector("img").getAttribute("src")).toBeNull();
    expect(bad.querySelector(".gu-component-error")).not.toBeNull();
  });
});

describe("form", () => {
  it("turns edits into state and submit into a flushed, submitted state", () => {
    const el = document.createElement("div");
    const props = {
      title: "Trip",
      fields: [
        { name: "city", type: "text", default: "Oslo" },
        { name: "nights", type: "number" },
        { name: "pets", type: "checkbox" },
      ],
    };
    const setState = vi.fn();
    form.render({ props, status: complete(props), el, state: {}, setState });
    const nights = el.querySelector('[data-field="nights"]');
    nights.value = "3";
    nights.dispatchEvent(new Event("input"));
    expect(setState).toHaveBeenLastCalledWith({ values: { city: "Oslo", nights: 3 } });
    el.querySelector("form").dispatchEvent(new Event("submit", { cancelable: true }));
    expect(setState).toHaveBeenLastCalledWith(
      { values: { city: "Oslo", nights: 3 }, submitted: true },
      { flush: true },
    );
  });

  it("takes decimals in a number field and whole numbers in an integer field, within bounds", () => {
    const el = document.createElement("div");
    const props = {
      fields: [
        { name: "price", type: "number", default: 9.99, minimum: 0.5, maximum: 100 },
        { name: "guests", type: "integer", minimum: 0.5, maximum: 8.5 },
      ],
    };
    const setState = vi.fn();
    form.render({ props, status: complete(props), el, state: {}, setState });
    const price = el.querySelector('[data-field="price"]');
    const guests = el.querySelector('[data-field="guests"]');
    expect([price.type, price.step, price.min, price.max, price.value]).toEqual(["number", "any", "0.5", "100", "9.99"]);
    // an integer's bounds rounded inward, so its steps count from a whole number
    expect([guests.type, guests.step, guests.min, guests.max]).toEqual(["number", "1", "1", "8"]);
    price.value = "95.5";
    price.dispatchEvent(new Event("input"));
    expect(price.checkValidity()).toBe(true);
    guests.value = "3";
    guests.dispatchEvent(new Event("input"));
    expect(setState).toHaveBeenLastCalledWith({ values: { price: 95.5, guests: 3 } });
    guests.value = "2.5";
    expect(guests.checkValidity()).toBe(false); // the browser keeps the form from submitting
    guests.value = "9";
    expect(guests.checkValidity()).toBe(false);
  });

  it("keeps the user's input when unrelated updates arrive", () => {
    const el = document.createElement("div");
    const props = { fields: [{ name: "a" }] };
    form.render({ props, status: complete(props), el, state: {}, setState: () => {} });
    const input = el.querySelector("input");
    input.value = "typed";
    form.update({ props: { fields: [{ name: "a" }] }, status: complete(props), el, state: {}, setState: () => {} });
    expect(el.querySelector("input")).toBe(input);
  });
});

describe("markdown and kernel output", () => {
  it("sanitizes markdown", () => {
    const el = document.createElement("div");
    markdown.render({ props: { text: "**hi** <script>alert(1)</script>" }, el });
    expect(el.querySelector("strong").textContent).toBe("hi");
    expect(el.querySelector("script")).toBeNull();
  });

  it("shows a PNG bundle as an image and sanitized HTML", () => {
    expect(bundleElement({ "image/png": "AAAA" }).getAttribute("src")).toBe("data:image/png;base64,AAAA");
    const html = bundleElement({ "text/html": "<table><tr><td>1</td></tr></table><script>x()</script>" });
    expect(html.querySelector("td").textContent).toBe("1");
    expect(html.querySelector("script")).toBeNull();
  });

  it("replaces output in place and shows a final error", () => {
    const el = document.createElement("div");
    output.render({ output: null, el });
    expect(el.textContent).toBe("Rendering…");
    output.update({ output: { seq: 1, bundle: { "text/plain": "v1" } }, el });
    output.update({ output: { seq: 2, final: true, bundle: { "text/plain": "v2" } }, el });
    expect(el.textContent).toBe("v2");
    output.update({ output: { seq: 3, final: true, error: "Plot failed: boom" }, el });
    expect(el.querySelector(".gu-component-error").textContent).toBe("Plot failed: boom");
  });
});
