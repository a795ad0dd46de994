"""Faults tried with the files beside a thread: attachments, locks, links.

Tried here (every file in ``tmp_path``; a "home" file is a stand-in made there):
- an attachment id ``../../escaped/owned`` with inline bytes, in a thread file
  and in memory: the next save writes nothing outside the ``.files`` folder
  (a file's attachment gets a fresh id and is kept; an in-memory one is not
  saved and the save error says why);
- a ``.files`` folder that is a link to a folder with a private-key-like file,
  a link inside the folder, a link to ``/dev/zero``, a FIFO, a thread file that
  is a FIFO: nothing is read, and loading returns (run in a child process with a
  time-out and a memory limit, so a regression fails instead of hanging or
  eating the machine's memory) with the image left out and a notice saying why;
- a file named ``.png`` that is no image: refused by its first bytes;
- a ``.files`` folder that is a link when a new image is saved: nothing is
  written through it, the save error names it;
- user paths given to ``send(attachments=[...])``: a FIFO is refused without
  waiting on it, a file whose size says 0 (``/proc``) is read no further than
  the cap plus one byte;
- a lock file that is a symbolic or hard link to a "home" file, found when the
  chat opens its file or folder or planted while it runs: refused with a
  ``ThreadFileError`` / save error naming the lock (a folder skips that thread
  with a warning naming it), the target byte-for-byte unchanged;
- a thread file that is a link: loading and saving through it are refused (a
  folder skips it with a warning), the link and its target stay as they were;
- two calls sharing one id in a thread file: each gets its own id on load,
  each approval decides its own call, and the results the model reads stay
  paired with their calls.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.data.attachments import AttachmentError
from ipygenui.messages import AttachmentPart, Complete, RequiresAction, TextPart
from ipygenui.persistence import ThreadFileError, load_thread
from ipygenui.testing import ScriptedModel
from runtime_helpers import assert_valid, call, tool_messages

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)
"""Enough of a PNG for its magic number (no model here decodes it)."""
KEY = b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
BASHRC = b"export PATH=$HOME/bin:$PATH\nalias ll='ls -l'\n"

needs_links = pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="POSIX")


def thread_file(path: Path, *parts: dict[str, Any]) -> None:
    """A thread file with one user message (text, then ``parts``) and a reply."""
    thread = {
        "messages": [
            {
                "role": "user",
                "parts": [{"type": "text", "text": "see"}, *parts],
                "status": {"type": "complete", "reason": "stop"},
            },
            {
                "role": "assistant",
                "parts": [{"type": "text", "text": "seen"}],
                "status": {"type": "complete", "reason": "stop"},
            },
        ]
    }
    path.write_text(json.dumps({"format": "ipygenui.thread", "version": 2, "thread": thread}))


def image(file: str | None = None, **extra: Any) -> dict[str, Any]:
    part = {"type": "attachment", "name": "a.png", "kind": "image", "mime": "image/png"}
    return part | ({"file": file} if file else {}) | extra


def everything_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def sent_text(model: ScriptedModel) -> str:
    return json.dumps([request.messages for request in model.requests])


async def done(run: Any) -> Any:
    assert run is not None
    return await asyncio.wait_for(asyncio.shield(run._future), 30)


# --- 14: an attachment id that climbs out of its folder ----------------------------------


async def test_an_attachment_id_from_a_file_never_writes_outside_its_folder(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    chats = tmp_path / "nest" / "chats"
    chats.mkdir(parents=True)
    path = chats / "t.json"
    # inline bytes (which a file never needs) that start as a GIF does
    thread_file(path, image(id="../../escaped/owned", data="GIF89a owned"))
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=path)
    await done(rt.send("and now?"))  # the autosave after each step
    assert rt.save_error is None
    assert not (tmp_path / "nest" / "escaped").exists()
    outside = [p for p in everything_under(tmp_path) if not p.startswith("nest/chats")]
    assert outside == ["nest"]
    part = rt.thread.messages[0].attachments[0]
    assert part.id != "../../escaped/owned" and part.id.startswith("att_")
    assert part.file == f"t.json.files/{part.id}.gif"  # kept, inside, typed by its bytes
    assert (chats / part.file).read_bytes() == b"GIF89a owned"
    assert "../../escaped/owned" in caplog.text and str(path) in caplog.text


async def test_an_attachment_id_made_in_memory_is_never_a_path(tmp_path: Path) -> None:
    def owned() -> AttachmentPart:
        return AttachmentPart(
            id="../../escaped/owned", name="a.png", kind="image", mime="image/png", data=PNG
        )

    path = tmp_path / "chats" / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=path)
    with pytest.raises(AttachmentError, match="is not a plain name"):
        rt.send("see", attachments=[owned()])
    assert rt.thread.messages == []

    given = gu.Thread(messages=[gu.Message(role="user", parts=[TextPart(text="x"), owned()])])
    other = tmp_path / "chats" / "u.json"
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=other, thread=given)
    await done(rt.send("and now?"))
    assert rt.save_error is not None and "../../escaped/owned" in rt.save_error
    assert "not saved" in rt.save_error
    assert everything_under(tmp_path) <= {"chats", "chats/.t.json.lock", "chats/.u.json.lock"}


# --- 15: links and special files where an image is read ---------------------------------


@needs_links
@pytest.mark.parametrize("where", ["the folder", "the file"])
async def test_a_link_to_a_private_key_is_never_read(tmp_path: Path, where: str) -> None:
    private = tmp_path / "home" / ".ssh"
    private.mkdir(parents=True)
    key = private / "att_0123456789abcdef.png"
    key.write_bytes(PNG + KEY)  # even bytes that pass as an image
    chats = tmp_path / "chats"
    chats.mkdir()
    if where == "the folder":
        (chats / "t.json.files").symlink_to(private, target_is_directory=True)
    else:
        (chats / "t.json.files").mkdir()
        (chats / "t.json.files" / key.name).symlink_to(key)
    path = chats / "t.json"
    thread_file(path, image(file=f"t.json.files/{key.name}"))

    loaded = load_thread(path)
    part = loaded.messages[0].attachments[0]
    assert part.data is None
    assert part.notice is not None and "symbolic link" in part.notice
    model = ScriptedModel(["ok"])
    rt = gu.Runtime(model=model, persist=path)
    await done(rt.send("and now?"))
    assert "OPENSSH" not in sent_text(model) and "image_url" not in sent_text(model)
    assert "symbolic link" in sent_text(model)  # the model is told why there is no image
    assert key.read_bytes() == PNG + KEY


LOAD_IN_A_CHILD = """
import resource, sys
limit = 1 << 31  # a regression reading /dev/zero fails with MemoryError, not the machine
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from ipygenui.persistence import ThreadFileError, load_thread
try:
    thread = load_thread(sys.argv[1])
except ThreadFileError as exc:
    print("refused:", exc)
else:
    part = thread.messages[0].attachments[0]
    print("loaded:", part.data is None, part.notice)
"""


def load_in_a_child(path: Path) -> str:
    """``load_thread(path)`` in a process that is killed if it does not return."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD_IN_A_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=60,  # generous: a hang fails here (TimeoutExpired), it never blocks the suite
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@needs_links
@pytest.mark.parametrize("special", ["a link to /dev/zero", "a FIFO"])
def test_a_special_file_in_the_folder_is_refused_without_waiting(
    tmp_path: Path, special: str
) -> None:
    folder = tmp_path / "t.json.files"
    folder.mkdir()
    name = "att_0123456789abcdef.png"
    if special == "a FIFO":
        os.mkfifo(folder / name)
        why = "not a regular file"
    else:
        (folder / name).symlink_to("/dev/zero")
        why = "symbolic link"
    thread_file(tmp_path / "t.json", image(file=f"t.json.files/{name}"))
    out = load_in_a_child(tmp_path / "t.json")
    assert out.startswith("loaded: True") and why in out


@needs_links
def test_a_thread_file_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "t.json")
    out = load_in_a_child(tmp_path / "t.json")
    assert out.startswith("refused:") and "not a regular file" in out and "t.json" in out


async def test_a_png_that_is_no_image_is_not_sent_as_one(tmp_path: Path) -> None:
    (tmp_path / "t.json.files").mkdir()
    (tmp_path / "t.json.files" / "att_0123456789abcdef.png").write_bytes(KEY)
    path = tmp_path / "t.json"
    thread_file(path, image(file="t.json.files/att_0123456789abcdef.png"))
    model = ScriptedModel(["ok"])
    rt = gu.Runtime(model=model, persist=path)
    part = rt.thread.messages[0].attachments[0]
    assert part.data is None and part.notice is not None and "not a PNG" in part.notice
    await done(rt.send("and now?"))
    assert "image_url" not in sent_text(model) and "OPENSSH" not in sent_text(model)


@needs_links
async def test_a_new_image_is_never_written_through_a_linked_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    chats = tmp_path / "chats"
    path = chats / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=path)
    (chats / "t.json.files").symlink_to(elsewhere, target_is_directory=True)
    await done(rt.send("see", attachments=[PNG]))
    assert list(elsewhere.iterdir()) == []
    assert rt.save_error is not None and "t.json.files" in rt.save_error
    assert "symbolic link" in rt.save_error
    assert rt.thread.messages[0].attachments[0].data == PNG  # kept in memory, nothing lost


def in_a_thread(work: Any, unblock: Any) -> Any:
    """``work()``'s result or exception; if it hangs, ``unblock()`` and fail."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)  # generous: only a hang reaches it
    if worker.is_alive():
        unblock()
        worker.join(30)
        pytest.fail("the attachment was read without returning")
    return box.get("error", box.get("value"))


def _open_writer(fifo: Path) -> None:
    """A blocked reader of ``fifo`` gets EOF."""
    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@needs_links
def test_a_fifo_given_by_path_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "notes.txt"
    os.mkfifo(fifo)
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    outcome = in_a_thread(lambda: rt.send("see", attachments=[fifo]), lambda: _open_writer(fifo))
    assert isinstance(outcome, AttachmentError), outcome
    assert "notes.txt" in str(outcome) and "not a regular file" in str(outcome)
    assert rt.thread.messages == []


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="Linux /proc")
def test_a_file_whose_size_says_zero_is_read_no_further_than_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ipygenui.data import attachments

    monkeypatch.setattr(attachments, "MAX_ATTACHED_FILE_BYTES", 64)
    link = tmp_path / "maps.txt"  # /proc/self/maps: a regular file of size 0, longer than 64
    link.symlink_to("/proc/self/maps")
    assert link.stat().st_size == 0
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    with pytest.raises(AttachmentError, match=r"maps\.txt.*larger than"):
        rt.send("see", attachments=[link])
    assert rt.thread.messages == []


# --- 16: a lock or thread file that is a link --------------------------------------------


def linked(kind: str, target: Path, link: Path) -> None:
    if kind == "symbolic link":
        link.symlink_to(target)
    else:
        os.link(target, link)


@needs_links
@pytest.mark.parametrize("kind", ["symbolic link", "hard link"])
@pytest.mark.parametrize("persist", ["a file", "a folder"])
def test_a_linked_lock_file_is_refused_and_its_target_untouched(
    tmp_path: Path, kind: str, persist: str, caplog: pytest.LogCaptureFixture
) -> None:
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.parent.mkdir()
    bashrc.write_bytes(BASHRC)
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "t.json").write_text(gu.Thread().model_dump_json())
    linked(kind, bashrc, chats / ".t.json.lock")
    if persist == "a file":
        with pytest.raises(ThreadFileError) as info:
            gu.Runtime(model=ScriptedModel(["ok"]), persist=chats / "t.json")
        assert str(chats / ".t.json.lock") in str(info.value)
    else:  # a folder skips that thread, naming the lock file, and opens the rest
        with caplog.at_level("WARNING", logger="ipygenui"):
            rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=f"{chats}{os.sep}")
        assert str(chats / ".t.json.lock") in caplog.text and "skipped" in caplog.text
        assert rt.thread.messages == []
    assert bashrc.read_bytes() == BASHRC


@needs_links
@pytest.mark.parametrize("kind", ["symbolic link", "hard link"])
async def test_a_lock_file_linked_while_the_chat_runs_stops_saves_not_the_run(
    tmp_path: Path, kind: str
) -> None:
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.parent.mkdir()
    bashrc.write_bytes(BASHRC)
    path = tmp_path / "chats" / "t.json"
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=path)
    lock = tmp_path / "chats" / ".t.json.lock"
    lock.unlink()
    linked(kind, bashrc, lock)
    message = await done(rt.send("hello"))
    assert message.status == Complete(reason="stop")
    assert rt.save_error is not None and str(lock) in rt.save_error
    assert bashrc.read_bytes() == BASHRC


@needs_links
async def test_a_thread_file_that_is_a_link_is_neither_read_nor_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    first = gu.Runtime(model=ScriptedModel(["a"]))
    await done(first.send("one"))
    first.save(elsewhere)
    original = elsewhere.read_bytes()
    link = tmp_path / "chats" / "t.json"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    for load in (
        lambda: gu.Runtime.load(link, model=ScriptedModel([])),
        lambda: gu.Runtime(model=ScriptedModel([]), persist=link),
    ):
        with pytest.raises(ThreadFileError, match="symbolic link") as info:
            load()
        assert str(link) in str(info.value)
    with caplog.at_level("WARNING", logger="ipygenui"):  # a folder skips it, naming it
        in_folder = gu.Runtime(model=ScriptedModel([]), persist=f"{link.parent}{os.sep}")
    assert in_folder.thread.messages == [] and f"{link}: skipped" in caplog.text
    assert "symbolic link" in caplog.text
    with pytest.raises(ThreadFileError, match="symbolic link"):
        first.save(link)
    assert link.is_symlink() and elsewhere.read_bytes() == original


# --- 17: two calls sharing one id in a thread file --------------------------------------


def deploy_tool(ran: list[str]) -> gu.Tool:
    @gu.tool(requires_approval=True)
    def deploy(env: str) -> str:
        """Deploy."""
        ran.append(env)
        return f"deployed {env}"

    return deploy


@pytest.mark.parametrize("how", ["Runtime.load", "persist="])
async def test_two_calls_sharing_an_id_in_a_file_are_each_decided(tmp_path: Path, how: str) -> None:
    path = tmp_path / "t.json"
    ran: list[str] = []
    calls = [call("deploy", {"env": "a"}, id="c1"), call("deploy", {"env": "b"}, id="c2")]
    first = gu.Runtime(model=ScriptedModel([calls]), tools=[deploy_tool(ran)])
    await done(first.send("ship both"))
    first.save(path)
    path.write_text(path.read_text().replace('"c2"', '"c1"'))  # both calls now say "c1"

    model = ScriptedModel(["Deployed both."])
    tools = [deploy_tool(ran)]
    if how == "Runtime.load":
        rt = gu.Runtime.load(path, model=model, tools=tools)
    else:
        rt = gu.Runtime(model=model, tools=tools, persist=path)
    message = rt.thread.messages[-1]
    assert message.status == RequiresAction()
    one, two = message.tool_calls
    assert one.tool_call_id == "c1" and two.tool_call_id != "c1"  # the first keeps its id
    assert rt.approve(one.tool_call_id) is None  # the other call still waits
    assert one.approval is not None and one.approval.status == "approved"
    assert two.approval is not None and two.approval.status == "pending"
    final = await done(rt.approve(two.tool_call_id))
    assert final.status == Complete(reason="stop")
    assert ran == ["a", "b"]
    assert tool_messages(model.requests[-1]) == {
        one.tool_call_id: "deployed a",
        two.tool_call_id: "deployed b",
    }
    assert_valid(model)
