// The built-in Table while its rows stream: new rows are appended (only the
// last, possibly partial, row is redrawn), and the result is the table a
// one-shot render of the final props draws.

import { describe, expect, it } from "vitest";
import { propsStatus } from "../../src/components/status.js";
import * as table from "../../src/components/table.js";
import { PartialJsonParser } from "../../src/common/partial-json.js";

const rowsOf = (el) => [...el.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((td) => td.textContent));

/** Stream `props` as text in `size`-character pieces into one live parse, rendering after each. */
function streamInto(el, props, size) {
  const text = JSON.stringify(props);
  const parser = new PartialJsonParser();
  let rendered = false;
  const seen = [];
  for (let at = 0; at < text.length; at += size) {
    parser.feed(text.slice(at, at + size));
    const value = parser.value ?? {};
    const args = { props: { ...value }, el, status: propsStatus(value, false) };
    if (!rendered) table.render(args);
    else table.update(args);
    rendered = true;
    seen.push(el.querySelector("tbody tr"));
  }
  table.update({ props: { ...parser.value }, el, status: propsStatus(parser.value, true) });
  return seen;
}

describe("streaming table", () => {
  const props = { title: "T", rows: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `row ${i}`, score: i / 4 })) };

  it("keeps the rows it drew and appends the new ones", () => {
    const el = document.createElement("div");
    const firstRow = streamInto(el, props, 13).filter(Boolean);
    expect(firstRow.length).toBeGreaterThan(100);
    // The first row is drawn again only while it is the last one (or the columns change).
    expect(new Set(firstRow).size).toBeLessThan(10);

    const once = document.createElement("div");
    table.render({ props, el: once, status: propsStatus(props, true) });
    expect(rowsOf(el)).toEqual(rowsOf(once));
    expect(el.innerHTML).toBe(once.innerHTML);
  });

  it("takes the call's complete props, a new object of the same rows, without drawing them again", () => {
    const el = document.createElement("div");
    streamInto(el, props, 17);
    const drawnRows = [...el.querySelectorAll("tbody tr")];
    const complete = JSON.parse(JSON.stringify(props)); // as the kernel sends them
    table.update({ props: complete, el, status: propsStatus(complete, true) });
    const now = [...el.querySelectorAll("tbody tr")];
    expect(now.slice(0, -1)).toEqual(drawnRows.slice(0, -1)); // the same elements...
    expect(now.slice(0, -1).every((tr, i) => tr === drawnRows[i])).toBe(true);
    const once = document.createElement("div");
    table.render({ props, el: once, status: propsStatus(props, true) });
    expect(el.innerHTML).toBe(once.innerHTML); // ...showing what a one-shot render shows
  });

  it("draws the complete props again when a row drawn before differs", () => {
    const el = document.createElement("div");
    streamInto(el, props, 17);
    const first = el.querySelector("tbody tr");
    const changed = JSON.parse(JSON.stringify(props));
    changed.rows[3].name = "renamed";
    table.update({ props: changed, el, status: propsStatus(changed, true) });
    expect(el.querySelector("tbody tr")).not.toBe(first);
    expect(rowsOf(el)[3][1]).toBe("renamed");
    const once = document.createElement("div");
    table.render({ props: changed, el: once, status: propsStatus(changed, true) });
    expect(el.innerHTML).toBe(once.innerHTML);
  });

  it("draws every row again once a filter is cleared", () => {
    const el = document.createElement("div");
    table.render({ props, el, status: propsStatus(props, true) });
    const filter = el.querySelector("input.gu-c-table-filter");
    filter.value = "row 1";
    filter.dispatchEvent(new Event("input"));
    expect(rowsOf(el).length).toBeLessThan(props.rows.length);
    filter.value = "";
    filter.dispatchEvent(new Event("input"));
    expect(rowsOf(el).length).toBe(props.rows.length);
    const once = document.createElement("div");
    table.render({ props, el: once, status: propsStatus(props, true) });
    expect(rowsOf(el)).toEqual(rowsOf(once));
  });

  it("draws again when a column appears or the rows are sorted", () => {
    const el = document.createElement("div");
    const mixed = { rows: [{ a: 1 }, { a: 2 }, { a: 3, b: "x" }, { a: "four" }] };
    streamInto(el, mixed, 5);
    const once = document.createElement("div");
    table.render({ props: mixed, el: once, status: propsStatus(mixed, true) });
    expect(el.innerHTML).toBe(once.innerHTML); // header and the numeric column's alignment follow the rows
    el.querySelectorAll("th")[0].click();
    expect(rowsOf(el).map((r) => r[0])).toEqual(["1", "2", "3", "four"]);
  });
});
