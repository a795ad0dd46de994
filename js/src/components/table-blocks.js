// The rows of a paged table, fetched from the kernel in blocks of BLOCK rows
// (a `data_window` request each) and kept for the current sort and filter: at most
// CACHED_BLOCKS blocks, a block asked once at a time, a failed one not asked
// again until the sort changes or the view scrolls. An answer to a request
// made before the last reset (a new sort, new data) is dropped.

export const BLOCK = 100;
const CACHED_BLOCKS = 40;

/**
 * @typedef {{column: string|null, descending: boolean, filter?: string}} RowView
 *   the rows asked for: sorted by `column`, of those holding `filter` (kernel-side)
 * @param {{fetchRows: (opts: {offset: number, limit: number, sort: string|null, descending: boolean, filter?: string}) => Promise<any>,
 *          onWindow: (win: any) => void, onChange: () => void}} opts
 *   `onWindow`: each answer, before its rows are kept (it may carry new columns
 *   or a new total); `onChange`: rows arrived or a fetch failed
 */
export function createRowBlocks({ fetchRows, onWindow, onChange }) {
  let generation = 0;
  /** @type {Map<number, any[]>} block index -> rows, for the current sort */
  let blocks = new Map();
  /** @type {Map<number, Promise<void>>} */
  let pending = new Map();
  /** Blocks whose fetch failed: not asked again until the sort changes or the view scrolls. */
  let failed = new Set();
  let error = "";
  let destroyed = false;

  const seed = (rows) => {
    for (let b = 0; b * BLOCK < rows.length; b++) blocks.set(b, rows.slice(b * BLOCK, (b + 1) * BLOCK));
  };

  return {
    /** The message of the last failed fetch, "" once one succeeds. */
    get error() {
      return error;
    },
    /** Row `i`, or undefined while its block is not here. @param {number} i */
    row(i) {
      const block = blocks.get(Math.floor(i / BLOCK));
      return block ? block[i % BLOCK] : undefined;
    },
    /**
     * Ask for block `b` unless it is here, on its way, failed, or past the end.
     * @param {number} b @param {number} total @param {RowView} view
     */
    request(b, total, view) {
      if (b < 0 || blocks.has(b) || pending.has(b) || failed.has(b) || b * BLOCK >= total) return;
      const mine = generation;
      const ask = { offset: b * BLOCK, limit: BLOCK, sort: view.column, descending: view.descending };
      const p = fetchRows(view.filter ? { ...ask, filter: view.filter } : ask).then(
        (win) => {
          pending.delete(b);
          if (mine !== generation || destroyed) return;
          onWindow(win);
          blocks.set(b, Array.isArray(win.rows) ? win.rows : []);
          for (const old of blocks.keys()) {
            if (blocks.size <= CACHED_BLOCKS) break;
            if (old !== b) blocks.delete(old);
          }
          error = "";
          onChange();
        },
        (err) => {
          pending.delete(b);
          if (mine !== generation || destroyed) return;
          failed.add(b);
          error = err instanceof Error ? err.message : String(err);
          onChange();
        },
      );
      pending.set(b, p);
    },
    /** The view moved: failed blocks may be asked again. */
    retryFailed() {
      failed = new Set();
    },
    /** Forget every row (a new sort or filter, new data), keeping `rows` as the first ones. @param {any[]} [rows] */
    reset(rows = []) {
      generation++;
      blocks = new Map();
      pending = new Map();
      failed = new Set();
      seed(rows);
    },
    seed,
    destroy() {
      destroyed = true;
    },
  };
}
