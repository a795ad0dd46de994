"""A 1,000,000-row DataFrame shown by reference, in real JupyterLab + Chromium.

One JupyterLab server and headless Chromium (the e2e harness, as
``bench_lab.py``). The kernel holds a 1,000,000-row frame (int, float and
text columns); a scripted model shows ``Table(data="big")``. Measured:

- First screen: the kernel's CPU (``psutil``, the whole cell until the
  websocket is quiet) and the bytes the page received on its websockets for
  it (the chat widget itself included; the Table's own kernel output counted
  apart), until the table's first rows are in the DOM.
- Scroll: the time from setting the scroll position to a random row to that
  row's cells in the DOM (the browser asks the kernel for the window over the
  comm), 40 jumps 250 ms apart; and reading on, one screen down at a time.
- Sort: a header click to the first sorted rows in the DOM; the first sort of
  a column sorts a million rows in the kernel (cold), later ones reuse the
  kept order (warm).

Target: scroll and sort p95 under 100 ms.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_data.py``
"""

from __future__ import annotations

import time
from typing import Any

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from _page import stats
from _results import update_section
from bench_lab import Notebook, lab, progress

ROWS = 1_000_000
JUMPS = 40

SETUP = f"""
import numpy as np, pandas as pd
from ipygenui.testing import ScriptedCall, ScriptedModel
rng = np.random.default_rng(7)
BIG = pd.DataFrame({{
    "id": np.arange({ROWS}),
    "amount": rng.normal(100, 30, {ROWS}).round(2),
    "region": rng.choice(["north", "south", "east", "west"], {ROWS}),
    "score": rng.integers(0, 1_000_000, {ROWS}),
}})
"""

SHOW = """
model = ScriptedModel([ScriptedCall("show_component_Table", {"data": "big"}, id="t1"), "ok"])
chat = gu.Chat(model=model, components=[gu.Table], data={"big": BIG})
display(chat)
chat.send("show it")
"""

KERNEL_WINDOWS = """
import time
from ipygenui.data import RowWindows
_w = RowWindows()
_t = time.perf_counter(); _w.window(BIG, 0, 100, "score"); _cold = time.perf_counter() - _t
_ts = []
for _o in range(0, len(BIG) - 100, 25_000):
    _t = time.perf_counter(); _w.window(BIG, _o, 100, "score"); _ts.append(time.perf_counter() - _t)
_ts.sort()
_p50, _p95 = _ts[len(_ts) // 2], _ts[int(len(_ts) * 0.95)]
print(round(_cold * 1000, 1), round(_p50 * 1000, 2), round(_p95 * 1000, 2))
"""

TABLE = '.gu-component[data-component="Table"] .gu-component-body'

# In the page: jump to rows, then click headers; resolve each when its rows are in the DOM.
MEASURE_JS = """
async ({targets, sorts}) => {
  const body = document.querySelector('TABLE_SELECTOR');
  const scroller = body.querySelector('.gu-c-table-scroll');
  const ready = (row) => {
    const tr = body.querySelector(`tr[data-row="${row}"]`);
    return !!tr && !tr.classList.contains('gu-c-loading');
  };
  // a step that never completes counts as 10 s (a miss), it does not hang the run
  const until = (cond) => new Promise((resolve) => {
    if (cond()) return resolve(performance.now());
    const observer = new MutationObserver(() => {
      if (cond()) { observer.disconnect(); clearTimeout(timer); resolve(performance.now()); }
    });
    const timer = setTimeout(() => { observer.disconnect(); resolve(performance.now()); }, 10000);
    observer.observe(body, {subtree: true, childList: true, attributes: true});
  });
  // the scroll range is scaled past 4,000,000 px (table-paged.js scrollTopFor)
  const total = Number(body.dataset.totalRows);
  const full = total * 26;
  const scale = full <= 4000000 ? 1 : (full - 420) / (4000000 - 420);
  const scroll = [];
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  for (const row of targets) {
    const t0 = performance.now();
    scroller.scrollTop = Math.ceil((row * 26) / scale);
    scroll.push((await until(() => ready(row))) - t0);
    await pause(250);  // a reader looks before jumping again (and prefetches settle)
  }
  // reading on: one screen (16 rows) down at a time from a random place
  const onward = [];
  let row = targets[0];
  scroller.scrollTop = Math.ceil((row * 26) / scale);
  await until(() => ready(row));
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < 40; i++) {
    row += 16;
    const t0 = performance.now();
    scroller.scrollTop = Math.ceil((row * 26) / scale);
    onward.push((await until(() => ready(row))) - t0);
    await new Promise((r) => setTimeout(r, 50));  // a reader's pace, not a fling
  }
  scroller.scrollTop = 0;
  await until(() => ready(0));
  const sort = [];
  for (const [column, label] of sorts) {
    const th = [...body.querySelectorAll('th')].find((el) => el.textContent === column);
    const direction = body.dataset.sort === column ? 'descending' : 'ascending';
    const t0 = performance.now();
    th.click();
    // the header is drawn again on a sort: read the fresh one
    const sorted = () => [...body.querySelectorAll('th')].some(
      (el) => el.textContent === column && el.getAttribute('aria-sort') === direction);
    const t1 = await until(() => sorted() && ready(0));
    sort.push([label, t1 - t0]);
    await pause(250);
  }
  return {scroll, onward, sort};
}
""".replace("TABLE_SELECTOR", TABLE)


def measure() -> dict[str, Any]:
    with lab() as (server, browser):
        nb = Notebook(server, browser)
        try:
            nb.lab.run_code(SETUP)
            progress("frame built")
            nb.wait_quiet()
            nb.wire.reset()
            cpu0 = nb.cpu()
            start = time.perf_counter()
            nb.lab.run_code(SHOW)
            nb.lab.page.locator(f'{TABLE} tr[data-row="0"] td').first.wait_for(timeout=120_000)
            first_screen = time.perf_counter() - start
            nb.wait_quiet()
            cpu = nb.cpu() - cpu0
            wire_bytes = nb.wire.bytes
            output = int(
                nb.lab.run_code(
                    "import json\nprint(len(json.dumps(chat.component_outputs['t1'])))"
                ).strip()
            )
            rows_in_dom = nb.lab.page.locator(f"{TABLE} tr[data-row]").count()
            progress("first screen shown")
            targets = [
                int(x) for x in __import__("random").Random(3).sample(range(ROWS - 20), JUMPS)
            ]
            sorts = [
                ["score", "cold"],
                ["score", "cold"],
                ["amount", "cold"],
                ["amount", "cold"],
                ["score", "warm"],
                ["score", "warm"],
                ["amount", "warm"],
                ["amount", "warm"],
                ["score", "warm"],
                ["score", "warm"],
            ]
            result = nb.lab.page.evaluate(MEASURE_JS, {"targets": targets, "sorts": sorts})
            progress("scroll and sort measured")
            cold, w50, w95 = (
                float(x) for x in nb.lab.run_code(KERNEL_WINDOWS).strip().splitlines()[-1].split()
            )
        finally:
            nb.close()
            server.shutdown_kernels()
    return {
        "cpu": cpu,
        "bytes": wire_bytes,
        "output": output,
        "first_screen": first_screen,
        "rows_in_dom": rows_in_dom,
        "scroll": result["scroll"],
        "onward": result["onward"],
        "sort": result["sort"],
        "kernel_sort": cold,
        "kernel_window": (w50, w95),
    }


def main() -> None:
    r = measure()
    scroll = stats(r["scroll"])
    onward = stats(r["onward"])
    all_sorts = [t for _, t in r["sort"]]
    cold = [t for label, t in r["sort"] if label == "cold"]
    warm = [t for label, t in r["sort"] if label == "warm"]
    sort_all, sort_cold, sort_warm = stats(all_sorts), stats(cold), stats(warm)
    lines = [
        f"A {ROWS:,}-row pandas DataFrame (4 columns) shown as `Table(data=...)` by reference, "
        "in real JupyterLab and headless Chromium (measured in the browser).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| first screen: kernel CPU (the whole cell) | {r['cpu'] * 1000:.0f} ms |",
        f"| first screen: bytes to the browser (chat widget included) | "
        f"{r['bytes'] / 1024:.1f} KiB |",
        f"| first screen: the Table's kernel output | {r['output'] / 1024:.1f} KiB |",
        f"| first screen: cell start to first rows in the DOM | "
        f"{r['first_screen'] * 1000:.0f} ms |",
        f"| rows in the DOM | {r['rows_in_dom']} |",
        f"| scroll to a random row, p50 / p95 / max (n={scroll['n']}) | "
        f"{scroll['p50']:.1f} / {scroll['p95']:.1f} / {scroll['max']:.1f} ms |",
        f"| scroll on one screen at a reader's pace, p50 / p95 / max (n={onward['n']}) | "
        f"{onward['p50']:.1f} / {onward['p95']:.1f} / {onward['max']:.1f} ms |",
        f"| sort (header click to sorted rows), all, p50 / p95 (n={sort_all['n']}) | "
        f"{sort_all['p50']:.1f} / {sort_all['p95']:.1f} ms |",
        f"| sort, first of a column and direction (kernel sorts 1M rows), p50 / max "
        f"(n={sort_cold['n']}) | {sort_cold['p50']:.1f} / {sort_cold['max']:.1f} ms |",
        f"| sort, order kept (warm), p50 / p95 (n={sort_warm['n']}) | "
        f"{sort_warm['p50']:.1f} / {sort_warm['p95']:.1f} ms |",
        f"| kernel alone: first sort of a column + its first window | {r['kernel_sort']:.0f} ms |",
        f"| kernel alone: one 100-row window of a kept order, p50 / p95 | "
        f"{r['kernel_window'][0]:.2f} / {r['kernel_window'][1]:.2f} ms |",
        "",
        f"Target p95 < 100 ms: random jumps {'met' if scroll['p95'] < 100 else 'MISSED'}, "
        f"scrolling on {'met' if onward['p95'] < 100 else 'MISSED'}, "
        f"sort {'met' if sort_all['p95'] < 100 else 'MISSED'} "
        f"(warm {'met' if sort_warm['p95'] < 100 else 'MISSED'}).",
    ]
    body = "\n".join(lines)
    print(body)
    update_section("bench_data", body)


if __name__ == "__main__":
    main()
