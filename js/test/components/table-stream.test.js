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
