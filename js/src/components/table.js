// Built-in Table: rows stream in; a click on a header sorts by that column
// (again: descending). Rows come from the model, or from a kernel DataFrame
// the kernel resolved by name (then `total_rows` / `truncated` say how many).
// Cells are text only: nothing the model writes becomes markup.

const sortState = new WeakMap();

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

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Compare two cell values: numbers as numbers, empty last, else text. */
export function compareCells(a, b) {
  const emptyA = a === null || a === undefined || a === "";
  const emptyB = b === null || b === undefined || b === "";
  if (emptyA || emptyB) return emptyA === emptyB ? 0 : emptyA ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return cellText(a).localeCompare(cellText(b), undefined, { numeric: true });
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
  sortState.set(args.el, { column: null, descending: false });
  update(args);
}

export function update({ props, el }) {
  const p = props ?? {};
  const rows = Array.isArray(p.rows) ? p.rows.filter((r) => r && typeof r === "object") : [];
  const columns = columnsOf(p, rows);
  const sort = sortState.get(el) ?? { column: null, descending: false };
  const shown = sort.column === null ? rows : sortRows(rows, sort.column, sort.descending);

  const table = document.createElement("table");
  table.className = "gu-c-table";
  if (p.title) {
    const caption = document.createElement("caption");
    caption.textContent = String(p.title);
    table.append(caption);
  }
  const head = document.createElement("tr");
  for (const column of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = column;
    th.tabIndex = 0;
    if (sort.column === column) th.setAttribute("aria-sort", sort.descending ? "descending" : "ascending");
    const onSort = () => {
      const descending = sort.column === column ? !sort.descending : false;
      sortState.set(el, { column, descending });
      update({ props, el });
    };
    th.addEventListener("click", onSort);
    th.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") onSort();
    });
    head.append(th);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const tbody = document.createElement("tbody");
  for (const row of shown) {
    const tr = document.createElement("tr");
    for (const column of columns) {
      const td = document.createElement("td");
      const value = row[column];
      td.textContent = cellText(value);
      if (typeof value === "number") td.className = "gu-num";
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const parts = [table];
  if (p.truncated) {
    const note = document.createElement("div");
    note.className = "gu-c-note";
    note.textContent = `Showing ${rows.length} of ${p.total_rows} rows.`;
    parts.push(note);
  }
  const wrap = document.createElement("div");
  wrap.className = "gu-c-table-wrap";
  wrap.append(...parts);
  el.replaceChildren(wrap);
}
