// A Table of a large kernel table (`paged` props): only the rows in view are
// in the DOM, fetched from the kernel in blocks (`fetchRows`, a `data_window`
// request), and a click on a header sorts in the kernel (the kernel keeps the
// sort order, so scrolling a sorted million rows only slices it); a filter
// is applied in the kernel too (`setFilter`: it counts the matches). Rows have a
// fixed height, so the scroll position says which rows are in view (scaled
// past MAX_SCROLL pixels: see `scrollTopFor`).

import { h } from "../common/dom.js";
import { BLOCK, createRowBlocks } from "./table-blocks.js";
import { fetchAllRows } from "./table-csv.js";

export { BLOCK } from "./table-blocks.js";
export const ROW_HEIGHT = 26;
/** Browsers cap an element's height (Firefox near 17.9M px): past this the
 * scroll range is scaled, so a scroll position stands for a row proportionally. */
export const MAX_SCROLL = 4_000_000;
const VIEW_HEIGHT = 420;
const OVERSCAN = 10;

/** Rows per pixel of scroll over rows per pixel of layout: 1 until MAX_SCROLL. */
function scaleOf(total) {
  const full = total * ROW_HEIGHT;
  if (full <= MAX_SCROLL) return 1;
  return (full - VIEW_HEIGHT) / (MAX_SCROLL - VIEW_HEIGHT);
}

/** The scroll position that shows `row` at the top of a table of `total` rows. */
export function scrollTopFor(row, total) {
  return Math.ceil((row * ROW_HEIGHT) / scaleOf(total));
}

/**
 * The rows in view at scroll position `scrollTop` of a table of `total`
 * rows (with OVERSCAN rows on each side), and the heights of the spacers
 * that stand for the rows above and below them.
 * @param {number} scrollTop @param {number} total
 */
export function rowsInView(scrollTop, total) {
  const scale = scaleOf(total);
  const visible = Math.min(Math.max(0, total - 1), Math.floor((scrollTop * scale) / ROW_HEIGHT));
  const first = Math.max(0, visible - OVERSCAN);
  const count = Math.ceil(VIEW_HEIGHT / ROW_HEIGHT) + 2 * OVERSCAN;
  const last = Math.min(total, first + count);
  const height = Math.min(total * ROW_HEIGHT, MAX_SCROLL);
  // unscaled, rows sit at their own place; scaled, the visible row sits at the view's top
  const topPx = scale === 1 ? first * ROW_HEIGHT : Math.max(0, scrollTop - (visible - first) * ROW_HEIGHT);
  return { first, last, topPx, bottomPx: Math.max(0, height - topPx - (last - first) * ROW_HEIGHT) };
}

/** "1,234 rows × 5 columns" (with a filter: "12 of 1,234 rows × 5 columns"). */
export function shapeText(rows, columns, of = null) {
  const n = (count, one) => `${count.toLocaleString()} ${count === 1 ? one : `${one}s`}`;
  const shown = of === null ? n(rows, "row") : `${rows.toLocaleString()} of ${n(of, "row")}`;
  return `${shown} × ${n(columns, "column")}`;
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Row `i` of the table, or its placeholder ("…" cells) while its block loads. */
function pagedRow(row, i, columns, format) {
  const tr = h("tr", { "aria-rowindex": i + 2, "data-row": i });
  tr.style.height = `${ROW_HEIGHT}px`;
  for (const column of columns) {
    const value = row ? row[column] : undefined;
    tr.append(h(typeof value === "number" ? "td.gu-num" : "td", { text: row ? format(value, column) : "…" }));
  }
  if (!row) tr.classList.add("gu-c-loading");
  return tr;
}

/**
 * A column header that sorts on click, Enter or Space, and says how it sorts
 * (shared by the paged table and the one with every row in the browser).
 * @param {string} column @param {{column: string | null, descending: boolean}} sort
 * @param {() => void} onSort @param {"th" | "th.gu-num"} [tag]
 */
export function sortableHeader(column, sort, onSort, tag = "th") {
  return h(tag, {
    scope: "col",
    tabindex: 0,
    "aria-sort": sort.column === column ? (sort.descending ? "descending" : "ascending") : undefined,
    onClick: onSort,
    onKeydown: (/** @type {KeyboardEvent} */ e) => {
      if (e.key === "Enter" || e.key === " ") onSort();
    },
    text: column,
  });
}

/**
 * Mount a paged table in `el`; returns `{update(props), setFilter(text), allRows(), destroy()}`.
 * @param {HTMLElement} el
 * @param {any} props `columns`, `rows` (the first rows, unsorted), `total_rows`, `title`
 * @param {(opts: {offset: number, limit: number, sort: string|null, descending: boolean}) => Promise<any>} fetchRows
 * @param {HTMLElement} [dataEl] the element whose data attributes say what is shown
 * @param {(value: any, column: string) => string} [format] a cell's text
 */
export function mountPagedTable(el, props, fetchRows, dataEl = el, format = cellText) {
  let columns = Array.isArray(props.columns) ? props.columns.map(String) : [];
  let total = Number.isInteger(props.total_rows) ? props.total_rows : 0;
  /** Rows of the whole table; `total` counts those the filter keeps. */
  let allTotal = total;
  /** The sort, and the filter text the kernel applies ("" for none). */
  let sort = { column: /** @type {string|null} */ (null), descending: false, filter: "" };
  /** A new filter's first answer (and so its count) is on its way. */
  let counting = false;
  let destroyed = false;
  const blocks = createRowBlocks({
    fetchRows,
    onWindow: (win) => {
      if (Array.isArray(win.columns) && win.columns.length) columns = win.columns.map(String);
      if (Number.isInteger(win.total_rows)) total = win.total_rows;
      if (!sort.filter && Number.isInteger(win.total_rows)) allTotal = win.total_rows;
      if (Number.isInteger(win.all_rows)) allTotal = win.all_rows;
      counting = false;
    },
    onChange: () => render(),
  });
  blocks.seed(Array.isArray(props.rows) ? props.rows : []);

  const head = h("tr");
  const thead = h("thead", {}, head);
  // spacers stand for the rows out of view (a cell each: an empty row has no height)
  const topCell = h("td");
  const bottomCell = h("td");
  const top = h("tr.gu-c-spacer", { "aria-hidden": "true" }, topCell);
  const bottom = h("tr.gu-c-spacer", { "aria-hidden": "true" }, bottomCell);
  const tbody = h("tbody");
  const table = h("table.gu-c-table.gu-c-table-paged", { "aria-rowcount": total + 1 });
  const caption = props.title ? h("caption", { text: String(props.title) }) : null;
  if (caption) table.append(caption);
  table.append(thead, tbody);
  // Scroll events come once a frame at most: render at once, a deferral would cost a frame.
  const onScroll = () => {
    blocks.retryFailed();
    render();
  };
  const scroller = h("div.gu-c-table-wrap.gu-c-table-scroll", { onScroll }, table);
  scroller.style.height = `${VIEW_HEIGHT}px`;
  const note = h("div.gu-c-note");
  el.replaceChildren(scroller, note);

  const drawHead = () => {
    const cells = columns.map((column) => {
      const onSort = () => sortBy(column);
      return sortableHeader(column, sort, onSort);
    });
    head.replaceChildren(...cells);
  };

  const render = () => {
    if (destroyed) return;
    const { first, last, topPx, bottomPx } = rowsInView(scroller.scrollTop, total);
    for (let b = Math.floor(first / BLOCK); b * BLOCK < last; b++) blocks.request(b, total, sort);
    // the neighbours too, so scrolling on finds its rows already here
    blocks.request(Math.floor((last - 1) / BLOCK) + 1, total, sort);
    blocks.request(Math.floor(first / BLOCK) - 1, total, sort);
    const rows = [];
    for (let i = first; i < last; i++) rows.push(pagedRow(blocks.row(i), i, columns, format));
    topCell.colSpan = bottomCell.colSpan = Math.max(1, columns.length);
    topCell.style.height = `${topPx}px`;
    bottomCell.style.height = `${bottomPx}px`;
    top.hidden = topPx === 0;
    bottom.hidden = bottomPx === 0;
    tbody.replaceChildren(top, ...rows, bottom);
    table.setAttribute("aria-rowcount", String(total + 1));
    dataEl.dataset.totalRows = String(total);
    dataEl.dataset.firstRow = String(first);
    dataEl.dataset.sort = sort.column ?? "";
    const error = blocks.error;
    const shape = counting
      ? `Filtering ${allTotal.toLocaleString()} rows…`
      : shapeText(total, columns.length, sort.filter ? allTotal : null);
    note.textContent = error ? `Rows could not be loaded: ${error}` : shape;
    note.classList.toggle("gu-component-error", !!error);
  };

  const sortBy = (column) => {
    const descending = sort.column === column ? !sort.descending : false;
    sort = { ...sort, column, descending };
    blocks.reset();
    scroller.scrollTop = 0;
    drawHead();
    render();
  };

  /** The first rows as sent with the props: the table's own order, unfiltered. */
  const firstRows = () =>
    sort.column === null && !sort.filter && Array.isArray(props.rows) ? props.rows : [];

  drawHead();
  render();

  return {
    /** New props of the same data: keep the sort and the cache unless the data changed. */
    update(next) {
      if (next.source !== props.source || next.total_rows !== props.total_rows) {
        props = next;
        columns = Array.isArray(next.columns) ? next.columns.map(String) : columns;
        total = allTotal = Number.isInteger(next.total_rows) ? next.total_rows : total;
        sort = { column: null, descending: false, filter: sort.filter };
        counting = !!sort.filter;
        blocks.reset(firstRows());
        drawHead();
      }
      render();
    },
    /** Show only the rows holding `text` (plain text, any case; blank: every row), counted by the kernel. */
    setFilter(text) {
      const filter = String(text ?? "").trim();
      if (filter === sort.filter) return;
      sort = { ...sort, filter };
      total = allTotal; // until the kernel counts: a filter that kept nothing must ask again
      counting = !!filter;
      blocks.reset(firstRows());
      scroller.scrollTop = 0;
      render();
    },
    /** Every row the filter keeps in the current sort, fetched in windows (at most MAX_CSV_ROWS), for a CSV. */
    allRows: () => fetchAllRows(fetchRows, sort, total),
    destroy() {
      destroyed = true;
      blocks.destroy();
    },
  };
}
