"""``send(text, attachments=[...])``: images, data and files into the conversation.

Faults tried:
- an image attachment reaching the model as text, as a path, or not at all
  (it must be an image content part with a base64 data URL, through a real
  OpenAI client and HTTP server);
- a text-only message sent as a list of parts (servers without vision refuse it);
- an unsupported attachment (a set, a .zip file, bytes that are no image)
  half-sent: the error names the type and the thread is unchanged;
- a CSV attached as text (it must be a DataFrame kept in ``runtime.data``
  under a reference, the model reading its summary, not its rows);
- a DataFrame attachment sending its rows to the model;
- a long text file sent whole (it is cut to the budget with a notice);
- a model that refuses images: its error must reach the message readably;
- a persisted thread holding the image bytes inline (they go in a file
  beside it) or losing them on load; a recorded path escaping the folder.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import ipygenui as gu
from ipygenui.data.attachments import FileAttachment
from ipygenui.persistence import load_thread
from ipygenui.testing import ScriptedModel
from openai_helpers import ModelFactory
from openai_server import OpenAIServer, Reply

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _user_entry(request: dict[str, Any]) -> dict[str, Any]:
    return [m for m in request["messages"] if m["role"] == "user"][-1]


async def test_image_reaches_the_server_as_an_image_content_part(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(Reply.text_reply("A single pixel."))
    rt = gu.Runtime(model=make_model())
    message = await rt.send("What is this?", attachments=[PNG])
    assert message.text == "A single pixel."
    content = _user_entry(openai_server.requests[0])["content"]
    assert isinstance(content, list)
    assert content[0]["type"] == "text" and content[0]["text"].startswith("What is this?")
    images = [p for p in content if p["type"] == "image_url"]
    assert images == [
        {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()},
        }
    ]


async def test_text_only_messages_stay_plain_strings(
    make_model: ModelFactory, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Plan\nship it")
    openai_server.script(Reply.text_reply("ok"))
    rt = gu.Runtime(model=make_model())
    await rt.send("read this", attachments=[notes])
    content = _user_entry(openai_server.requests[0])["content"]
    assert isinstance(content, str)
    assert '<attachment name="notes.md" kind="text">' in content
    assert "ship it" in content


async def test_a_model_refusing_images_says_so_readably(
    make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    openai_server.script(
        Reply(
            status=400,
            error_message="Invalid content type. image_url is only supported by certain models.",
        )
    )
    rt = gu.Runtime(model=make_model(max_retries=0))
    message = await rt.send("look", attachments=[PNG])
    assert message.status.type == "incomplete"
    error = message.status.error or ""
    assert "image_url is only supported by certain models" in error
    assert "may not accept images" in error


@pytest.mark.parametrize(
    ("item", "named"),
    [
        ({1, 2}, "builtins.set"),
        (b"PK\x03\x04zip", "bytes that are not a PNG"),
        (FileAttachment("archive.zip", b"PK\x03\x04"), ".zip"),
    ],
)
async def test_unsupported_attachment_is_refused_before_anything_is_sent(
    item: Any, named: str
) -> None:
    model = ScriptedModel(["never"])
    rt = gu.Runtime(model=model)
    with pytest.raises(TypeError, match=named.replace(".", r"\.")):
        rt.send("hi", attachments=[PNG, item])
    assert rt.thread.messages == []
    assert not model.requests


async def test_csv_becomes_a_dataframe_reference(tmp_path: Path) -> None:
    path = tmp_path / "sales 2024.csv"
    pd.DataFrame({"region": ["n", "s"] * 100, "units": range(200)}).to_csv(path, index=False)
    model = ScriptedModel(["Got it."])
    rt = gu.Runtime(model=model)
    message = await rt.send("summarize", attachments=[path])
    assert message.text == "Got it."
    part = rt.thread.messages[0].attachments[0]
    assert part.kind == "data" and part.ref == "sales_2024"
    frame = rt.data[part.ref]
    assert isinstance(frame, pd.DataFrame) and frame.shape == (200, 2)
    sent = model.requests[0].messages[-1]["content"]
    summary = json.loads(sent.split('ref="sales_2024">', 1)[1].split("</attachment>")[0])
    assert summary["ref"] == "sales_2024" and summary["shape"] == [200, 2]
    assert len(summary["sample"]) <= 5  # rows never pass through the model


async def test_dataframe_attachment_keeps_its_name_and_a_free_one() -> None:
    rt = gu.Runtime(model=ScriptedModel(["a", "b"]))
    rt.data["sales"] = pd.DataFrame({"x": [1]})
    frame = pd.DataFrame({"y": range(1000)})
    await rt.send("one", attachments=[frame])
    ref = rt.thread.messages[0].attachments[0].ref
    assert ref is not None and rt.data[ref] is frame
    await rt.send("again", attachments=[frame])
    assert rt.thread.messages[2].attachments[0].ref == ref  # the same object, the same name
    assert list(rt.data["sales"].columns) == ["x"]  # nothing replaced


async def test_long_text_is_cut_with_a_notice() -> None:
    model = ScriptedModel(["ok"])
    rt = gu.Runtime(model=model)
    await rt.send("read", attachments=[FileAttachment("log.txt", b"x" * 50_000)])
    part = rt.thread.messages[0].attachments[0]
    assert part.notice is not None and "40,000 of 50,000" in part.notice
    sent = model.requests[0].messages[-1]["content"]
    assert part.notice in sent and "x" * 40_001 not in sent


async def test_pil_image_and_figure_are_sent_as_png() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    figure, axes = plt.subplots()
    axes.plot([1, 2])
    model = ScriptedModel(["ok"])
    rt = gu.Runtime(model=model)
    await rt.send("see", attachments=[Image.new("RGB", (4, 4), "red"), figure])
    plt.close(figure)
    content = model.requests[0].messages[-1]["content"]
    urls = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,iVBOR") for u in urls)


async def test_persisted_images_live_beside_the_thread_file(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    rt = gu.Runtime(model=ScriptedModel(["ok"]), persist=path)
    await rt.send("see", attachments=[PNG])
    raw = path.read_text()
    assert base64.b64encode(PNG).decode() not in raw  # not inline
    part = rt.thread.messages[0].attachments[0]
    assert part.file is not None and (tmp_path / part.file).read_bytes() == PNG

    loaded = load_thread(path)
    assert loaded.messages[0].attachments[0].data == PNG
    model = ScriptedModel(["again"])
    again = gu.Runtime(model=model, persist=path)
    await again.send("and now?")
    first_user = model.requests[0].messages[1]["content"]
    assert any(p.get("type") == "image_url" for p in first_user)


def test_a_recorded_path_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(PNG)
    thread = gu.Thread(
        messages=[
            gu.Message(
                role="user",
                parts=[
                    gu.messages.TextPart(text="x"),
                    gu.messages.AttachmentPart(
                        name="a", kind="image", mime="image/png", file="../secret.png"
                    ),
                    gu.messages.AttachmentPart(
                        name="b", kind="image", mime="image/png", file=str(secret)
                    ),
                ],
            )
        ]
    )
    sub = tmp_path / "sub"
    sub.mkdir()
    path = sub / "t.json"
    path.write_text(thread.model_dump_json())
    loaded = load_thread(path)
    assert [p.data for p in loaded.messages[0].attachments] == [None, None]


def test_chips_data_is_in_the_wire_form_without_bytes() -> None:
    from ipygenui.widget._protocol import message_for_browser

    message = gu.Message(
        role="user",
        parts=[
            gu.messages.AttachmentPart(
                name="p.png", kind="image", mime="image/png", size=3, data=b"abc"
            )
        ],
    )
    wire = message_for_browser(message)
    assert wire["parts"][0]["name"] == "p.png"
    assert "data" not in wire["parts"][0]


async def test_a_csv_chip_names_the_file_and_its_reference(tmp_path: Path) -> None:
    path = tmp_path / "q3.csv"
    path.write_text("a\n1\n")
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    await rt.send("x", attachments=[path])
    part = rt.thread.messages[0].attachments[0]
    assert (part.name, part.ref) == ("q3.csv", "q3")
