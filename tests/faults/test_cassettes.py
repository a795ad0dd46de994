"""Faults tried with damaged and hostile cassettes (``gu.replay``'s files).

Tried here (every file in ``tmp_path``):
- a file that is no cassette (no header, an empty file, a JSON array, a thread
  file), a header of another format version, a symbolic link to a cassette, a
  FIFO, ``/dev/zero``, a URL for a path, a file over the size cap: each is a
  ``CassetteError`` naming the file (and line 1 for a header);
- damaged entries: not JSON, a line over the length cap, JSON nested 10,000
  deep, a request that is no object, deltas of wrong types (a string offset,
  a negative one, a text that is a number, a call index of -1 or 10**9, a
  finish reason nobody knows), an unknown delta kind: each skipped with a
  ``CassetteWarning`` naming the file and line while the good entries still
  replay, or a ``CassetteError`` naming them with ``strict=True``;
- a recorded offset of ten years: capped, and Stop ends the wait at once;
- a cassette whose recorded call is to a tool that needs approval, and one to
  a tool the chat does not have: the gated call waits for the user (nothing
  recorded approves it), the unknown one is answered with an error.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.errors import CassetteError, CassetteWarning
from ipygenui.messages import RequiresAction
from ipygenui.models.base import ModelRequest
from ipygenui.models.cassette import _format
from ipygenui.models.cassette._normalize import normalize
from ipygenui.testing import ScriptedModel

HEADER = {"cassette": "ipygenui", "version": 1, "model": "m", "recorded": "2026-01-02T03:04:05"}
USER = [{"role": "user", "content": "hi"}]


def entry(deltas: list[Any], messages: list[Any] | None = None) -> dict[str, Any]:
    request = {
        "messages": USER if messages is None else messages,
        "tools": [],
        "tool_choice": "auto",
        "max_tokens": None,
        "purpose": "reply",
    }
    return {"recorded": "x", "model": "m", "request": request, "deltas": deltas, "error": None}


GOOD = entry([[0, "text", {"text": "hello"}], [0.01, "finish", {"reason": "stop"}]])


def write(path: Path, *lines: Any) -> Path:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_files_that_are_no_cassette_are_refused_naming_them(tmp_path: Path) -> None:
    cases = {
        "plain.jsonl": "hello world",
        "array.jsonl": "[1, 2]",
        "thread.json": json.dumps({"version": 1, "messages": []}),
        "other.jsonl": json.dumps({**HEADER, "cassette": "vcr"}),
    }
    for name, first in cases.items():
        path = write(tmp_path / name, first, GOOD)
        with pytest.raises(CassetteError, match=rf"{name}:1: not an ipygenui cassette"):
            gu.replay(path)
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(CassetteError, match=r"empty\.jsonl: empty file"):
        gu.replay(tmp_path / "empty.jsonl")
    with pytest.raises(CassetteError, match="no cassette there"):
        gu.replay(tmp_path / "missing.jsonl")


def test_another_format_version_is_refused(tmp_path: Path) -> None:
    for version in (2, "1", None, 0):
        path = write(tmp_path / "v.jsonl", {**HEADER, "version": version}, GOOD)
        with pytest.raises(CassetteError, match=r"v\.jsonl:1: cassette format version"):
            gu.replay(path)
    path = write(tmp_path / "h.jsonl", {**HEADER, "model": 5}, GOOD)
    with pytest.raises(CassetteError, match="header's 'model' must be a string"):
        gu.replay(path)


def test_links_fifos_devices_urls_and_huge_files_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = write(tmp_path / "real.jsonl", HEADER, GOOD)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    with pytest.raises(CassetteError, match=r"link\.jsonl: a cassette must be a file, not a sym"):
        gu.replay(link)
    with pytest.raises(CassetteError, match="not a symbolic link"):
        gu.record(gu.DemoModel(), link)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(CassetteError, match="must be a regular file"):
        gu.replay(fifo)  # refused without opening it: no read blocks
    with pytest.raises(CassetteError, match="must be a regular file"):
        gu.replay("/dev/zero")
    with pytest.raises(CassetteError, match="a local file, not a URL"):
        gu.replay("https://example.com/lesson.jsonl")
    monkeypatch.setattr("ipygenui.models.cassette._read.MAX_FILE_BYTES", 100)
    with pytest.raises(CassetteError, match=r"real\.jsonl: \d+ bytes, above 100"):
        gu.replay(real)


BAD_DELTAS = {
    "a string offset": [["0", "text", {"text": "x"}]],
    "a negative offset": [[-1, "text", {"text": "x"}]],
    "a text that is a number": [[0, "text", {"text": 5}]],
    "a call index of -1": [[0, "tool_call", {"index": -1, "arguments": ""}]],
    "a call index of 10**9": [[0, "tool_call", {"index": 10**9, "arguments": ""}]],
    "a call name that is a list": [[0, "tool_call", {"index": 0, "name": [], "arguments": ""}]],
    "an unknown finish reason": [[0, "finish", {"reason": "exploded"}]],
    "an unknown kind": [[0, "shell", {"command": "rm -rf /"}]],
    "usage of a negative count": [[0, "usage", {"input_tokens": -3}]],
    "a delta that is no list": [{"text": "x"}],
    "provider data that is a string": [[0, "reasoning", {"text": "", "provider_data": "x"}]],
}


@pytest.mark.parametrize("fault", sorted(BAD_DELTAS))
def test_a_damaged_delta_skips_its_entry_naming_the_line(tmp_path: Path, fault: str) -> None:
    other = entry([[0, "text", {"text": "bye"}]], [{"role": "user", "content": "bye"}])
    path = write(tmp_path / "d.jsonl", HEADER, entry(BAD_DELTAS[fault]), other)
    with pytest.warns(CassetteWarning, match=r"d\.jsonl:2: damaged cassette entry skipped"):
        replay = gu.replay(path)
    assert [e.line for e in replay.cassette.entries] == [3]
    with pytest.raises(CassetteError, match=r"d\.jsonl:2: damaged cassette entry: delta 0"):
        gu.replay(path, strict=True)


DAMAGED_LINES = {
    "not JSON": "{not json",
    "deep": "[" * 10_000 + "]" * 10_000,
    "a request that is a string": json.dumps({**GOOD, "request": "hi"}),
    "deltas that are an object": json.dumps({**GOOD, "deltas": {}}),
    "an error that is a number": json.dumps({**GOOD, "error": 3}),
    "a list for an entry": "[]",
}


def request_of(prompt: str, tools: list[Any]) -> dict[str, Any]:
    """The request a runtime sends for ``prompt``, as a cassette keeps it."""
    seen = ScriptedModel(["x"])
    gu.Runtime(model=seen, tools=tools, suggestions=False).run_sync(prompt)
    return normalize(seen.requests[0])


@pytest.mark.parametrize("fault", sorted(DAMAGED_LINES))
def test_a_damaged_line_is_skipped_and_the_rest_replays(tmp_path: Path, fault: str) -> None:
    good = {**GOOD, "request": request_of("hi", [])}
    path = write(tmp_path / "l.jsonl", HEADER, DAMAGED_LINES[fault], good)
    with pytest.warns(CassetteWarning, match=r"l\.jsonl:2: damaged"):
        replay = gu.replay(path, pace="instant")
    message = gu.Runtime(model=replay, suggestions=False).run_sync("hi")
    assert message.text == "hello"


def test_a_line_over_the_cap_is_skipped_without_reading_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ipygenui.models.cassette._read.MAX_LINE_BYTES", 1_000)
    huge = json.dumps(entry([[0, "text", {"text": "x" * 50_000}]]))
    path = write(tmp_path / "big.jsonl", HEADER, huge, GOOD)
    with pytest.warns(CassetteWarning, match=r"big\.jsonl:2: .*longer than 1,000 bytes"):
        replay = gu.replay(path)
    assert [e.line for e in replay.cassette.entries] == [3]  # the next line is read as a line


async def test_an_offset_of_ten_years_is_capped_and_stop_ends_the_wait(tmp_path: Path) -> None:
    ten_years = 10 * 365 * 86_400
    path = write(
        tmp_path / "slow.jsonl",
        HEADER,
        entry([[0, "text", {"text": "a"}], [ten_years, "text", {"text": "b"}]]),
    )
    replay = gu.replay(path)
    assert replay.cassette.entries[0].deltas[1][0] == _format.MAX_OFFSET
    request = ModelRequest(messages=USER)
    got: list[Any] = []

    async def read() -> None:
        async for batch in replay.stream_batches(request):
            got.append(batch)

    task = asyncio.create_task(read())
    await asyncio.sleep(0.05)
    request.cancel.set()
    await asyncio.wait_for(task, 2)  # not ten years, nor the cap
    assert len(got) == 1


def test_nothing_recorded_approves_a_gated_call_or_reaches_a_missing_tool(tmp_path: Path) -> None:
    ran: list[str] = []

    @gu.tool(requires_approval=True)
    def delete_files(pattern: str) -> str:
        """Delete files."""
        ran.append(pattern)
        return "deleted"

    args = json.dumps({"pattern": "*"})
    call = [0, "tool_call", {"index": 0, "id": "c1", "name": "delete_files", "arguments": args}]
    ghost = [0, "tool_call", {"index": 1, "id": "c2", "name": "format_disk", "arguments": "{}"}]
    finish = [0, "finish", {"reason": "tool_calls"}]
    line = {**entry([call, ghost, finish]), "request": request_of("clean up", [delete_files])}
    path = write(tmp_path / "gated.jsonl", HEADER, line)
    rt = gu.Runtime(model=gu.replay(path, pace="instant"), tools=[delete_files], suggestions=False)
    message = rt.run_sync("clean up")
    assert isinstance(message.status, RequiresAction)
    assert ran == []  # waits for the user: nothing in the file approves it
    ghost_part = next(p for p in message.tool_calls if p.tool_name == "format_disk")
    assert ghost_part.is_error
