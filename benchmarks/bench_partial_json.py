"""Partial JSON while a component's props stream: our incremental parser vs
re-parsing every prefix with partial-json-parser and with jiter's partial mode.

Table props of 10, 100, 1,000 and 10,000 rows of constant width (so the text
grows exactly with the rows), streamed in 4-character chunks.
Ours feeds each chunk and reads the value and the field status after it (what
the loop does). The baselines parse the whole prefix after every chunk; one
whose estimate (quadratic growth from the previous size) exceeds the time cap
is skipped and its estimate printed.

Targets (issue 4): at least 20x faster than jiter at 1,000 rows; growth from
1,000 to 10,000 rows at most 12x.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_partial_json.py``
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import jiter
import partial_json_parser

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from _results import update_section
from ipygenui._internal.partial_json import PartialJSONParser
from openai_server import table_args

SIZES = (10, 100, 1_000, 10_000)
CHUNK = 4
CAP_SECONDS = 60.0
REPEATS = 5  # ours is fast: best of several runs to damp noise from other processes


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def ours(chunks: list[str]) -> object:
    parser = PartialJSONParser()
    for chunk in chunks:
        parser.feed(chunk)
        parser.value  # noqa: B018  (the loop reads it after every chunk)
        parser.field_status()
    return parser.value


def every_prefix(parse: Callable[[int], object], size: int) -> tuple[float, object, float]:
    """Parse every prefix; stop at the time cap. Returns (CPU seconds, last
    value, fraction of prefixes done)."""
    ends = range(CHUNK, size + CHUNK, CHUNK)
    start = time.process_time()
    value = None
    for done, end in enumerate(ends, 1):
        value = parse(end)
        if done % 256 == 0 and time.process_time() - start > CAP_SECONDS:
            return time.process_time() - start, None, done / len(ends)
    return time.process_time() - start, value, 1.0


def ours_best(chunks: list[str]) -> tuple[float, object]:
    best = float("inf")
    value = None
    for _ in range(REPEATS):
        start = time.process_time()
        value = ours(chunks)
        best = min(best, time.process_time() - start)
    return best, value


def main() -> None:
    table: list[str] = []
    ours_s: dict[int, float] = {}
    jiter_s: dict[int, float] = {}
    skip: set[str] = set()  # a baseline that hit the cap is not run on larger sizes
    for rows in SIZES:
        text = json.dumps(table_args(rows))
        data = text.encode()
        expected = json.loads(text)
        chunks = chunks_of(text)
        seconds, value = ours_best(chunks)
        assert value == expected
        ours_s[rows] = seconds
        cells = [f"{seconds * 1000:.1f} ms"]
        baselines: list[tuple[str, Callable[[int], object]]] = [
            (
                "jiter",
                lambda end, d=data: jiter.from_json(d[:end], partial_mode="trailing-strings"),
            ),
            ("partial-json-parser", lambda end, t=text: partial_json_parser.loads(t[:end])),
        ]
        for name, parse in baselines:
            if name in skip:
                cells.append("skipped")
                continue
            spent, value, fraction = every_prefix(parse, len(text))
            if fraction < 1.0:
                skip.add(name)
                estimate = spent / fraction**2  # the work per prefix grows with its length
                cells.append(f"stopped at {CAP_SECONDS:.0f} s (est. {estimate:.0f} s)")
                if name == "jiter":
                    jiter_s[rows] = estimate
                continue
            assert value == expected, name
            if name == "jiter":
                jiter_s[rows] = spent
            cells.append(f"{spent:.3f} s ({spent / seconds:.0f}x ours)")
        line = f"| {rows:,} | {len(text):,} | {len(chunks):,} | " + " | ".join(cells) + " |"
        print(line, flush=True)
        table.append(line)

    # Growth from runs of the same length taken in turn (ten 1,000-row streams, one
    # 10,000-row stream), so load from other processes hits both alike.
    small = chunks_of(json.dumps(table_args(1_000)))
    large = chunks_of(json.dumps(table_args(10_000)))
    small_s, large_s = [], []
    for _ in range(3):
        start = time.process_time()
        for _ in range(10):
            ours(small)
        small_s.append((time.process_time() - start) / 10)
        start = time.process_time()
        ours(large)
        large_s.append(time.process_time() - start)
    growth = min(large_s) / min(small_s)
    speedup = jiter_s[1_000] / ours_s[1_000]
    verdict = [
        f"- at 1,000 rows ours is {speedup:.0f}x faster than jiter re-parsing every prefix "
        f"(target >= 20x): {'met' if speedup >= 20 else 'NOT met'}",
        f"- ours grows {growth:.1f}x from 1,000 to 10,000 rows "
        f"(target <= 12x): {'met' if growth <= 12 else 'NOT met'}",
    ]
    print("\n".join(verdict))
    body = "\n".join(
        [
            "Table props streamed in 4-character chunks; CPU time (`time.process_time`).",
            "Ours: feed each chunk, then read the value and the field status (best of",
            f"{REPEATS}). Baselines: parse every prefix once, stopped at {CAP_SECONDS:.0f} s",
            "with a quadratic estimate of the whole run.",
            "",
            "| rows | chars | chunks | ours | jiter partial mode | partial-json-parser |",
            "|---:|---:|---:|---:|---:|---:|",
            *table,
            "",
            *verdict,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_partial_json.py`",
        ]
    )
    update_section("bench_partial_json", body)


if __name__ == "__main__":
    main()
