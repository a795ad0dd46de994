"""A recording comm that stands in for the browser in widget tests.

``wire`` (a fixture) keeps every message the kernel sends; ``click`` delivers
a payload as the browser would; ``customs`` reads custom messages back.
``tests/conftest.py`` registers the fixture: a test asks for ``wire`` by name.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any, ClassVar

import comm
import pytest
from comm.base_comm import BaseComm
from ipywidgets import Widget

from ipygenui.widget.chat import Chat

Wire = list[tuple[str, str | None, dict[str, Any]]]


class RecordingComm(BaseComm):
    """Keeps every message the kernel would send to the browser."""

    log: ClassVar[Wire] = []

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        self.log.append((msg_type, self.comm_id, data or {}))


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[Wire]:
    log: Wire = []
    monkeypatch.setattr(RecordingComm, "log", log)
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: RecordingComm(*a, **k))
    yield log


def customs(log: Wire, kind: str, comm_id: str | None = None) -> list[dict[str, Any]]:
    return [
        d["content"]
        for t, cid, d in log
        if t == "comm_msg"
        and d.get("method") == "custom"
        and d["content"].get("type") == kind
        and (comm_id is None or cid == comm_id)
    ]


def nbytes(obj: Any) -> int:
    return len(json.dumps(obj, separators=(",", ":")))


def browser_update(widget: Widget, state: dict[str, Any]) -> None:
    """An ``update`` from the browser, as the comm hands it to ipywidgets."""
    assert widget.comm is not None
    msg = {"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}}
    widget.comm.handle_msg({**msg, "buffers": []})


def click(chat: Chat, content: Any) -> None:
    """What the comm does with a message from the browser."""
    chat._handlers.on_comm_msg(chat, content, [])


async def settle(chat: Chat) -> None:
    for _ in range(5):
        await asyncio.sleep(0)
    while chat.runtime.running:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # let the last frame timer fire
