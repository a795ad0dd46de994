"""``gu.evaluate`` of 20 prompts on the offline demo model (issue 26).

The workbench's fixed prompt set (``workbench/_eval_prompts.py``: Chart,
Table, Metric and a weather tool) run with the default concurrency of 4 on
the demo model at its default pace (``DemoModel()``: ~45 tokens a second),
which is what a notebook's eval waits for. Wall time of the whole eval, and
the kernel's CPU time for it.

Target (issue 26): 20 prompts in under a minute.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_evaluate.py``
"""

from __future__ import annotations

import time

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
import ipygenui as gu
from _results import update_section
from ipygenui.workbench._eval_prompts import DEMO_PROMPTS
from ipygenui.workbench.evaluate import evaluate_sync

TARGET_SECONDS = 60.0


@gu.tool
def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    return {"city": city, "temperature_c": 21}


def main() -> None:
    rows = []
    for concurrency in (4, 1):
        wall, cpu = time.perf_counter(), time.process_time()
        result = evaluate_sync(
            DEMO_PROMPTS,
            components=[gu.Chart, gu.Table, gu.Metric],
            tools=[get_weather],
            model=gu.DemoModel(),
            concurrency=concurrency,
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append((concurrency, wall, cpu, result.accuracy, result["seconds"].max()))
        print(
            f"concurrency {concurrency}: {wall:.1f} s wall, {cpu:.2f} s CPU, "
            f"accuracy {result.accuracy:.0%}"
        )
    wall4 = rows[0][1]
    verdict = (
        f"- 20 prompts at concurrency 4: {wall4:.1f} s (target < {TARGET_SECONDS:.0f} s): "
        f"{'met' if wall4 < TARGET_SECONDS else 'NOT met'}"
    )
    print(verdict)
    table = [
        f"| {c} | {w:.1f} s | {cpu:.2f} s | {acc:.0%} | {slowest:.1f} s |"
        for c, w, cpu, acc, slowest in rows
    ]
    body = "\n".join(
        [
            f"{len(DEMO_PROMPTS)} prompts (Chart, Table, Metric, a weather tool; the workbench's",
            "fixed set) on `DemoModel()` at its default pace; nothing is executed.",
            "",
            "| concurrency | wall | CPU | accuracy | slowest prompt |",
            "|---:|---:|---:|---:|---:|",
            *table,
            "",
            verdict,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_evaluate.py`",
        ]
    )
    update_section("bench_evaluate", body)


if __name__ == "__main__":
    main()
