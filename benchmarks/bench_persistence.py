"""Saves at scale (issue 36, items 1 and 6): a chat with ``persist=`` a folder.

A headless ``gu.Runtime`` on the ``ScriptedModel`` (no delay) answers turns
in a thread that already holds 100, 1,000 and 10,000 messages (each a short
user message or a reply of about 300 characters), each case in a fresh
interpreter. Measured:

- the kernel's CPU per turn (``time.process_time``: the event loop and the
  save worker threads), the save and the reply together, over 20 turns
  after 3 warm-up turns; the ratio 1,000 / 100 (target at most 2x); and,
  beside it, the same turns of a chat without ``persist=`` (the reply alone,
  whose growth is the history's, issue 36 item 2);
- reopening the folder of the 10,000-message thread (``Runtime(persist=)``,
  wall time, target under 1 s);
- the kill loop: a writer process killed (SIGKILL) at a random moment 200
  times, each time the folder reopened (target 0 unreadable);
- 1,000 threads of 10 messages in one folder opened and listed
  (``Runtime(persist=)`` then ``threads``), the second time (the first reads
  every file and writes the folder's index), and a switch between two of them.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_persistence.py``
(``--quick`` runs 20 kills, not 200).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _results import update_section

SIZES = (100, 1_000, 10_000)
TURNS = 20
WARMUP = 3
KILLS = 200
THREADS = 1_000

CASE = r"""
import json, sys, time
from pathlib import Path
import ipygenui as gu
from ipygenui.messages import Message, TextPart, Thread
from ipygenui.persistence import save_thread
from ipygenui.testing import ScriptedModel

folder, n, turns, warmup = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
reply = "A reply of some length, as a model gives. " * 7
messages = [
    Message(role="user" if i % 2 == 0 else "assistant",
            parts=[TextPart(text=f"question {i}" if i % 2 == 0 else reply)])
    for i in range(n)
]
thread = Thread(id="long", messages=messages)
folder.mkdir()
save_thread(thread, folder / "long.json")
t = time.perf_counter()
rt = gu.Runtime(model=ScriptedModel([reply] * (turns + warmup + 2)), persist=str(folder) + "/")
opened = time.perf_counter() - t
assert len(rt.thread.messages) == n, len(rt.thread.messages)

def per_turn(chat):
    for i in range(warmup):
        chat.run_sync(f"warm {i}")
    c = time.process_time()
    for i in range(turns):
        chat.run_sync(f"turn {i}")
    return (time.process_time() - c) / turns

cpu = per_turn(rt)
rt.close()
t = time.perf_counter()
again = gu.Runtime(model=ScriptedModel([]), persist=str(folder) + "/")
reopened = time.perf_counter() - t
assert len(again.thread.messages) == n + 2 * (turns + warmup), len(again.thread.messages)
bare = gu.Runtime(model=ScriptedModel([reply] * (turns + warmup + 2)),
                  thread=Thread(messages=[m.model_copy(deep=True) for m in messages]))
reply_cpu = per_turn(bare)
print(json.dumps({"cpu_ms": cpu * 1000, "reply_ms": reply_cpu * 1000, "opened_s": opened,
                  "reopened_s": reopened}))
"""

WRITER = r"""
import asyncio, sys
import ipygenui as gu
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply

@gu.tool
def step(n: int) -> dict:
    return {"n": n, "padding": "x" * 2_000}

calls = [ScriptedReply(tool_calls=[ScriptedCall("step", {"n": i})]) for i in range(2000)]
rt = gu.Runtime(model=ScriptedModel(calls + ["done"]), tools=[step],
                persist=sys.argv[1], max_steps=5000)
print("ready", flush=True)
asyncio.run(rt.send("go"))
"""

READER = r"""
import sys
import ipygenui as gu
from ipygenui.testing import ScriptedModel
rt = gu.Runtime(model=ScriptedModel([]), persist=sys.argv[1])
print(len(rt.thread.messages))
"""

MANY = r"""
import json, sys, time
from pathlib import Path
import ipygenui as gu
from ipygenui.messages import Message, TextPart, Thread
from ipygenui.persistence import save_thread
from ipygenui.testing import ScriptedModel

folder, count = Path(sys.argv[1]), int(sys.argv[2])
folder.mkdir()
for k in range(count):
    messages = [Message(role="user" if i % 2 == 0 else "assistant",
                        parts=[TextPart(text=f"thread {k} message {i} " * 10)],
                        created_at=1_700_000_000 + k * 100 + i) for i in range(10)]
    save_thread(Thread(id=f"t{k:04d}", messages=messages), folder / f"t{k:04d}.json")
t = time.perf_counter()
first = gu.Runtime(model=ScriptedModel([]), persist=str(folder) + "/")
assert len(first.threads) == count
first_s = time.perf_counter() - t
first.close()
t = time.perf_counter()
rt = gu.Runtime(model=ScriptedModel([]), persist=str(folder) + "/")
listed = rt.threads
opened = time.perf_counter() - t
assert len(listed) == count, len(listed)
t = time.perf_counter()
rt.switch_thread("t0001")
rt.switch_thread("t0002")
switched = (time.perf_counter() - t) / 2
print(json.dumps({"first_s": first_s, "opened_s": opened, "switch_ms": switched * 1000}))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _run(code: str, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"case failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _kill_loop(root: Path, kills: int) -> tuple[int, int]:
    """(unreadable, kills that landed after a first save)."""
    folder = root / "killed"
    rng = random.Random(36)
    unreadable = landed = 0
    for _ in range(kills):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(folder) + "/"],
            stdout=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        read = subprocess.run(
            [sys.executable, "-c", READER, str(folder) + "/"],
            capture_output=True,
            text=True,
            env=_env(),
            check=False,
        )
        if read.returncode != 0 or "skipped" in read.stderr:
            unreadable += 1
            print(read.stderr[-2000:], file=sys.stderr)
        elif int(read.stdout.strip() or 0) > 0:
            landed += 1
    return unreadable, landed


def main() -> None:
    kills = 20 if "--quick" in sys.argv else KILLS
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases = {n: _run(CASE, str(root / f"n{n}"), str(n), str(TURNS), str(WARMUP)) for n in SIZES}
        many = _run(MANY, str(root / "many"), str(THREADS))
        unreadable, landed = _kill_loop(root, kills)
    lines = [
        "| messages in the thread | save + reply CPU per turn | the reply alone "
        "(no `persist=`) | the save's share | reopening the folder |"
    ]
    lines.append("|---:|---:|---:|---:|---:|")
    for n, case in cases.items():
        lines.append(
            f"| {n:,} | {case['cpu_ms']:.1f} ms | {case['reply_ms']:.1f} ms | "
            f"{case['cpu_ms'] - case['reply_ms']:.1f} ms | {case['reopened_s'] * 1000:.0f} ms |"
        )
    ratio = cases[1_000]["cpu_ms"] / cases[100]["cpu_ms"]
    ratio_10k = cases[10_000]["cpu_ms"] / cases[100]["cpu_ms"]
    body = "\n".join(
        [
            __doc__.split("\n\n", 1)[1].rsplit("\n\nRun:", 1)[0],
            "",
            *lines,
            "",
            f"- save + reply CPU per turn, 1,000 / 100 messages: {ratio:.2f}x (target at most 2x); "
            f"10,000 / 100: {ratio_10k:.2f}x; the reply alone, 1,000 / 100: "
            f"{cases[1_000]['reply_ms'] / cases[100]['reply_ms']:.2f}x",
            f"- reopening 10,000 messages: {cases[10_000]['reopened_s'] * 1000:.0f} ms "
            "(target under 1 s)",
            f"- kill loop: {unreadable} unreadable in {kills} kills ({landed} after a first save)",
            f"- {THREADS:,} threads of 10 messages opened and listed: "
            f"{many['opened_s'] * 1000:.0f} ms (the first opening, which reads every file "
            f"and writes the folder's index: {many['first_s'] * 1000:.0f} ms); "
            f"a switch between two: {many['switch_ms']:.2f} ms",
        ]
    )
    print(body)
    update_section("bench_persistence", body)


if __name__ == "__main__":
    main()
