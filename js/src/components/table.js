// Built-in Table: rows stream in; a click on a header sorts by that column
// (again: descending). Rows come from the model, or from kernel data the
// kernel resolved by reference or name (then `total_rows` says how many);
// a large one is `paged`: table-paged.js shows it in windows.
// Cells are text only: nothing the model writes becomes markup.

import { h } from "../dom.js";
import { mountPagedTable, sortableHeader } from "./table-paged.js";

const sortOrders = new WeakMap();
/** @type {WeakMap<HTMLElement, {shape: string, source: any, count: number, tbody: HTMLElement}>} what each table shows */
const drawn = new WeakMap();
/** @type {WeakMap<HTMLElement, ReturnType<typeof mountPagedTable>>} */
const pagedTables = new WeakMap();

function columnsOf(props, rows) {
  if (Array.isArray(props.columns) && props.columns.length) return props.columns.map(String);
  const seen = [];
  for (const row of rows) {
    if (row && typeof row === "object" && !Array.isArray(row)) {
      for (const key of Object.keys(row)) if (!seen.includes(key)) seen.push(key);
    }
  }
  return seen;
}

function rawText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A cell as shown: numbers with the reader's thousands separators (as Metric). */
export function cellText(value) {
  if (typeof value === "number" && Number.isFinite(value)) return value.toLocaleString();
  return rawText(value);
}

/** The columns whose values are all numbers (empty cells aside): aligned right. */
export function numericColumns(columns, rows) {
  const numeric = new Set();
  for (const column of columns) {
    let seen = false;
    let all = true;
    for (const row of rows) {
      const v = row?.[column];
      if (v === null || v === undefined || v === "") continue;
      seen = true;
      if (typeof v !== "number") {
        all = false;
        break;
      }
    }
    if (seen && all) numeric.add(column);
  }
  return numeric;
}

/** Compare two cell values: numbers as numbers, empty last, else text. */
export function compareCells(a, b) {
  const emptyA = a === null || a === undefined || a === "";
  const emptyB = b === null || b === undefined || b === "";
  if (emptyA || emptyB) return emptyA === emptyB ? 0 : emptyA ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return rawText(a).localeCompare(rawText(b), undefined, { numeric: true });
}

/** Rows sorted by `column` (stable), ascending or descending. */
export function sortRows(rows, column, descending) {
  const indexed = rows.map((row, i) => [row, i]);
  indexed.sort((x, y) => {
    const c = compareCells(x[0]?.[column], y[0]?.[column]);
    return (descending ? -c : c) || x[1] - y[1];
  });
  return indexed.map(([row]) => row);
}

export function render(args) {
  sortOrders.set(args.el, { column: null, descending: false });
  update(args);
  return () => {
    pagedTables.get(args.el)?.destroy();
    pagedTables.delete(args.el);
  };
}

/** One row's cells: text only, numbers aligned right. */
function rowElement(row, columns) {
  const tr = h("tr");
  for (const column of columns) {
    const value = row[column];
    tr.append(h(typeof value === "number" ? "td.gu-num" : "td", { text: cellText(value) }));
  }
  return tr;
}

/**
 * While the props stream, rows only grow at the end and only the last one
 * can be partial: a table whose shape is unchanged takes its new rows by
 * redrawing its last row and appending the rest, not by drawing every row on
 * every frame. Returns whether it did.
 */
function appendRows(el, p, rows, columns, shape) {
  const before = drawn.get(el);
  if (!before || before.shape !== shape || before.source !== p.rows || before.count > rows.length) return false;
  if (!el.contains(before.tbody)) return false;
  const from = Math.max(0, before.count - 1);
  while (before.tbody.childElementCount > from) before.tbody.lastElementChild?.remove();
  for (let i = from; i < rows.length; i++) before.tbody.append(rowElement(rows[i], columns));
  before.count = rows.length;
  return true;
}

/** @param {{props: any, el: HTMLElement, fetchRows?: any, status?: {streaming?: boolean}}} args */
export function update({ props, el, fetchRows, status }) {
  const p = props ?? {};
  // A large kernel table comes in windows the browser asks for (table-paged.js).
  if (p.paged && typeof fetchRows === "function") {
    const paged = pagedTables.get(el);
    if (paged) paged.update(p);
    else pagedTables.set(el, mountPagedTable(el, p, fetchRows));
    return;
  }
  pagedTables.get(el)?.destroy();
  pagedTables.delete(el);
  const rows = Array.isArray(p.rows) ? p.rows.filter((r) => r && typeof r === "object") : [];
  const columns = columnsOf(p, rows);
  const sort = sortOrders.get(el) ?? { column: null, descending: false };
  const numeric = numericColumns(columns, rows);
  const shape = JSON.stringify([p.title ?? null, columns, [...numeric], p.truncated ? [rows.length, p.total_rows] : null]);
  if (status?.streaming && sort.column === null && appendRows(el, p, rows, columns, shape)) return;
  const shown = sort.column === null ? rows : sortRows(rows, sort.column, sort.descending);

  const table = h("table.gu-c-table");
  if (p.title) table.append(h("caption", { text: String(p.title) }));
  const head = h("tr");
  for (const column of columns) {
    const onSort = () => {
      const descending = sort.column === column ? !sort.descending : false;
      sortOrders.set(el, { column, descending });
      update({ props, el, fetchRows });
    };
    const th = sortableHeader(column, sort, onSort, numeric.has(column) ? "th.gu-num" : "th");
    head.append(th);
  }
  const tbody = h("tbody");
  for (const row of shown) tbody.append(rowElement(row, columns));
  table.append(h("thead", {}, head), tbody);
  const note = p.truncated ? h("div.gu-c-note", { text: `Showing ${rows.length} of ${p.total_rows} rows.` }) : null;
  el.replaceChildren(h("div.gu-c-table-wrap", {}, table, note));
  drawn.set(el, { shape, source: p.rows, count: rows.length, tbody });
}
