// The Table of a large kernel table: only rows in view in the DOM, windows
// fetched by offset, sorting asked of the kernel, failures shown in place.
import { describe, expect, it } from "vitest";
import * as table from "../../src/components/table.js";
import { BLOCK, mountPagedTable, scrollTopFor } from "../../src/components/table-paged.js";

const TOTAL = 1_000_000;

/** A kernel stand-in: row i has n = i and k = TOTAL - i; sorting by k ascending reverses. */
function kernel() {
  const asked = [];
  const fetchRows = async ({ offset, limit, sort, descending }) => {
    asked.push({ offset, limit, sort, descending });
    const rows = [];
    for (let j = offset; j < Math.min(TOTAL, offset + limit); j++) {
      const reversed = (sort === "k") !== descending;
      const i = reversed ? TOTAL - 1 - j : j;
      rows.push({ n: i, k: TOTAL - i });
    }
    return { offset, total_rows: TOTAL, columns: ["n", "k"], rows };
  };
  return { asked, fetchRows };
}

const firstRows = (n) => Array.from({ length: n }, (_, i) => ({ n: i, k: TOTAL - i }));
const props = { paged: true, total_rows: TOTAL, columns: ["n", "k"], rows: firstRows(200), source: "df_1" };
const settle = () => new Promise((r) => setTimeout(r, 0));
const shown = (el) => [...el.querySelectorAll("tbody tr[data-row]")].map((tr) => tr.cells[0].textContent);

function scrollTo(el, top) {
  const scroller = el.querySelector(".gu-c-table-scroll");
  Object.defineProperty(scroller, "scrollTop", { value: top, writable: true, configurable: true });
  scroller.dispatchEvent(new Event("scroll"));
}

describe("paged table", () => {
  it("puts only the rows in view in the DOM and asks for nothing it was sent", () => {
    const el = document.createElement("div");
    const k = kernel();
    mountPagedTable(el, props, k.fetchRows);
    expect(shown(el).length).toBeLessThan(60);
    expect(shown(el)[0]).toBe("0");
    expect(el.dataset.totalRows).toBe(String(TOTAL));
    expect(k.asked).toEqual([]);
  });

  it("fetches the window a scroll reaches, then shows its rows", async () => {
    const el = document.createElement("div");
    const k = kernel();
    mountPagedTable(el, props, k.fetchRows);
    scrollTo(el, scrollTopFor(500_000, TOTAL));
    expect(k.asked.map((a) => a.offset)).toContain(Math.floor((500_000 - 10) / BLOCK) * BLOCK);
    expect(shown(el)).toContain("…");
    await settle();
    expect(shown(el)).toContain("500000");
    expect(shown(el)).not.toContain("…");
  });

  it("reaches the last row of a million through a scaled scroll range", async () => {
    const el = document.createElement("div");
    const k = kernel();
    mountPagedTable(el, props, k.fetchRows);
    scrollTo(el, scrollTopFor(TOTAL - 1, TOTAL));
    await settle();
    expect(shown(el)).toContain(String(TOTAL - 1));
    const spacers = [...el.querySelectorAll("tr.gu-c-spacer td")].map((td) => parseFloat(td.style.height));
    expect(Math.max(...spacers)).toBeLessThanOrEqual(4_000_000);
  });

  it("sorts in the kernel on a header click, again for descending", async () => {
    const el = document.createElement("div");
    const k = kernel();
    mountPagedTable(el, props, k.fetchRows);
    el.querySelectorAll("th")[1].click();
    expect(k.asked).toContainEqual({ offset: 0, limit: BLOCK, sort: "k", descending: false });
    await settle();
    expect(shown(el)[0]).toBe(String(TOTAL - 1));
    expect(el.querySelectorAll("th")[1].getAttribute("aria-sort")).toBe("ascending");
    el.querySelectorAll("th")[1].click();
    expect(k.asked).toContainEqual({ offset: 0, limit: BLOCK, sort: "k", descending: true });
    await settle();
    expect(shown(el)[0]).toBe("0");
  });

  it("ignores a late window of an older sort", async () => {
    const el = document.createElement("div");
    let release;
    const slow = () => new Promise((r) => (release = r));
    const k = kernel();
    let first = true;
    const fetchRows = (opts) => {
      if (first) {
        first = false;
        return slow();
      }
      return k.fetchRows(opts);
    };
    mountPagedTable(el, props, fetchRows);
    el.querySelectorAll("th")[0].click(); // asks, slowly
    el.querySelectorAll("th")[1].click(); // a newer sort
    await settle();
    release({ offset: 0, total_rows: TOTAL, columns: ["n", "k"], rows: [{ n: "stale", k: 0 }] });
    await settle();
    expect(shown(el)).not.toContain("stale");
    expect(shown(el)[0]).toBe(String(TOTAL - 1));
  });

  it("shows a failed window as an error line, the table stays", async () => {
    const el = document.createElement("div");
    mountPagedTable(el, props, () => Promise.reject(new Error("no column 'x'")));
    el.querySelectorAll("th")[0].click();
    await settle();
    expect(el.querySelector(".gu-c-note").textContent).toContain("no column 'x'");
    expect(el.querySelectorAll("th").length).toBe(2);
  });

  it("is what Table renders for paged props with a fetchRows", () => {
    const el = document.createElement("div");
    const k = kernel();
    table.render({ props, el, fetchRows: k.fetchRows });
    expect(el.querySelector(".gu-c-table-paged")).not.toBeNull();
    expect(shown(el).length).toBeLessThan(60);
  });
});
