"""A2UI message checking: the schemas compiled to Python (``a2ui/_schema_check.py``).

- First surface, in a fresh interpreter (best of 5, CPU time, bytecode cached):
  ``import ipygenui.a2ui`` plus ``check_messages`` of the demo model's form,
  once where a chat has loaded the rest of ipygenui before the clock (as in a
  kernel that shows a chat; not timed) and once from nothing. Then the same
  for ten surfaces (the spec's first ten v0.9 samples). Beside them, the same
  work on jsonschema's 2020-12 validators (import, registry, ``is_valid``),
  the way the check went before (best of 2, with a chat loaded only).
- A large surface: one Column of 999 or 9,999 components (copies of the spec
  samples' components, in turn, each with its own id), v0.9 and v0.8. The
  999-component one goes through ``check_messages`` (``MAX_SURFACE_COMPONENTS``
  is 1,000); the 9,999-component one is given to the compiled check directly.

Targets: first surface <= 100 ms including the a2ui import; ten surfaces
<= 200 ms; 10,000 components well under a second, growing linearly.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_a2ui_check.py``
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from _paths import ROOT
from _results import update_section
from ipygenui.a2ui import check_messages
from ipygenui.a2ui._schema_check import message_check
from ipygenui.models._demo_a2ui import A2UI_FORM

RUNS = 5
BASELINE_RUNS = 2
BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
SPEC = ROOT / "tests" / "fixtures" / "a2ui" / "spec"
PYCACHE = tempfile.mkdtemp(prefix="gu-bench-pycache-")
"""Bytecode is written here on the first run, as an installed package has it."""

CHAT_LOADED = "import ipygenui as gu; gu.Chat"
"""What a kernel showing a chat has imported before its first surface."""
OURS = "from ipygenui.a2ui import check_messages\nfor m in SURFACES: check_messages(m)"
JSONSCHEMA = """
from ipygenui.a2ui._validate import _kind, _validators, message_version
validators = _validators()
for messages in SURFACES:
    for m in messages:
        assert validators[_kind(m, message_version(m))].is_valid(m)
"""
TIMED = """
import json, sys, time
SURFACES = json.loads(sys.stdin.read())
{before}
start = time.process_time()
{work}
print(time.process_time() - start)
"""


def spec_surfaces(version: str, count: int) -> list[list[dict[str, Any]]]:
    found = []
    for path in sorted((SPEC / version).glob("*.json"))[:count]:
        sample = json.loads(path.read_text())
        found.append(sample if isinstance(sample, list) else sample["messages"])
    return found


def fresh_cpu(work: str, before: str, surfaces: list[Any], runs: int = RUNS) -> float:
    """Best CPU seconds of ``work`` over ``runs`` fresh interpreters."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": PYCACHE, "PYTHONPATH": str(ROOT / "src")}
    script = TIMED.format(before=before, work=work)
    best = float("inf")
    for _ in range(runs + 1):  # the first run writes the bytecode
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=json.dumps(surfaces),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        best = min(best, float(done.stdout.strip().splitlines()[-1]))
    return best


def large_surface(version: str, count: int) -> list[dict[str, Any]]:
    """A surface of one Column (a v0.8 one by its explicit list) over
    ``count`` components copied from the spec samples, in turn."""
    key = "updateComponents" if version == "v0_9" else "surfaceUpdate"
    pool = [
        c
        for messages in spec_surfaces(version, 99)
        for m in messages
        if key in m
        for c in m[key]["components"]
        if c.get("id") != "root"
    ]
    components = []
    for i in range(count):
        component = copy.deepcopy(pool[i % len(pool)])
        component["id"] = f"c{i}"
        components.append(component)
    ids = [c["id"] for c in components]
    if version == "v0_9":
        root: dict[str, Any] = {"id": "root", "component": "Column", "children": ids}
        start = {"version": "v0.9", "createSurface": {"surfaceId": "big", "catalogId": BASIC}}
        update = {"surfaceId": "big", "components": [root, *components]}
        return [start, {"version": "v0.9", "updateComponents": update}]
    root = {"id": "root", "component": {"Column": {"children": {"explicitList": ids}}}}
    update = {"surfaceId": "big", "components": [root, *components]}
    return [{"beginRendering": {"surfaceId": "big", "root": "root"}}, {"surfaceUpdate": update}]


def best_cpu(work: Any) -> float:
    best = float("inf")
    for _ in range(RUNS):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def growth(check: Any, version: str) -> float:
    """10,000 components' time over 1,000's, from runs of the same length in
    turn (ten 1,000-component checks, one 10,000-component check), so load
    from other processes hits both alike."""
    small = large_surface(version, 999)[1]
    big = large_surface(version, 9_999)[1]
    small_s, big_s = [], []
    for _ in range(RUNS):
        start = time.process_time()
        for _ in range(10):
            check(small)
        small_s.append((time.process_time() - start) / 10)
        start = time.process_time()
        check(big)
        big_s.append(time.process_time() - start)
    return min(big_s) / min(small_s)


def main() -> None:
    first, ten = [A2UI_FORM], spec_surfaces("v0_9", 10)
    rows = []
    figures: dict[str, float] = {}
    for label, surfaces in (("first surface (the demo form)", first), ("ten surfaces", ten)):
        for where, before in (("a chat loaded", CHAT_LOADED), ("from nothing", "")):
            ours = fresh_cpu(OURS, before, surfaces)
            figures[f"{label}, {where}"] = ours
            theirs = "not run"
            if before:  # the baseline is slow: best of fewer runs, where it matters
                theirs = f"{fresh_cpu(JSONSCHEMA, before, surfaces, BASELINE_RUNS) * 1000:.0f} ms"
            rows.append(f"| {label}, {where} | {ours * 1000:.0f} ms | {theirs} |")
            print(rows[-1], flush=True)
    large = []
    for version in ("v0_9", "v0_8"):
        kind = "updateComponents" if version == "v0_9" else "v0.8"
        check = message_check(kind)
        per_size = {}
        for count in (999, 9_999):
            messages = large_surface(version, count)
            assert check(messages[1]), version
            if count < 1_000:
                public = best_cpu(lambda m=messages: check_messages(m))
                large.append(
                    f"| {version} | {count + 1:,} | check_messages | {public * 1000:.1f} ms |"
                )
                print(large[-1], flush=True)
            seconds = best_cpu(lambda m=messages[1], c=check: c(m))
            per_size[count] = seconds
            cpu = f"{seconds * 1000:.1f} ms"
            large.append(f"| {version} | {count + 1:,} | compiled check | {cpu} |")
            print(large[-1], flush=True)
        figures[f"10,000 components {version}"] = per_size[9_999]
        figures[f"growth {version}"] = growth(check, version)
    first_s = figures["first surface (the demo form), a chat loaded"]
    ten_s = figures["ten surfaces, a chat loaded"]
    big_s = max(figures["10,000 components v0_9"], figures["10,000 components v0_8"])
    verdict = [
        f"- first surface with a chat loaded: {first_s * 1000:.0f} ms "
        f"(target <= 100 ms): {'met' if first_s <= 0.1 else 'NOT met'}",
        f"- ten surfaces with a chat loaded: {ten_s * 1000:.0f} ms "
        f"(target <= 200 ms): {'met' if ten_s <= 0.2 else 'NOT met'}",
        f"- 10,000 components: {big_s * 1000:.0f} ms at most (target well under 1 s), "
        f"growing {figures['growth v0_9']:.1f}x (v0.9) and {figures['growth v0_8']:.1f}x "
        "(v0.8) from 1,000 (runs in turn)",
    ]
    print("\n".join(verdict))
    body = "\n".join(
        [
            "CPU time (`time.process_time`). Fresh interpreters: best of "
            f"{RUNS} ({BASELINE_RUNS} for jsonschema), bytecode cached; the clock starts",
            "after the chat's imports where it says so, and covers `import ipygenui.a2ui`",
            "and the check.",
            "",
            "| work | compiled schemas | jsonschema validators |",
            "|---|---:|---:|",
            *rows,
            "",
            f"One surface of many components (best of {RUNS}, in this process):",
            "",
            "| version | components | through | CPU |",
            "|---|---:|---|---:|",
            *large,
            "",
            *verdict,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_a2ui_check.py`",
        ]
    )
    update_section("bench_a2ui_check", body)


if __name__ == "__main__":
    main()
