// The filter of a paged Table is the kernel's: the box's text goes with each
// window request once typing pauses, the count reads "12 of 20,000 rows", a
// CSV holds the rows the filter keeps, an answer to an old filter is dropped.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createComponentContext } from "../../src/components/slot.js";
import * as table from "../../src/components/table.js";
import { mountPagedTable } from "../../src/components/table-paged.js";

const TOTAL = 20_000;
const city = (i) => (i % 1_000 === 7 ? "North Bay" : "Southport");

/** A kernel stand-in that filters as the kernel does: plain text, any case. */
function kernel({ hold = false } = {}) {
  const asked = [];
  const waiting = [];
  const fetchRows = (opts) => {
    asked.push(opts);
    const q = (opts.filter ?? "").trim().toLowerCase();
    const kept = [];
    for (let i = 0; i < TOTAL; i++) if (!q || city(i).toLowerCase().includes(q)) kept.push(i);
    const rows = kept.slice(opts.offset, opts.offset + opts.limit).map((i) => ({ id: i, city: city(i) }));
    const win = { offset: opts.offset, total_rows: kept.length, columns: ["id", "city"], rows };
    if (q) Object.assign(win, { filter: opts.filter, all_rows: TOTAL });
    if (!hold) return Promise.resolve(win);
    return new Promise((resolve) => waiting.push(() => resolve(win)));
  };
  return { asked, waiting, fetchRows };
}

const first = Array.from({ length: 200 }, (_, i) => ({ id: i, city: city(i) }));
const props = { paged: true, total_rows: TOTAL, columns: ["id", "city"], rows: first, source: "orders" };
const settle = () => new Promise((r) => setTimeout(r, 0));
const note = (el) => el.querySelector(".gu-c-table-view .gu-c-note").textContent;
const cities = (el) => [...el.querySelectorAll("tbody tr[data-row]")].map((tr) => tr.cells[1].textContent);

afterEach(() => vi.useRealTimers());

describe("the filter of a paged table", () => {
  it("is sent to the kernel once typing pauses and shows the matches and their count", async () => {
    vi.useFakeTimers();
    const el = document.createElement("div");
    const k = kernel();
    table.render({ props, el, fetchRows: k.fetchRows });
    const box = el.querySelector("input.gu-c-table-filter");
    expect(box.hidden).toBe(false);
    for (const text of ["n", "no", "NORTH"]) {
      box.value = text;
      box.dispatchEvent(new Event("input"));
    }
    expect(k.asked.some((a) => a.filter)).toBe(false); // not on every key
    await vi.advanceTimersByTimeAsync(table.FILTER_DELAY_MS);
    expect(new Set(k.asked.filter((a) => a.filter).map((a) => a.filter))).toEqual(new Set(["NORTH"]));
    expect(note(el)).toBe(`20 of ${(20_000).toLocaleString()} rows × 2 columns`);
    expect(cities(el).every((c) => c === "North Bay")).toBe(true);
    expect(el.dataset.totalRows).toBe("20");

    box.value = "";
    box.dispatchEvent(new Event("input"));
    await vi.advanceTimersByTimeAsync(table.FILTER_DELAY_MS);
    expect(note(el)).toBe(`${(20_000).toLocaleString()} rows × 2 columns`);
    expect(cities(el)).toContain("Southport");
  });

  it("says a filter that keeps nothing, and a CSV holds only the rows it keeps", async () => {
    const el = document.createElement("div");
    const k = kernel();
    const paged = mountPagedTable(el, props, k.fetchRows);
    paged.setFilter("nowhere");
    await settle();
    expect(el.querySelector(".gu-c-note").textContent).toBe(`0 of ${(20_000).toLocaleString()} rows × 2 columns`);
    expect(el.querySelectorAll("tbody tr[data-row]")).toHaveLength(0);
    paged.setFilter("bay");
    await settle();
    const all = await paged.allRows();
    expect(all.rows).toHaveLength(20);
    expect(all.rows.every((r) => r.city === "North Bay")).toBe(true);
    expect(k.asked.at(-1).filter).toBe("bay");
    paged.destroy();
  });

  it("drops the answer to a filter replaced before it came", async () => {
    const el = document.createElement("div");
    const k = kernel({ hold: true });
    const paged = mountPagedTable(el, props, k.fetchRows);
    paged.setFilter("south");
    expect(el.querySelector(".gu-c-note").textContent).toBe(`Filtering ${(20_000).toLocaleString()} rows…`);
    const late = k.waiting.length;
    paged.setFilter("north");
    for (const answer of k.waiting.splice(late)) answer(); // the "north" windows
    await settle();
    for (const answer of k.waiting.splice(0)) answer(); // "south" comes last: dropped
    await settle();
    expect(el.querySelector(".gu-c-note").textContent).toBe(`20 of ${(20_000).toLocaleString()} rows × 2 columns`);
    expect(cities(el).every((c) => c === "North Bay")).toBe(true);
    paged.destroy();
  });
});

describe("a filter over the kernel's limit", () => {
  it("is refused in the browser with the reason, nothing sent", async () => {
    const send = vi.fn();
    const model = { get: (key) => (key === "limits" ? { max_filter: 5 } : undefined), on() {}, off() {} };
    const cctx = createComponentContext({ model, send });
    await expect(cctx.fetchRows("call_1", { offset: 0, limit: 10, filter: "longer" })).rejects.toThrow(
      "the filter is longer than 5 characters",
    );
    expect(send).not.toHaveBeenCalled();
    cctx.fetchRows("call_1", { offset: 0, limit: 10, filter: "short" });
    expect(send.mock.calls[0][0]).toMatchObject({ type: "data_window", filter: "short" });
  });
});

describe("the filter of a table in the browser", () => {
  it("matches a number as shown, with its separators, or as written", () => {
    const rows = [{ amount: 12345 }, { amount: 99 }];
    expect(table.filterRows(rows, ["amount"], (12345).toLocaleString())).toEqual([rows[0]]);
    expect(table.filterRows(rows, ["amount"], "2345")).toEqual([rows[0]]);
    expect(table.filterRows(rows, ["amount"], "a.")).toEqual([]); // plain text, no pattern
  });
});
