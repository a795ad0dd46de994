// The parts of the paged table: which rows a scroll position shows, and the
// cache of row blocks fetched from the kernel.

import { describe, expect, it, vi } from "vitest";
import { BLOCK, createRowBlocks } from "../../src/components/table-blocks.js";
import { MAX_SCROLL, ROW_HEIGHT, rowsInView, scrollTopFor } from "../../src/components/table-paged.js";

describe("rowsInView", () => {
  it("at the top: the first rows, the rest of the height below", () => {
    const view = rowsInView(0, 1000);
    expect(view.first).toBe(0);
    expect(view.topPx).toBe(0);
    expect(view.bottomPx).toBe((1000 - view.last) * ROW_HEIGHT);
  });

  it("past the scroll cap, a position stands for its row and the spacers fit the cap", () => {
    const total = 1_000_000;
    const view = rowsInView(scrollTopFor(500_000, total), total);
    expect(view.first).toBeLessThanOrEqual(500_000);
    expect(view.last).toBeGreaterThan(500_000);
    expect(view.topPx + (view.last - view.first) * ROW_HEIGHT + view.bottomPx).toBe(MAX_SCROLL);
  });
});

describe("row blocks", () => {
  const deferred = () => {
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    return { promise, resolve };
  };

  it("asks a block once, and drops an answer to a request made before a reset", async () => {
    const answers = [];
    const fetchRows = vi.fn(() => {
      const d = deferred();
      answers.push(d);
      return d.promise;
    });
    const onChange = vi.fn();
    const blocks = createRowBlocks({ fetchRows, onWindow: () => {}, onChange });
    const sort = { column: null, descending: false };
    blocks.request(0, 1000, sort);
    blocks.request(0, 1000, sort);
    expect(fetchRows).toHaveBeenCalledTimes(1);
    blocks.reset(); // a new sort: the answer on its way is for the old one
    answers[0].resolve({ rows: [{ a: "old" }] });
    await answers[0].promise;
    expect(blocks.row(0)).toBeUndefined();
    expect(onChange).not.toHaveBeenCalled();
    blocks.request(1, 1000, sort);
    answers[1].resolve({ rows: Array.from({ length: BLOCK }, (_, i) => ({ i })) });
    await answers[1].promise;
    expect(blocks.row(BLOCK + 5)).toEqual({ i: 5 });
    expect(onChange).toHaveBeenCalledOnce();
    blocks.request(50, 1000, sort); // past the end
    expect(fetchRows).toHaveBeenCalledTimes(2);
  });
});
