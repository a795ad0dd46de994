"""Faults: the kernel killed (SIGKILL) while a chat saves its thread.

A child process runs a chat with ``persist=`` that saves after every step
of a long run of tool calls; it is killed at a random moment, many times.
Each time the file must load (the thread as of some save, never a torn
file), the next chat on the path must resume from it, and the temp files
the killed writer left must be gone once a new writer opens the path.
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.messages import Message, TextPart, Thread
from ipygenui.persistence import ThreadFile, journal_path, load_thread
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


FORK_KILLS = 200


def _journal_writer(path: Path, seed: int) -> None:
    """In a forked child: save a growing thread change after change, for ever
    (each save appends to the journal; now and then the file is rewritten)."""
    rng = random.Random(seed)
    handle = ThreadFile(path, journal=True)
    thread = handle.open(load=True) or Thread(id="killed")
    while True:
        if thread.messages and rng.random() < 0.3:  # a reply edited in place of a new one
            thread.messages[-1] = Message(role="assistant", parts=[TextPart(text="x" * 3000)])
        role = "user" if len(thread.messages) % 2 == 0 else "assistant"
        text = f"{len(thread.messages)} " + "y" * rng.randrange(10, 5000)
        thread.messages.append(Message(role=role, parts=[TextPart(text=text)]))
        thread.title = f"after {len(thread.messages)}"
        handle.save(thread)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_a_writer_killed_200_times_at_random_never_leaves_a_thread_that_does_not_load(
    tmp_path: Path,
) -> None:
    """The journal (``persistence._journal``): a writer process is killed at a
    random moment 200 times; every time the thread loads, whole up to some
    save, and the next writer goes on from it."""
    path = tmp_path / "t.json"
    rng = random.Random(36)
    counts: list[int] = []
    journaled = 0
    for kill in range(FORK_KILLS):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                _journal_writer(path, kill)
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0.0, 0.05))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        if not path.exists():
            continue
        thread = load_thread(path)  # never raises: nothing torn is read
        texts = [m.text for m in thread.messages]
        assert all(t.startswith(f"{i} ") or t == "x" * 3000 for i, t in enumerate(texts)), texts
        assert thread.title == f"after {len(texts)}"  # saved with its message, never apart
        counts.append(len(texts))
        journal = journal_path(path)
        journaled += journal.exists() and journal.read_bytes().count(b"\n") > 1
    assert len(counts) > FORK_KILLS // 2, "few kills landed after a save: the test proved little"
    assert counts[-1] > counts[0], counts  # each writer went on from what the last one saved
    assert journaled, "no kill left changes in the journal: the test proved little"


def test_a_journal_cut_at_any_byte_loses_at_most_its_last_change(tmp_path: Path) -> None:
    """A journal whose end was never written (power lost mid-write): cut at
    every byte of its last record, the thread loads as of the save before."""
    path = tmp_path / "t.json"
    handle = ThreadFile(path, journal=True)
    handle.open(load=False)
    thread = Thread(id="cut")
    saved: list[list[str]] = []
    for i in range(4):
        thread.messages.append(Message(role="user", parts=[TextPart(text=f"message {i}")]))
        handle.save(thread)
        saved.append([m.text for m in thread.messages])
    journal = journal_path(path).read_bytes()
    last = journal.rindex(b"\n", 0, len(journal) - 1) + 1  # where the last record starts
    assert journal.count(b"\n") == 4  # the header, then a line per save after the first
    for cut in range(last, len(journal)):
        journal_path(path).write_bytes(journal[:cut])
        assert [m.text for m in load_thread(path).messages] == saved[-2], cut
    journal_path(path).write_bytes(journal)
    assert [m.text for m in load_thread(path).messages] == saved[-1]


def test_a_thread_file_edited_by_hand_after_a_journaled_save_opens_as_edited(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The journal's first line binds it to the file's bytes: a file edited
    by hand since (its journal id kept) opens as edited, and the journal that
    no longer continues it is ignored with a warning naming it."""
    path = tmp_path / "t.json"
    handle = ThreadFile(path, journal=True)
    handle.open(load=False)
    thread = Thread(id="edited")
    for i in range(3):
        thread.messages.append(Message(role="user", parts=[TextPart(text=f"message {i}")]))
        handle.save(thread)
    assert journal_path(path).read_bytes().count(b"\n") == 3  # two saves in the journal
    assert [m.text for m in load_thread(path).messages] == ["message 0", "message 1", "message 2"]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["thread"]["messages"][0]["parts"][0]["text"] = "edited by hand"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="ipygenui"):
        assert [m.text for m in load_thread(path).messages] == ["edited by hand"]
    assert str(journal_path(path)) in caplog.text and "ignored" in caplog.text
