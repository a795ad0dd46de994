"""The offline demo model's answers, read as a new user reads them.

Faults tried: the snippet for registering a weather tool does not run as copied
(doubled braces); a suggestion chip leads to an answer that cannot work in this
chat; a lowercase city is not recognised and another city is looked up; a long
message is echoed cut mid-word with no ellipsis and markdown that no longer closes.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import mistune
import pytest

import ipygenui as gu
from ipygenui.events import SuggestionsChanged


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.DOTALL)


async def test_the_weather_tool_snippet_runs_as_copied() -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0))
    reply = await rt.send("What's the weather in Paris?")
    [snippet] = _python_blocks(reply.text)
    namespace: dict[str, Any] = {"gu": gu}
    exec(snippet, namespace)  # what a user gets by copying the block into a cell
    assert namespace["get_weather"]("Oslo")["city"] == "Oslo"
    chat = namespace["chat"]
    try:
        assert "get_weather" in chat.runtime.tools
    finally:
        chat.close()


async def _chips(rt: gu.Runtime) -> list[str]:
    """The suggestion chips after a first message, asked for as the chat asks."""
    got = asyncio.Event()
    rt.subscribe(lambda event: got.set() if isinstance(event, SuggestionsChanged) else None)
    await rt.send("hello")
    await asyncio.wait_for(got.wait(), 5)
    return rt.current_suggestions


async def test_suggestions_only_lead_where_this_chat_can_go() -> None:
    chips = await _chips(gu.Runtime(model=gu.DemoModel(delay=0), suggestions=True))
    assert chips and not any("weather" in chip.lower() for chip in chips)

    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city}

    with_tool = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather], suggestions=True)
    weather = [chip for chip in await _chips(with_tool) if "weather" in chip.lower()]
    assert weather
    followed = await with_tool.send(weather[0])  # the chip does what it says
    assert followed.tool_calls and followed.tool_calls[0].tool_name == "get_weather"

    with_chart = gu.Runtime(model=gu.DemoModel(delay=0), components=[gu.Chart], suggestions=True)
    chart = [chip for chip in await _chips(with_chart) if "chart" in chip.lower()]
    assert chart
    shown = await with_chart.send(chart[0])
    assert shown.tool_calls and shown.tool_calls[0].tool_name == "show_component_Chart"


@pytest.mark.parametrize(
    ("question", "city"),
    [
        ("what is the weather in tokyo?", "Tokyo"),
        ("What's the weather in Paris?", "Paris"),
        ("weather for new york today please", "New York"),
        ("Weather in São Paulo tomorrow?", "São Paulo"),
        ("weather for tomorrow in berlin", "Berlin"),
        ("How's the weather at the moment?", "Paris"),  # no city named: the default
    ],
)
async def test_weather_looks_up_the_city_asked_for(question: str, city: str) -> None:
    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    message = await rt.send(question)
    assert message.tool_calls[0].args == {"city": city}


async def _rendered_echo(text: str) -> str:
    rt = gu.Runtime(model=gu.DemoModel(delay=0))
    reply = await rt.send(text)
    html = str(mistune.html(reply.text))
    line = next(part for part in html.split("\n") if part.startswith("<p>You said:"))
    match = re.fullmatch(r"<p>You said: <em>(.*)</em></p>", line)
    assert match, f"the echo is not one emphasised run: {line!r}"
    return match.group(1)


async def test_a_long_message_is_echoed_cut_at_a_word_with_an_ellipsis() -> None:
    words = " ".join(f"word{i}" for i in range(80))  # ~550 characters
    echo = await _rendered_echo(words)
    assert echo.endswith("…") and "*" not in echo
    kept = echo.removesuffix("…")
    assert words.startswith(kept) and words[len(kept)] == " "  # cut between words
    assert len(kept) <= 200


async def test_markdown_in_the_echo_stays_literal() -> None:
    text = "make *this* bold_ish [a](b) `x` " + "y " * 120
    echo = await _rendered_echo(text)
    assert echo.startswith("make *this* bold_ish [a](b) `x` y")
    short = await _rendered_echo("2 * 3 = 6")
    assert short == "2 * 3 = 6"


async def test_a_note_is_saved_with_the_chats_save_note_tool_only() -> None:
    saved: list[str] = []

    @gu.tool(requires_approval=True)
    def save_note(text: str) -> str:
        """Save a note."""
        saved.append(text)
        return "saved"

    without = gu.Runtime(model=gu.DemoModel(delay=0))
    reply = await without.send("Save a note: buy milk")
    assert reply.tool_calls == []
    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[save_note])
    reply = await rt.send("Save a note: buy milk")
    [part] = reply.tool_calls
    assert part.tool_name == "save_note"
    assert part.args == {"text": "buy milk"}
    assert saved == []  # it waits for the user's approval
    run = rt.approve(part.tool_call_id)
    assert run is not None
    await run
    assert saved == ["buy milk"]
