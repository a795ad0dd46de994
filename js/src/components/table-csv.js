// A table as CSV, downloaded by the browser. Text that a spreadsheet would
// run as a formula (starting with = + - @, a tab or a carriage return) gets a
// leading apostrophe; numbers stay numbers (their text cannot be a formula).
// A paged table's rows come from the kernel in windows, at most MAX_CSV_ROWS.

import { h } from "../common/dom.js";

export const MAX_CSV_ROWS = 100_000;
const CSV_WINDOW = 1_000;

/** One CSV field, quoted when it must be, a formula neutralised. */
export function csvField(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  if (typeof value === "boolean") return value ? "true" : "false";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as CSV text (a header line first, CRLF line ends as RFC 4180 says). */
export function toCsv(columns, rows) {
  const lines = [columns.map(csvField).join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvField(row?.[c])).join(","));
  return lines.join("\r\n") + "\r\n";
}

/** A file name from the table's title: "Top products (demo data)" -> "Top products (demo data).csv". */
export function csvName(title) {
  const base = String(title ?? "")
    .replace(/[\\/:*?"<>|]+/g, " ")
    .replace(/\s+/g, " ") // line breaks and tabs too
    .trim()
    .slice(0, 80);
  return `${base || "table"}.csv`;
}

/** The browser saves `text` as `filename`. */
export function downloadCsv(text, filename) {
  const url = URL.createObjectURL(new Blob(["\ufeff", text], { type: "text/csv;charset=utf-8" }));
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Every row of a paged table in the kernel's order, window by window, at most
 * MAX_CSV_ROWS: with a filter, the rows it keeps (`total` counts those).
 * @param {(opts: {offset: number, limit: number, sort: string|null, descending: boolean, filter?: string}) => Promise<any>} fetchRows
 * @param {{column: string|null, descending: boolean, filter?: string}} sort @param {number} total
 * @returns {Promise<{columns: string[], rows: any[], cut: boolean}>}
 */
export async function fetchAllRows(fetchRows, sort, total) {
  const rows = [];
  let columns = [];
  const wanted = Math.min(total, MAX_CSV_ROWS);
  for (let offset = 0; offset < wanted; ) {
    const win = await fetchRows({
      offset,
      limit: Math.min(CSV_WINDOW, wanted - offset),
      sort: sort.column,
      descending: sort.descending,
      ...(sort.filter ? { filter: sort.filter } : {}),
    });
    if (Array.isArray(win.columns) && win.columns.length) columns = win.columns.map(String);
    const got = Array.isArray(win.rows) ? win.rows : [];
    if (!got.length) break;
    rows.push(...got);
    offset += got.length;
  }
  return { columns, rows, cut: total > rows.length };
}

/**
 * The table's "CSV" button: `collect` gives the rows to save (the table as shown).
 * @param {() => Promise<{columns: string[], rows: any[], title?: any, cut?: boolean}>} collect
 * @param {(text: string) => void} say shows a line under the table
 */
export function csvButton(collect, say) {
  const button = h("button.gu-c-table-csv", {
    type: "button",
    title: "Download this table as CSV (as sorted and filtered)",
    text: "Download CSV",
  });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const { columns, rows, title, cut } = await collect();
      downloadCsv(toCsv(columns, rows), csvName(title));
      if (cut) say(`The CSV holds the first ${rows.length.toLocaleString()} rows; save the rest from the notebook.`);
    } catch (err) {
      say(`Could not make the CSV: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
