"""What the user reads when something is off, and the chat's height option.

Faults tried:
- the model server is unreachable: the error read "Connection error.: All
  connection attempts failed" (doubled punctuation) and gave no hint; it must
  name the URL once, read cleanly, and point at ``base_url`` / the server;
- ``Chat(height=...)`` with a value that is not a CSS length: refused with a
  message that says what to give, instead of a thread that silently ignores it;
- no ``height=`` at all: the chat was unbounded (3,000 px after a few
  replies); it is bounded, and ``"auto"``/``None`` still let it grow.
"""

from __future__ import annotations

import re

import pytest
from traitlets import TraitError

import ipygenui as gu
from ipygenui.models.openai import OpenAIModel
from ipygenui.testing import ScriptedModel
from openai_helpers import collect_until_error


async def test_an_unreachable_server_reads_cleanly_and_says_what_to_check() -> None:
    model = OpenAIModel("test-model", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    try:
        _, error = await collect_until_error(model)
    finally:
        await model.client.close()
    text = str(error)
    assert not re.search(r"[.!?][.:;,]", text), text  # no "error.: All ..."
    assert text.count("http://127.0.0.1:9/v1") == 1, text
    assert "base_url" in text and "server" in text, text


def test_chat_height_takes_a_css_length_and_is_bounded_by_default() -> None:
    model = ScriptedModel(lambda request: "hi")
    # a chat that grew without limit was 3,000 px tall after a few replies
    assert gu.Chat(model=model).height == "min(640px, 80vh)"
    chat = gu.Chat(model=model, height="30rem")
    assert chat.height == "30rem"
    chat.height = "max(20rem, 50vh)"
    assert chat.height == "max(20rem, 50vh)"
    chat.height = None  # grows with its thread, as "auto" and "" (older notebooks) do
    assert chat.height == "auto"
    assert gu.Chat(model=model, height="auto").height == "auto"
    chat.height = ""
    assert chat.height == ""
    for bad in ("min(640px; color: red)", "min(640px)", "calc(1px + 2px)"):
        with pytest.raises(TraitError, match="CSS length"):
            chat.height = bad
    with pytest.raises(TraitError, match="CSS length"):
        gu.Chat(model=model, height="30 rems; color: red")
