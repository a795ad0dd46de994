"""Files and data names attached in the browser reach the runtime.

Faults tried:
- a file's bytes dropped on the way (the comm's binary buffers not read, or
  read from the wrong index);
- a buffer whose length is not the size announced (truncated upload) taken
  as the file;
- an unsupported file, or an ``@`` pick of a name the chat's data lacks,
  losing the user's text (the kernel answers ``error`` with the send's ref;
  nothing is added to the thread);
- the ``@`` menu offering stale names (``data_names`` follows ``runtime.data``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pandas as pd

from comm_helpers import customs, settle
from ipygenui.testing import ScriptedModel
from ipygenui.widget.chat import Chat

CSV = b"region,units\nnorth,3\nsouth,5\n"


def from_browser(chat: Chat, content: dict[str, Any], buffers: list[bytes]) -> None:
    """A custom message with binary buffers, through ipywidgets' own handler."""
    chat._handle_msg(
        {
            "content": {"data": {"method": "custom", "content": content}},
            "buffers": [memoryview(b) for b in buffers],
        }
    )


def send_msg(text: str, ref: str, attachments: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "send", "text": text, "ref": ref, "attachments": attachments}


async def test_dropped_csv_arrives_as_a_dataframe_reference(wire: list[Any]) -> None:
    model = ScriptedModel(["Read it."])
    chat = Chat(model=model)
    upload = {
        "kind": "file",
        "name": "sales.csv",
        "mime": "text/csv",
        "size": len(CSV),
        "buffer": 0,
    }
    from_browser(chat, send_msg("what is in it?", "v-1", [upload]), [CSV])
    await settle(chat)
    assert customs(wire, "error") == []
    assert customs(wire, "accepted") == [{"type": "accepted", "request": "send", "ref": "v-1"}]
    part = chat.thread.messages[0].attachments[0]
    assert part.kind == "data" and part.ref == "sales"
    frame = chat.runtime.data["sales"]
    assert isinstance(frame, pd.DataFrame) and list(frame["units"]) == [3, 5]
    assert "sales" in chat.data_names  # the @ menu offers it from now on
    chat.close()


async def test_a_truncated_or_missing_buffer_is_refused_and_the_text_kept(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["never"]))
    upload = {"kind": "file", "name": "sales.csv", "mime": "text/csv", "size": 999, "buffer": 0}
    from_browser(chat, send_msg("hi", "v-1", [upload]), [CSV])
    from_browser(chat, send_msg("hi", "v-2", [{**upload, "size": len(CSV), "buffer": 1}]), [CSV])
    await asyncio.sleep(0.01)
    errors = customs(wire, "error")
    assert [e["ref"] for e in errors] == ["v-1", "v-2"]
    assert "not the 999 announced" in errors[0]["message"]
    assert "did not arrive" in errors[1]["message"]
    assert chat.thread.messages == []
    chat.close()


async def test_unsupported_file_and_unknown_pick_say_why(wire: list[Any]) -> None:
    chat = Chat(model=ScriptedModel(["never"]))
    chat.runtime.data["sales"] = pd.DataFrame({"x": [1]})
    zip_upload = {
        "kind": "file",
        "name": "a.zip",
        "mime": "application/zip",
        "size": 4,
        "buffer": 0,
    }
    from_browser(chat, send_msg("hi", "v-1", [zip_upload]), [b"PK\x03\x04"])
    from_browser(chat, send_msg("hi", "v-2", [{"kind": "data", "name": "costs"}]), [])
    await asyncio.sleep(0.01)
    errors = customs(wire, "error")
    assert "'a.zip'" in errors[0]["message"] and ".zip" in errors[0]["message"]
    # the error lists the names there are
    assert "costs" in errors[1]["message"] and "sales" in errors[1]["message"]
    assert chat.thread.messages == []
    chat.close()


async def test_a_data_pick_attaches_its_summary(wire: list[Any]) -> None:
    model = ScriptedModel(["ok"])
    chat = Chat(model=model)
    chat.runtime.data["sales"] = pd.DataFrame({"units": range(100)})
    from_browser(chat, send_msg("", "v-1", [{"kind": "data", "name": "sales"}]), [])
    await settle(chat)
    part = chat.thread.messages[0].attachments[0]
    assert part.ref == "sales" and part.kind == "data"
    sent = model.requests[0].messages[-1]["content"]
    assert 'ref="sales"' in sent and '"shape": [100, 1]' in sent
    chat.close()
