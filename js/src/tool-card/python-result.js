// The body of a run_python card, read like a notebook cell: the code
// highlighted as Python, what it printed, the last expression's value, a
// short traceback when it failed, and the first rows of the tables it made
// (`result.for_user.tables`, which the model never reads). The raw JSON
// stays behind the card's Details fold. A result is a tool's output, so
// untrusted: every piece is set as text (the code goes through the
// sanitizing markdown renderer), and nothing of it becomes HTML.

import { h, show } from "../common/dom.js";
import { fillMarked } from "./invisible-chars.js";
import { renderMarkdown } from "../markdown/markdown.js";

const TRACEBACK_LINES = 12;
const MAX_TABLES = 4;
const MAX_ROWS = 5;
const MAX_COLUMNS = 12;
const CELL_CHARS = 60;

/** The code a call runs (a `code` string argument, as run_python's), or null. */
export function pythonCode(args) {
  return args && typeof args === "object" && typeof args.code === "string" ? args.code : null;
}

/** Python `source` as a fenced block the markdown renderer highlights (and sanitizes). */
function highlightedPython(source) {
  const longest = Math.max(2, ...[...source.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return renderMarkdown(`${fence}python\n${source}\n${fence}`);
}

function asObject(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : null;
}

/** A cell as text: JSON scalars as they read, anything else (a forged file) as JSON, cut short. */
function cellText(value) {
  let text;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean") text = String(value);
  else {
    try {
      text = JSON.stringify(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS - 1)}…` : text;
}

/** The count in "1,234 × 5", or "" when it is not a shape. */
function shapeText(shape) {
  if (!Array.isArray(shape) || !shape.every((n) => Number.isInteger(n) && n >= 0)) return "";
  return shape.map((n) => n.toLocaleString("en-US")).join(" × ");
}

/** The tables of a result's `for_user` entry that are well formed (shown as text only). */
export function previewTables(result) {
  const tables = asObject(asObject(result)?.for_user)?.tables;
  if (!Array.isArray(tables)) return [];
  return tables
    .filter((t) => asObject(t) && Array.isArray(t.columns) && Array.isArray(t.rows))
    .slice(0, MAX_TABLES);
}

/** One preview table: a caption with its name and shape, types on hover of each header. */
function previewTable(table) {
  const columns = table.columns.slice(0, MAX_COLUMNS).map(cellText);
  const dtypes = Array.isArray(table.dtypes) ? table.dtypes : [];
  const index = Array.isArray(table.index) ? table.index : null;
  const rows = table.rows.slice(0, MAX_ROWS).filter(Array.isArray);
  const name = cellText(table.value === true ? "Out" : (table.name ?? "table"));
  const shape = shapeText(table.shape);
  const total = Array.isArray(table.shape) && Number.isInteger(table.shape[0]) ? table.shape[0] : rows.length;
  const header = h(
    "tr",
    {},
    index ? h("th", { scope: "col" }) : null,
    ...columns.map((c, i) => h("th", { scope: "col", title: dtypes[i] == null ? undefined : cellText(dtypes[i]) }, c)),
  );
  const body = rows.map((row, r) =>
    h(
      "tr",
      {},
      index ? h("th", { scope: "row", text: cellText(index[r]) }) : null,
      ...columns.map((_, i) =>
        h(typeof row[i] === "number" ? "td.gu-py-num" : "td", { text: cellText(row[i]) }),
      ),
    ),
  );
  const more = total > rows.length ? `first ${rows.length} of ${total.toLocaleString("en-US")} rows` : "";
  return h(
    "figure.gu-py-table",
    {},
    h(
      "figcaption",
      {},
      h("code", { text: name }),
      shape ? h("span.gu-py-shape", { text: shape }) : null,
      more ? h("span.gu-py-more", { text: more }) : null,
    ),
    h("div.gu-py-table-scroll", {}, h("table", {}, h("thead", {}, header), h("tbody", {}, ...body))),
  );
}

/** The error of a run (`{type, message, traceback}`), as a title line and its last lines. */
function errorBlock(error) {
  const type = typeof error.type === "string" ? error.type : "Error";
  const message = typeof error.message === "string" ? error.message : "";
  const trace = typeof error.traceback === "string" ? error.traceback.trimEnd().split("\n") : [];
  const tail = trace.slice(-TRACEBACK_LINES).join("\n");
  return h(
    "div.gu-py-error",
    { role: "note" },
    h("div.gu-py-error-title", { text: message ? `${type}: ${message}` : type }),
    tail ? h("pre.gu-py-traceback", { text: trace.length > TRACEBACK_LINES ? `…\n${tail}` : tail }) : null,
  );
}

/** What a run_python result shows, as a list of nodes (nothing when it is not one). */
export function pythonResultNodes(result) {
  const res = asObject(result);
  if (!res) return [];
  const out = [];
  if (typeof res.stdout === "string" && res.stdout !== "") {
    out.push(h("pre.gu-py-stdout", { "aria-label": "Printed output", text: res.stdout }));
  }
  const error = asObject(res.error);
  if (error) out.push(errorBlock(error));
  const tables = previewTables(res);
  const value = asObject(res.value);
  // The last expression's value, when no table shows it.
  if (value && typeof value.repr === "string" && !tables.some((t) => t.value === true)) {
    out.push(h("pre.gu-py-value", { "aria-label": "Value" }, h("span.gu-py-out", { text: "Out: " }), value.repr));
  }
  out.push(...tables.map(previewTable));
  return out;
}

/** Whether a result is run_python's (its keys), so the card shows it as a cell's output. */
export function isPythonResult(result) {
  const res = asObject(result);
  if (!res) return false;
  return ["stdout", "names", "value", "figures", "for_user"].some((k) => k in res) || !!asObject(res.error)?.traceback;
}

/**
 * The body of a card of a call that runs code: the code (once no approval
 * shows it), then the result as a cell's output.
 */
export function createPythonBody() {
  const code = h("div.gu-py-code", { hidden: true });
  const output = h("div.gu-py-output", { hidden: true });
  const el = h("div.gu-py", { hidden: true }, code, output);
  let shownCode = null;
  let shownResult;
  return {
    el,
    /**
     * @param {any} part @param {any} args the call's arguments as shown
     * @param {{approving: boolean}} opts `approving`: the approval shows the code itself
     * @returns {boolean} whether it shows the call (the card then leaves the result to it)
     */
    update(part, args, { approving }) {
      const source = pythonCode(args);
      const asPython = source !== null && (!part.has_result || isPythonResult(part.result));
      show(el, asPython);
      if (!asPython) return false;
      if (source !== shownCode) {
        shownCode = source;
        fillMarked(code, () => highlightedPython(source));
      }
      show(code, !approving && source !== "");
      if (part.has_result && part.result !== shownResult) {
        shownResult = part.result;
        output.replaceChildren(...pythonResultNodes(part.result));
      }
      show(output, !!part.has_result && output.childElementCount > 0);
      return true;
    },
  };
}
