"""Faults in saved thread files and in the files' writers.

Tried here:
- a thread file edited by hand: a pending gated call flipped to "approved" with
  new arguments, "always_approved" added to the metadata, an approval flipped
  to "rejected" with no result, loaded through ``Runtime.load``, ``Chat.load``
  and ``persist=`` resume; then nothing approved, another call approved, a new
  message sent: the gated tool never runs unasked (standing grants come back
  only with ``restore_always_allowed=True``);
- two writers on one persist path: two runtimes in one process, a notebook
  cell re-run (a new ``Chat`` while the old one lives), another process, and an
  explicit ``save()`` by another runtime: the later owner works, the earlier
  one is refused with ``PersistenceConflictError`` (shown as a save failure),
  and no thread is silently lost;
- temp files left by interrupted saves: a dead writer's and an old one are
  removed, a live writer's fresh one is kept;
- unreadable files: truncated JSON, not UTF-8, wrong format, a thread that
  fails validation: the error names the file and what is wrong.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import Complete, Incomplete, RequiresAction
from ipygenui.persistence import PersistenceConflictError, ThreadFileError, load_thread
from ipygenui.testing import ScriptedCall, ScriptedModel

# --- helpers ------------------------------------------------------------------


async def done(run: Any) -> Any:
    """The run's final message; a run that never ends fails the test instead of hanging it."""
    assert run is not None
    return await asyncio.wait_for(asyncio.shield(run._future), 30)


def call(name: str, args: dict[str, Any], id: str) -> ScriptedCall:
    return ScriptedCall(name, args, id=id)


def gated(ran: list[str]) -> gu.Tool:
    @gu.tool(requires_approval=True)
    def deploy(env: str) -> str:
        """Deploy."""
        ran.append(env)
        return f"deployed {env}"

    return deploy


async def saved_pending(path: Path, *ids: str) -> None:
    """A thread whose last reply waits for approval of deploy calls ``ids``."""
    ran: list[str] = []
    calls = [call("deploy", {"env": f"test-{i}"}, id=i) for i in ids]
    rt = gu.Runtime(model=ScriptedModel([calls]), tools=[gated(ran)])
    await done(rt.send("ship it"))
    assert isinstance(rt.thread.messages[-1].status, RequiresAction) and ran == []
    rt.save(path)


def edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data["thread"])
    path.write_text(json.dumps(data), encoding="utf-8")


def call_part(thread: dict[str, Any], tool_call_id: str) -> dict[str, Any]:
    for message in thread["messages"]:
        for part in message["parts"]:
            if part.get("tool_call_id") == tool_call_id:
                return part
    raise KeyError(tool_call_id)


def approve_with(tool_call_id: str, env: str) -> Any:
    def change(thread: dict[str, Any]) -> None:
        part = call_part(thread, tool_call_id)
        part["approval"] = {"status": "approved", "reason": None}
        part["args"] = {"env": env}
        part["args_text"] = json.dumps({"env": env})

    return change


def loaders(path: Path, ran: list[str], model: ScriptedModel) -> list[Any]:
    return [
        lambda: gu.Runtime.load(path, model=model, tools=[gated(ran)]),
        lambda: gu.Chat.load(path, model=model, tools=[gated(ran)]).runtime,
        lambda: gu.Runtime(model=model, tools=[gated(ran)], persist=path),
    ]


# --- 3: a loaded thread grants nothing ------------------------------------------


@pytest.mark.parametrize("how", ["Runtime.load", "Chat.load", "persist="])
async def test_a_call_approved_in_the_file_asks_again(tmp_path: Path, how: str) -> None:
    path = tmp_path / "t.json"
    await saved_pending(path, "d1", "d2")
    edit(path, approve_with("d1", "prod"))
    ran: list[str] = []
    model = ScriptedModel(["Done.", "Later."])
    index = ["Runtime.load", "Chat.load", "persist="].index(how)
    rt = loaders(path, ran, model)[index]()

    message = rt.thread.messages[-1]
    part = message.tool_call("d1")
    assert part is not None and part.approval is not None
    assert part.approval.status == "pending" and not part.has_result
    assert part.args == {"env": "prod"}  # what the user is asked about is what would run
    assert isinstance(message.status, RequiresAction)
    for _ in range(5):
        await asyncio.sleep(0)
    assert ran == [] and not rt.running

    # Before, the file's "approved" d1 let this decision resume the loop and run both.
    run = rt.approve("d2")
    if run is not None:
        await done(run)
    assert ran == []  # d1 still waits for the user, so nothing resumed
    assert rt.thread.messages[-1].tool_call("d1").approval.status == "pending"  # type: ignore[union-attr]

    await done(rt.send("never mind"))
    assert ran == []


async def test_a_call_approved_in_the_file_runs_with_the_files_args_once_approved(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.json"
    await saved_pending(path, "d1")
    edit(path, approve_with("d1", "staging"))
    ran: list[str] = []
    rt = gu.Runtime.load(path, model=ScriptedModel(["Done."]), tools=[gated(ran)])
    await done(rt.approve("d1"))
    assert ran == ["staging"]


async def test_args_in_the_file_that_differ_from_its_args_text_are_not_shown(
    tmp_path: Path,
) -> None:
    """The card shows ``args``, the tool gets ``args_text``: a file cannot split them."""
    path = tmp_path / "t.json"
    await saved_pending(path, "d1")

    def change(thread: dict[str, Any]) -> None:
        part = call_part(thread, "d1")
        part["args"] = {"env": "harmless"}
        part["args_text"] = json.dumps({"env": "prod"})

    edit(path, change)
    ran: list[str] = []
    rt = gu.Runtime.load(path, model=ScriptedModel(["Done."]), tools=[gated(ran)])
    assert rt.thread.messages[-1].tool_call("d1").args == {"env": "prod"}  # type: ignore[union-attr]


@pytest.mark.parametrize("how", ["Runtime.load", "Chat.load", "persist="])
async def test_always_approved_in_the_file_is_not_restored(tmp_path: Path, how: str) -> None:
    path = tmp_path / "t.json"
    await saved_pending(path, "d1")

    def grant(thread: dict[str, Any]) -> None:
        thread["metadata"]["always_approved"] = ["deploy"]

    edit(path, grant)
    ran: list[str] = []
    model = ScriptedModel([call("deploy", {"env": "prod"}, id="d9"), "Done."])
    index = ["Runtime.load", "Chat.load", "persist="].index(how)
    rt = loaders(path, ran, model)[index]()
    assert rt.always_allowed == frozenset()
    await done(rt.send("deploy prod"))
    assert ran == []
    d9 = rt.thread.messages[-1].tool_call("d9")
    assert d9 is not None and d9.approval is not None and d9.approval.status == "pending"


async def test_always_approved_is_restored_on_explicit_opt_in(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    await saved_pending(path, "d1")
    edit(path, lambda thread: thread["metadata"].update(always_approved=["deploy"]))
    for load in [
        lambda ran, m: gu.Runtime.load(
            path, model=m, tools=[gated(ran)], restore_always_allowed=True
        ),
        lambda ran, m: (
            gu.Chat.load(path, model=m, tools=[gated(ran)], restore_always_allowed=True).runtime
        ),
        lambda ran, m: gu.Runtime(
            model=m, tools=[gated(ran)], persist=path, restore_always_allowed=True
        ),
    ]:
        ran: list[str] = []
        model = ScriptedModel([call("deploy", {"env": "prod"}, id="d9"), "Done."])
        rt = load(ran, model)
        assert rt.always_allowed == {"deploy"}
        await done(rt.send("deploy prod"))
        assert ran == ["prod"]


async def test_a_rejection_without_result_in_the_file_does_not_strand_the_call(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.json"
    await saved_pending(path, "d1")
    edit(path, lambda t: call_part(t, "d1").update(approval={"status": "rejected"}))
    ran: list[str] = []
    rt = gu.Runtime.load(path, model=ScriptedModel(["Ok."]), tools=[gated(ran)])
    final = await done(rt.reject("d1", "no"))
    assert ran == [] and isinstance(final.status, Complete)


async def test_an_open_call_in_an_earlier_reply_of_the_file_never_runs(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    await saved_pending(path, "d1")
    rt = gu.Runtime.load(path, model=ScriptedModel(["Hi."]), tools=[gated([])])
    await done(rt.send("something else"))  # d1 ends rejected; the thread now has a later reply
    rt.save(path)

    def reopen(thread: dict[str, Any]) -> None:
        part = call_part(thread, "d1")
        part.update(approval={"status": "approved"}, has_result=False, result=None)

    edit(path, reopen)
    ran: list[str] = []
    loaded = gu.Runtime.load(path, model=ScriptedModel(["Again."]), tools=[gated(ran)])
    first = loaded.thread.messages[1]
    assert first.tool_call("d1").has_result  # type: ignore[union-attr]
    assert isinstance(first.status, Incomplete | Complete)
    with pytest.raises(gu.errors.DecisionError):
        loaded.approve("d1")
    await done(loaded.send("more"))
    assert ran == []


# --- 13: two writers on one path ------------------------------------------------


def texts(path: Path) -> list[str]:
    """The texts saved at ``path`` (the file and the journal that continues it)."""
    return [m.text for m in load_thread(path).messages]


async def test_two_runtimes_on_one_path_the_earlier_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    a = gu.Runtime(model=ScriptedModel(["from a", "a again"]), persist=path)
    await done(a.send("one"))
    b = gu.Runtime(model=ScriptedModel(["from b"]), persist=path)  # resumes a's thread
    await done(b.send("two"))
    assert b.save_error is None
    final = await done(a.send("three"))  # the run still ends; the loop goes on
    assert final.text == "a again"
    assert a.save_error is not None and str(path) in a.save_error
    assert "another" in a.save_error
    assert texts(path) == ["one", "from a", "two", "from b"]  # b's thread is intact
    with pytest.raises(PersistenceConflictError, match=r"t\.json"):
        a.save(path)
    await done(b.send("four"))  # b keeps saving
    assert texts(path)[-2] == "four" and b.save_error is None


async def test_rerunning_the_cell_the_new_chat_wins(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    old = gu.Chat(model=ScriptedModel(["old reply", "old again"]), persist=path)
    await done(old.send("first"))
    new = gu.Chat(model=ScriptedModel(["new reply"]), persist=path)  # the cell ran again
    await done(old.send("late"))  # the old object saves after the new one exists
    assert old.save_error and str(path) in old.save_error
    assert old.runtime.save_error == old.save_error
    assert texts(path) == ["first", "old reply"]  # the old chat's late turn did not land
    await done(new.send("second"))
    assert new.save_error == "" and new.runtime.save_error is None
    assert texts(path) == ["first", "old reply", "second", "new reply"]


async def test_another_process_taking_the_path_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    here = gu.Runtime(model=ScriptedModel(["here", "here again"]), persist=path)
    await done(here.send("one"))
    code = (
        "import asyncio, sys, ipygenui as gu\n"
        "from ipygenui.testing import ScriptedModel\n"
        "async def main():\n"
        "    rt = gu.Runtime(model=ScriptedModel(['there']), persist=sys.argv[1])\n"
        "    await rt.send('two')\n"
        "    assert rt.save_error is None, rt.save_error\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, env=env, timeout=120)
    await done(here.send("three"))
    assert here.save_error is not None and "process" in here.save_error
    assert texts(path) == ["one", "here", "two", "there"]


async def test_a_plain_save_to_the_path_by_someone_else_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    a = gu.Runtime(model=ScriptedModel(["a", "a2"]), persist=path)
    await done(a.send("one"))
    other = gu.Runtime(model=ScriptedModel(["b"]))
    await done(other.send("elsewhere"))
    other.save(path)  # no claim: a one-off write over a's file
    await done(a.send("two"))
    assert a.save_error is not None and "changed" in a.save_error
    assert texts(path) == ["elsewhere", "b"]


async def test_saving_to_its_own_persist_path_is_not_a_conflict(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["a", "b"]), persist=path)
    await done(rt.send("one"))
    rt.save(path)
    rt.save(str(path))
    await done(rt.send("two"))
    assert rt.save_error is None and texts(path)[-1] == "b"


def test_stale_temp_files_are_removed_and_a_live_writers_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead_pid = int(gone.stdout)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = tmp_path / f".t.json.{dead_pid}-abc12345.tmp"
        old = tmp_path / ".t.json.k2j3h4xy.tmp"  # an older version's name: no pid
        fresh_live = tmp_path / f".t.json.{live.pid}-def45678.tmp"
        other_file = tmp_path / f".t.json.bak.{dead_pid}-abc12345.tmp"  # another file's
        for item in (dead, old, fresh_live, other_file):
            item.write_text("{", encoding="utf-8")
        an_hour_ago = time.time() - 3600
        os.utime(old, (an_hour_ago, an_hour_ago))
        gu.Runtime(model=ScriptedModel([]), persist=path)
        assert not dead.exists() and not old.exists()
        assert fresh_live.exists() and other_file.exists()
    finally:
        live.kill()
        live.wait()


# --- 14 (part): load errors name the file ------------------------------------------


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b'{"format": "ipygenui.thread", "version": 1, "thread": {"messages": [', "JSON"),
        (b"\xff\xfe not text", "UTF-8"),
        (b"[1, 2, 3]", "not an ipygenui thread"),
        (b'{"format": "something.else", "version": 1}', "not an ipygenui thread"),
        (b'{"format": "ipygenui.thread", "version": 1}', "no thread"),
        (
            b'{"format": "ipygenui.thread", "version": 1, "thread": '
            b'{"messages": [{"role": "robot"}]}}',
            "role",
        ),
        (b'{"format": "ipygenui.thread", "version": 99, "thread": {}}', "version"),
    ],
)
def test_load_errors_name_the_file(tmp_path: Path, content: bytes, what: str) -> None:
    path = tmp_path / "broken thread.json"
    path.write_bytes(content)
    for load in [
        lambda: gu.Runtime.load(path, model=ScriptedModel([])),
        lambda: gu.Runtime(model=ScriptedModel([]), persist=path),
    ]:
        with pytest.raises(ThreadFileError) as info:
            load()
        assert str(path) in str(info.value) and what in str(info.value)
        assert isinstance(info.value, ValueError)
    assert path.read_bytes() == content  # a file that does not load is never overwritten


async def test_a_folder_where_no_lock_file_can_be_made_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only folder (simulated: root ignores permissions) must not stop loading."""
    from ipygenui import persistence

    path = tmp_path / "t.json"
    first = gu.Runtime(model=ScriptedModel(["a"]), persist=path)
    await done(first.send("one"))
    real_open = persistence.os.open

    def no_lock(name: Any, *args: Any, **kwargs: Any) -> int:
        if str(name).endswith(".lock"):
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(persistence.os, "open", no_lock)
    again = gu.Runtime(model=ScriptedModel(["b"]), persist=path)
    assert texts(path) == [m.text for m in again.thread.messages] == ["one", "a"]


# --- a thread file too large to read --------------------------------------------------


def test_a_2_gb_thread_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A sparse 2 GB file (no real data written): refused by its size, never read whole."""
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(2 * 1024**3)
    for load in [
        lambda: gu.Runtime.load(path, model=ScriptedModel([])),
        lambda: gu.Runtime(model=ScriptedModel([]), persist=path),
    ]:
        with pytest.raises(ThreadFileError, match=r"huge\.json.*larger than .* not read"):
            load()
    assert path.stat().st_size == 2 * 1024**3  # never overwritten either
