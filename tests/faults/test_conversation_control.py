"""Faults in saved branches, ratings and thread folders.

Tried here:
- a version 1 file (before branches) loads; a file of an unknown version is
  refused, naming the versions this ipygenui reads;
- a corrupt branch structure: a fork naming no message, one keyed on the last
  message (no active version), an active index out of range, a fork with
  nothing stashed, an empty stashed version, a message id in two branches, a
  stashed version of the wrong type: each fails to load with a
  ``ThreadFileError`` naming the file and the fork;
- a stashed version left mid-run, waiting for approval, or "complete" with a
  call unanswered (a hand-edited file): it loads ended, its calls answered, so
  switching to it gives a valid history and nothing waits;
- a rating edited by hand into nonsense: no rating, no crash;
- a folder of threads with one corrupt file, a symbolic link or a second file
  holding one thread: that file is skipped with a warning naming it, every
  other thread opens and the chat goes on; a folder given to ``Runtime.load``
  (which reads one thread file).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import Complete, Incomplete, TextPart
from ipygenui.models.history import check_openai_history, to_openai_messages
from ipygenui.persistence import ThreadFileError, encode_thread
from ipygenui.testing import ScriptedModel
from runtime_helpers import call


@gu.tool(requires_approval=True)
def deploy(env: str) -> str:
    """Deploy."""
    return f"deployed to {env}"


async def saved_with_branches(path: Path) -> dict[str, Any]:
    """A thread with an edited first message, saved; returns its JSON."""
    rt = gu.Runtime(model=ScriptedModel(["a1", "a2", "a1 again"]), persist=path)
    await rt.send("q1")
    await rt.send("q2")
    await rt.edit(rt.thread.messages[0].id, "q1 edited")
    rt.close()  # the file plus its journal hold it; close() writes one JSON file
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data))


async def test_a_version_1_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    rt = gu.Runtime(model=ScriptedModel(["a1"]))
    await rt.send("q1")
    thread = rt.thread.model_dump(mode="json")
    del thread["forks"], thread["title"]  # what version 1 wrote
    write(path, {"format": "ipygenui.thread", "version": 1, "thread": thread})
    loaded = gu.Runtime.load(path, model=ScriptedModel(["a1 again"]))
    assert [m.text for m in loaded.thread.messages] == ["q1", "a1"]
    await loaded.regenerate()
    assert json.loads(path.read_text())["version"] == 1  # Runtime.load never writes back
    loaded.save(path)
    assert json.loads(path.read_text())["version"] == 2


def test_an_unknown_version_names_the_readable_ones(tmp_path: Path) -> None:
    path = tmp_path / "future.json"
    write(path, {"format": "ipygenui.thread", "version": 4, "thread": {}})
    wanted = r"unsupported thread file version 4 .*versions 1 to 3"
    with pytest.raises(ThreadFileError, match=wanted):
        gu.Runtime.load(path)


def break_fork_key(data: dict[str, Any]) -> None:
    forks = data["thread"]["forks"]
    forks["msg_missing"] = forks.pop("")


def key_on_last(data: dict[str, Any]) -> None:
    forks = data["thread"]["forks"]
    forks[data["thread"]["messages"][-1]["id"]] = forks.pop("")


def active_out_of_range(data: dict[str, Any]) -> None:
    data["thread"]["forks"][""]["active"] = 5


def nothing_stashed(data: dict[str, Any]) -> None:
    data["thread"]["forks"][""]["stashed"] = []


def empty_version(data: dict[str, Any]) -> None:
    data["thread"]["forks"][""]["stashed"].append([])


def repeated_id(data: dict[str, Any]) -> None:
    data["thread"]["forks"][""]["stashed"][0][0]["id"] = data["thread"]["messages"][0]["id"]


def wrong_type(data: dict[str, Any]) -> None:
    data["thread"]["forks"][""]["stashed"] = "q1"


@pytest.mark.parametrize(
    ("corrupt", "error"),
    [
        (break_fork_key, r"forks\['msg_missing'\]: no such message"),
        (key_on_last, r"forks\['msg_\w+'\]: nothing follows it, so there is no active version"),
        (active_out_of_range, r"forks\[''\]: active version 5 is out of range 0 to 1"),
        (nothing_stashed, r"forks\[''\]: a fork with one version has nothing stashed"),
        (empty_version, r"forks\[''\]: a stashed version is empty"),
        (repeated_id, r"forks: message id 'msg_\w+' appears twice"),
        (wrong_type, r"forks\.\.stashed: Input should be a valid list"),
    ],
)
async def test_a_corrupt_branch_structure_fails_to_load_clearly(
    tmp_path: Path, corrupt: Any, error: str
) -> None:
    path = tmp_path / "t.json"
    data = await saved_with_branches(path)
    corrupt(data)
    write(path, data)
    for load in (
        lambda: gu.Runtime.load(path),
        lambda: gu.Runtime(persist=path),
        lambda: gu.Chat.load(path),
    ):
        wanted = f"{re.escape(str(path))}: the thread does not validate: .*{error}"
        with pytest.raises(ThreadFileError, match=wanted):
            load()


async def test_a_stashed_version_left_running_or_waiting_loads_ended(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=ScriptedModel([call("deploy", {"env": "prod"})]), tools=[deploy])
    waiting = await rt.send("deploy")
    thread = rt.thread.model_copy(deep=True)
    # by hand: the waiting reply stashed as a version, a new one shown instead
    question = thread.messages[0]
    thread.messages[:] = [
        question,
        gu.Message(role="assistant", parts=[TextPart(text="b")]),
    ]
    stashed_wait = waiting.model_copy(deep=True)
    stashed_run = waiting.model_copy(deep=True, update={"id": "msg_running"})
    stashed_done = waiting.model_copy(deep=True, update={"id": "msg_done"})
    stashed_done.status = Complete()  # "complete" with its call still open
    data = json.loads(encode_thread(thread))
    data["thread"]["forks"] = {
        question.id: {
            "active": 3,
            "stashed": [
                [stashed_wait.model_dump(mode="json")],
                [{**stashed_run.model_dump(mode="json"), "status": {"type": "running"}}],
                [stashed_done.model_dump(mode="json")],
            ],
        }
    }
    write(path, data)

    loaded = gu.Runtime.load(path, tools=[deploy], model=ScriptedModel(["fine"]))
    for version in (0, 1, 2):
        loaded.switch_branch(loaded.thread.messages[1].id, version)
        reply = loaded.thread.messages[1]
        assert isinstance(reply.status, Incomplete if version < 2 else Complete)
        assert all(p.has_result for p in reply.tool_calls)
        assert loaded.phase == "idle"
        check_openai_history(to_openai_messages(loaded.thread))
    assert (await loaded.send("next")).text == "fine"


async def test_a_rating_edited_into_nonsense_is_no_rating(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["a1"]), persist=path)
    reply = await rt.send("q1")
    rt.feedback(reply.id, "up")
    data = json.loads(path.read_text())
    data["thread"]["messages"][1]["metadata"]["feedback"] = {"rating": "sideways", "time": "x"}
    write(path, data)
    loaded = gu.Runtime.load(path)
    assert loaded.thread.messages[1].feedback is None
    assert loaded.thread.feedback() == []
    loaded.feedback(reply.id, "down")
    assert [r["rating"] for r in loaded.thread.feedback()] == ["down"]


async def two_saved_threads(folder: Path) -> list[str]:
    """Two threads saved in ``folder``; their first messages."""
    folder.mkdir()
    rt = gu.Runtime(model=ScriptedModel(["a", "b"]), persist=folder)
    await rt.send("first")
    rt.new_thread()
    await rt.send("second")
    return ["first", "second"]


def bad_file(folder: Path, kind: str) -> Path:
    """One bad file beside the good ones: corrupt, a link, or a copy of a thread."""
    if kind == "corrupt":
        path = folder / "broken.json"
        path.write_text('{"format": "ipygenui.thread", "ver')
    elif kind == "a symbolic link":
        outside = folder.parent / "outside.json"
        outside.write_text('{"format": "ipygenui.thread", "version": 2, "thread": {}}')
        path = folder / "linked.json"
        path.symlink_to(outside)
    else:  # "a duplicate id": a copy sorting before the thread's own file
        path = folder / "a-copy.json"
        path.write_bytes(sorted(folder.glob("*.json"))[0].read_bytes())
    return path


@pytest.mark.parametrize("kind", ["corrupt", "a symbolic link", "a duplicate id"])
async def test_one_bad_file_in_a_folder_is_skipped_and_named_and_the_rest_open(
    tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "chats"
    firsts = await two_saved_threads(folder)
    bad = bad_file(folder, kind)
    kept = bad.read_bytes() if not bad.is_symlink() else None
    with caplog.at_level("WARNING", logger="ipygenui"):
        rt = gu.Runtime(model=ScriptedModel(["c"]), persist=folder)
    assert sorted(t.title for t in rt.threads) == firsts
    warned = [r.getMessage() for r in caplog.records if bad.name in r.getMessage()]
    assert len(warned) == 1 and "skipped" in warned[0], caplog.text
    await rt.send("still works")
    assert rt.thread.messages[-1].text == "c"
    assert os.path.lexists(bad) and (kept is None or bad.read_bytes() == kept)  # left as it was


def test_loading_a_folder_as_one_thread_says_how_to_open_it(tmp_path: Path) -> None:
    with pytest.raises(ThreadFileError, match="is a folder of threads: open them with persist="):
        gu.Runtime.load(tmp_path)
