// Built-in Table: rows stream in; a click on a header sorts by that column
// (again: descending). Rows come from the model, or from kernel data the
// kernel resolved by reference or name (then `total_rows` says how many);
// a large one is `paged`: table-paged.js shows it in windows.
// Cells are text only: nothing the model writes becomes markup.

import { h } from "../common/dom.js";
import { csvButton } from "./table-csv.js";
import { mountPagedTable, shapeText, sortableHeader } from "./table-paged.js";

export { shapeText };

/** Typing pauses this long before a paged table asks the kernel to filter. */
export const FILTER_DELAY_MS = 250;

const sortOrders = new WeakMap();
/** @type {WeakMap<HTMLElement, {shape: string, source: any, count: number, tbody: HTMLElement, keys: string[]}>} what each table shows, in the rows' own order */
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

/** A cell as shown: numbers with the reader's thousands separators (as Metric),
 * except in a column of identifiers (`plain`): an id, a year or a zip code.
 * @param {unknown} value
 * @param {boolean} [plain]
 * @param {number} [decimals] the column's decimals (columnDecimals), if it has some
 */
export function cellText(value, plain = false, decimals = undefined) {
  if (!plain && typeof value === "number" && Number.isFinite(value)) {
    if (decimals === undefined) return value.toLocaleString();
    return value.toLocaleString(undefined, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  }
  return rawText(value);
}

const MAX_DECIMALS = 3; // as toLocaleString rounds by default

function decimalsOf(value) {
  for (let d = 1; d < MAX_DECIMALS; d++) {
    const scaled = value * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6) return d;
  }
  return MAX_DECIMALS;
}

/** The decimals each column of amounts shows, the most any of its numbers
 * needs (at most 3), so a column reads alike: "39.0" beside "39.5", not "39".
 * Columns of whole numbers and of identifiers are left out. */
export function columnDecimals(columns, rows) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const column of columns) {
    if (isIdentifierColumn(column)) continue;
    let most = 0;
    for (const row of rows) {
      const v = row?.[column];
      if (typeof v === "number" && Number.isFinite(v) && !Number.isInteger(v)) most = Math.max(most, decimalsOf(v));
    }
    if (most > 0) out[column] = most;
  }
  return out;
}

const IDENTIFIER_NAME =
  /^(?:id|.*[_\s.-]id|.*[a-z]Id|.*ID|ids?|uuid|year|.*[_\s]year|yr|zip|zip_?code|post(?:al)?_?code|.*_code|code|.*_no|phone|order|invoice|account|sku|isbn|ean)$/;

/** A column whose numbers name things, not amounts: shown as plain digits. */
export function isIdentifierColumn(column) {
  return IDENTIFIER_NAME.test(String(column));
}

/** An internal reference of the chat's data ("df_1"): never a table's title. */
export const isInternalRef = (text) => typeof text === "string" && /^(?:df|series|array|fig|result)_\d+$/.test(text);

/** The caption: the title given, unless it is only the internal reference of the data shown. */
export function tableTitle(p) {
  const title = p.title;
  if (title === null || title === undefined || title === "") return "";
  if ((title === p.data || title === p.source) && isInternalRef(title)) return "";
  return String(title);
}

/** The rows whose text holds `query` in some column (case-insensitive, plain text):
 * a cell's text as sent or as shown ("1,234"), as the kernel filters a paged table. */
export function filterRows(rows, columns, query) {
  const q = String(query ?? "").trim().toLowerCase();
  if (!q) return rows;
  const holds = (value, column) =>
    rawText(value).toLowerCase().includes(q) ||
    (typeof value === "number" && cellText(value, isIdentifierColumn(column)).toLowerCase().includes(q));
  return rows.filter((row) => columns.some((c) => holds(row?.[c], c)));
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
function rowElement(row, columns, decimals = {}) {
  const tr = h("tr");
  for (const column of columns) {
    const value = row[column];
    const text = cellText(value, isIdentifierColumn(column), decimals[column]);
    tr.append(h(typeof value === "number" ? "td.gu-num" : "td", { text }));
  }
  return tr;
}

/** @type {WeakMap<HTMLElement, {el: HTMLElement, title: HTMLElement, filter: HTMLInputElement, count: HTMLElement, note: HTMLElement, view: HTMLElement, current: () => any}>} */
const toolbars = new WeakMap();

/**
 * The lines above a table: its title, then its size, a filter and CSV download.
 * The title is shown here, above the tools it names; the table's own
 * (visually hidden) caption still names it for a screen reader.
 */
function toolbarOf(el) {
  let bar = toolbars.get(el);
  if (!bar) {
    const filter = h("input.gu-c-table-filter", {
      type: "search",
      placeholder: "Filter rows",
      "aria-label": "Filter rows",
    });
    const count = h("span.gu-c-table-count", { role: "status" });
    const note = h("div.gu-c-note.gu-c-table-csv-note", { hidden: true });
    const view = h("div.gu-c-table-view");
    const made = {
      el: h("div.gu-c-table-tools"),
      title: h("div.gu-c-title.gu-c-table-title", { "aria-hidden": "true", hidden: true }),
      filter,
      count,
      note,
      view,
      current: () => ({ columns: [], rows: [] }),
    };
    const say = (text) => {
      note.textContent = text;
      note.hidden = !text;
    };
    made.el.append(filter, count, csvButton(() => Promise.resolve(made.current()), say));
    bar = made;
    toolbars.set(el, bar);
  }
  if (!el.contains(bar.el)) el.replaceChildren(bar.title, bar.el, bar.view, bar.note);
  return bar;
}

function showTitle(bar, title) {
  bar.title.textContent = title;
  bar.title.hidden = !title;
}

const rowKey = (row) => JSON.stringify(row);

/** Whether `rows` begins with the rows drawn as `keys` (all but the last, which may have been partial). */
function sameStart(keys, rows, count) {
  for (let i = 0; i < count; i++) if (keys[i] !== rowKey(rows[i])) return false;
  return true;
}

/**
 * While the props stream, rows only grow at the end and only the last one
 * can be partial: a table whose shape is unchanged takes its new rows by
 * redrawing its last row and appending the rest, not by drawing every row on
 * every frame. The call's complete props (a new object from the kernel) are
 * taken the same way when the rows drawn are what they hold (compared as
 * text: far cheaper than drawing a thousand rows again). Returns whether it did.
 */
function appendRows(el, p, rows, columns, shape, decimals) {
  const before = drawn.get(el);
  if (!before || before.shape !== shape || before.count > rows.length) return false;
  if (!el.contains(before.tbody)) return false;
  const from = Math.max(0, before.count - 1);
  if (before.source !== p.rows && !sameStart(before.keys, rows, from)) return false;
  while (before.tbody.childElementCount > from) before.tbody.lastElementChild?.remove();
  before.keys.length = from;
  for (let i = from; i < rows.length; i++) {
    before.tbody.append(rowElement(rows[i], columns, decimals));
    before.keys.push(rowKey(rows[i]));
  }
  before.count = rows.length;
  before.source = p.rows;
  return true;
}

/** @param {{props: any, el: HTMLElement, fetchRows?: any, status?: {streaming?: boolean}}} args */
export function update({ props, el, fetchRows }) {
  const p = props ?? {};
  // A large kernel table comes in windows the browser asks for (table-paged.js).
  if (p.paged && typeof fetchRows === "function") {
    const bar = toolbarOf(el);
    showTitle(bar, tableTitle(p));
    const paged = pagedTables.get(el);
    if (paged) paged.update(p);
    else {
      const rows = Array.isArray(p.rows) ? p.rows : [];
      const decimals = columnDecimals(columnsOf(p, rows), rows); // from the first window
      const format = (value, column) => cellText(value, isIdentifierColumn(column), decimals[column]);
      pagedTables.set(el, mountPagedTable(bar.view, { ...p, title: tableTitle(p) }, fetchRows, el, format));
    }
    const table = /** @type {ReturnType<typeof mountPagedTable>} */ (pagedTables.get(el));
    table.setFilter(bar.filter.value);
    // the kernel filters: asked once typing pauses, not on every key
    let timer = null;
    bar.filter.oninput = () => {
      clearTimeout(timer);
      timer = setTimeout(() => table.setFilter(bar.filter.value), FILTER_DELAY_MS);
    };
    bar.count.textContent = ""; // the paged table's own line says its size
    bar.current = () => table.allRows().then((all) => ({ ...all, title: tableTitle(p) }));
    return;
  }
  pagedTables.get(el)?.destroy();
  pagedTables.delete(el);
  const rows = Array.isArray(p.rows) ? p.rows.filter((r) => r && typeof r === "object") : [];
  const columns = columnsOf(p, rows);
  const sort = sortOrders.get(el) ?? { column: null, descending: false };
  const numeric = numericColumns(columns, rows);
  const bar = toolbarOf(el);
  bar.filter.oninput = () => update({ props, el, fetchRows });
  const query = bar.filter.value;
  const total = Number.isInteger(p.total_rows) ? p.total_rows : rows.length;
  const title = tableTitle(p);
  showTitle(bar, title);
  const decimals = columnDecimals(columns, rows);
  const shape = JSON.stringify([title, columns, [...numeric], decimals, p.truncated ? [rows.length, p.total_rows] : null]);
  const filtered = filterRows(rows, columns, query);
  bar.count.textContent = shapeText(query.trim() ? filtered.length : total, columns.length, query.trim() ? rows.length : null);
  const shown = sort.column === null ? filtered : sortRows(filtered, sort.column, sort.descending);
  bar.current = () => ({ columns, rows: shown, title, cut: !!p.truncated });
  const inOrder = sort.column === null && !query.trim(); // the rows drawn as they came
  if (inOrder && appendRows(el, p, rows, columns, shape, decimals)) return;

  const table = h("table.gu-c-table");
  if (title) table.append(h("caption", { text: title }));
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
  for (const row of shown) tbody.append(rowElement(row, columns, decimals));
  table.append(h("thead", {}, head), tbody);
  const note = p.truncated ? h("div.gu-c-note", { text: `Showing ${rows.length} of ${p.total_rows} rows.` }) : null;
  bar.view.replaceChildren(h("div.gu-c-table-wrap", {}, table, note));
  // a sorted or filtered table is drawn again in full: its rows are not the props' order
  if (inOrder) drawn.set(el, { shape, source: p.rows, count: rows.length, tbody, keys: rows.map(rowKey) });
  else drawn.delete(el);
}
