"""Faults: the kernel killed (SIGKILL) while a chat saves its thread.

A child process runs a chat with ``persist=`` that saves after every step
of a long run of tool calls; it is killed at a random moment, many times.
Each time the file must load (the thread as of some save, never a torn
file), the next chat on the path must resume from it, and the temp files
the killed writer left must be gone once a new writer opens the path.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.testing import ScriptedModel

KILLS = 20

CHILD = """
import asyncio, sys
import ipygenui as gu
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply

@gu.tool
def step(n: int) -> dict:
    return {"n": n, "padding": "x" * 20_000}  # a save takes a little while

calls = [ScriptedReply(tool_calls=[ScriptedCall("step", {"n": i})]) for i in range(400)]
rt = gu.Runtime(model=ScriptedModel(calls + ["done"]), tools=[step],
                persist=sys.argv[1], max_steps=1000)
print("ready", flush=True)
asyncio.run(rt.send("go"))
"""


def _child(path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_kill_during_autosave_never_leaves_a_file_that_cannot_load(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    rng = random.Random(7)
    sizes: list[int] = []
    for _ in range(KILLS):
        child = _child(path)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.4))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        if not path.exists():
            continue  # killed before its first save
        thread = gu.Runtime.load(path, model=ScriptedModel([])).thread  # never torn
        sizes.append(len(thread.messages))
        # the user's message is saved first (a kill before the reply began
        # keeps it); every reply follows a user message
        roles = [m.role for m in thread.messages]
        assert roles[0] == "user", roles
        assert all(roles[i - 1] == "user" for i, r in enumerate(roles) if r == "assistant"), roles
    assert sizes, "no kill landed after a save: the test proved nothing"

    # A new writer opens the path: leftovers of the killed ones are cleaned up,
    # the interrupted reply ends as cancelled, and the chat goes on.
    rt = gu.Runtime(model=ScriptedModel(["still here"]), persist=path)
    assert not list(tmp_path.glob(".chat.json.*.tmp"))
    replies = [m for m in rt.thread.messages if m.role == "assistant"]
    assert all(m.status.type == "incomplete" for m in replies), [m.status for m in replies]
    message = rt.run_sync("and now?")
    assert message.text == "still here"
    assert gu.Runtime.load(path, model=ScriptedModel([])).thread.messages[-1].text == ("still here")
