// A Table's title reads above its toolbar (filter, row count, CSV), for a
// table sent whole and for a paged kernel table alike; the table's caption
// still names it for a screen reader.
import { describe, expect, it } from "vitest";
import * as table from "../../src/components/table.js";
import { propsStatus } from "../../src/components/status.js";

const rows = [
  { product: "Widget", units: 1200 },
  { product: "Gadget", units: 860 },
];

/** The visible parts of the component, top to bottom, by what they are. */
function order(el) {
  return [...el.children]
    .filter((child) => !(/** @type {HTMLElement} */ (child).hidden))
    .map((child) => child.className.split(" ").find((c) => c.startsWith("gu-c-table-")) ?? child.className);
}

describe("a Table's title", () => {
  it("sits above the filter, count and CSV button, and the caption names the table", () => {
    const el = document.createElement("div");
    const props = { title: "Top products", rows };
    table.render({ props, el, status: propsStatus(props, true) });
    expect(order(el)).toEqual(["gu-c-table-title", "gu-c-table-tools", "gu-c-table-view"]);
    expect(el.querySelector(".gu-c-table-title").textContent).toBe("Top products");
    expect(el.querySelector(".gu-c-table-title").getAttribute("aria-hidden")).toBe("true");
    expect(el.querySelector("table caption").textContent).toBe("Top products");
  });

  it("follows the props while they stream, and is not shown without one", () => {
    const el = document.createElement("div");
    table.render({ props: { rows }, el, status: propsStatus({ rows }, false) });
    expect(order(el)).toEqual(["gu-c-table-tools", "gu-c-table-view"]);
    const titled = { title: "Top", rows };
    table.update({ props: titled, el, status: propsStatus(titled, false) });
    expect(el.querySelector(".gu-c-table-title").textContent).toBe("Top");
    expect(order(el)[0]).toBe("gu-c-table-title");
  });

  it("sits above the toolbar of a paged kernel table too", () => {
    const el = document.createElement("div");
    const fetchRows = async () => ({ offset: 0, total_rows: 2, columns: ["product", "units"], rows });
    const props = { paged: true, total_rows: 5000, columns: ["product", "units"], rows, title: "Orders" };
    table.render({ props, el, status: propsStatus(props, true), fetchRows });
    expect(order(el)).toEqual(["gu-c-table-title", "gu-c-table-tools", "gu-c-table-view"]);
    expect(el.querySelector(".gu-c-table-title").textContent).toBe("Orders");
  });
});
