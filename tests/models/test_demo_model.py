"""The offline demo model's answers, read as a new user reads them.

Faults tried: the snippet for registering a weather tool does not run as copied
(doubled braces); a suggestion chip leads to an answer that cannot work in this
chat; a lowercase city is not recognised and another city is looked up; a tool's
result, an error or a rejection shown as raw JSON instead of a sentence; a long
result quoted cut mid-word, or its markdown restyling the reply; every free
question answered with the same long template.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import mistune
import pandas as pd
import pytest

import ipygenui as gu
from ipygenui.events import SuggestionsChanged
from ipygenui.models._demo_asking import SAMPLING_OFFLINE
from ipygenui.models.base import ModelRequest, TextDelta
from ipygenui.models.demo import OFFLINE
from ipygenui.testing import ScriptedModel


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


async def _chips(rt: gu.Runtime, message: str = "hello") -> list[str]:
    """The suggestion chips after ``message``, asked for as the chat asks."""
    got = asyncio.Event()
    rt.subscribe(
        lambda e: got.set() if isinstance(e, SuggestionsChanged) and e.suggestions else None
    )
    await rt.send(message)
    await asyncio.wait_for(got.wait(), 5)
    return rt.current_suggestions


async def test_a_demo_chat_offers_the_questions_its_reply_names_as_chips_by_default() -> None:
    """Its answers list example questions in italics: each is a chip to click,
    after every reply, with no ``suggestions=True``."""

    @gu.tool
    def get_weather(city: str) -> dict:
        """Current weather for a city."""
        return {"city": city, "temperature_c": 21, "sky": "clear"}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather], components=[gu.Chart])
    chips = await _chips(rt, "What can you do?")
    reply = rt.thread.messages[-1].text
    assert chips == [
        "What's the weather in Paris?",
        "Show me a chart",
        "How do I use a real model?",
    ]
    assert all(f"*{chip}*" in reply for chip in chips)
    after = await _chips(rt, chips[0])  # the second turn has chips too
    assert after == ["Show me a chart", "What can you do?"]  # not the question just asked


async def test_a_demo_chat_told_no_suggestions_asks_for_none() -> None:
    model = gu.DemoModel(delay=0, record=True)
    rt = gu.Runtime(model=model, suggestions=False)
    await rt.send("What can you do?")
    await asyncio.sleep(0.05)
    assert rt.current_suggestions == []
    assert [r.purpose for r in model.requests] == ["reply"]
    scripted = gu.Runtime(model=ScriptedModel(["hi"]))  # None: only a model that suggests
    await scripted.send("hello")
    assert scripted._suggesting.task is None


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


# --- tool results read as answers ---------------------------------------------------


def _one_line_no_json(text: str) -> None:
    assert "\n" not in text.strip(), text
    assert not re.search(r'[{}"]|```', text), f"JSON shown to the user: {text!r}"


async def test_a_weather_result_reads_as_a_sentence() -> None:
    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city, "temperature_c": 21, "sky": "clear"}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    reply = await rt.send("What's the weather in Paris?")
    assert reply.text == "It's 21 °C and clear in Paris."


async def test_a_generic_result_is_one_line_of_its_main_fields() -> None:
    @gu.tool
    def query_books(author: str = "Ada") -> dict:
        """Books by an author."""
        return {
            "author": "Ada Lovelace",
            "count": 3,
            "titles": ["Notes", "Letters", "Sketches"],
            "source": {"name": "library", "year": 1843},
            "missing": None,
        }

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[query_books])
    reply = await rt.send("Query the books")
    assert reply.tool_calls[0].tool_name == "query_books"
    _one_line_no_json(reply.text)
    assert "author: Ada Lovelace" in reply.text and "count: 3" in reply.text
    assert "titles: 3 items" in reply.text and "null" not in reply.text


async def test_an_error_result_says_what_went_wrong_in_a_sentence() -> None:
    @gu.tool
    def get_weather(city: str) -> dict:
        raise LookupError(f"no station near {city}")

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    reply = await rt.send("Weather in Oslo?")
    assert reply.tool_calls[0].is_error
    _one_line_no_json(reply.text)
    assert reply.text.startswith("That didn't work: ")
    assert "no station near Oslo" in reply.text and "Traceback" not in reply.text


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("not today", "OK, I won't run that. You said: *not today*"),
        (None, "OK, I won't run that."),
    ],
)
async def test_a_rejection_is_acknowledged_with_the_users_reason(
    reason: str | None, expected: str
) -> None:
    @gu.tool(requires_approval=True)
    def save_note(text: str) -> str:
        """Save a note."""
        return "saved"

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[save_note])
    waiting = await rt.send("Save a note: buy milk")
    run = rt.reject(waiting.tool_calls[0].tool_call_id, reason)
    assert run is not None
    reply = await run
    assert reply.text.endswith(expected), reply.text
    assert "error" not in reply.text


async def test_a_text_result_is_quoted_on_one_line_cut_at_a_word_with_markdown_literal() -> None:
    long = "make *this* bold_ish [a](b) `x` <b>hi</b> " + " ".join(f"w{i}" for i in range(200))

    @gu.tool
    def query_text() -> str:
        """Some text."""
        return "# Title\n\n" + long

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[query_text])
    reply = await rt.send("Query the text")
    html = str(mistune.html(reply.text)).strip()
    match = re.fullmatch(r"<p>(.*)</p>", html, flags=re.DOTALL)
    assert match, f"not one plain paragraph: {html!r}"
    shown = match.group(1)
    assert "<b>" not in shown and "<em>" not in shown and "<a " not in shown and "<h1>" not in shown
    assert shown.endswith("…") and len(reply.text) < 400
    kept = re.sub(r"^<code>query_text</code> returned: ", "", shown).rstrip(".").removesuffix("…")
    words = " ".join(("# Title " + long).split())
    plain_kept = kept.replace("&lt;", "<").replace("&gt;", ">")
    assert words.startswith(plain_kept) and words[len(plain_kept)] == " "  # cut between words


# --- free questions -------------------------------------------------------------------

_QUESTIONS = [
    *gu.DemoModel.starters,
    "What can you do?",  # the demo's own suggestion chip
    "Hello! What can you do?",  # notebooks/01_quickstart.ipynb
    "hi",
    "What is ipygenui?",
    "How do I use a real model?",
    "thanks",
    "Tell me a joke about pandas",
]


@pytest.mark.parametrize("question", _QUESTIONS)
async def test_every_suggested_question_gets_a_short_answer_not_a_template(question: str) -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0))
    reply = await rt.send(question)
    assert reply.text.strip() and "You said" not in reply.text
    prose = re.sub(r"```.*?```", "", reply.text, flags=re.DOTALL)
    assert len([line for line in prose.splitlines() if line.strip()]) <= 6, reply.text


@pytest.mark.parametrize(
    "question",
    [
        "What can you do?",
        "Tell me what you can do, please.",
        "hello!",
        "Can you help me?",
        "What are your capabilities?",
        "Who are you?",
    ],
)
async def test_asking_what_it_does_lists_what_works_in_this_chat(question: str) -> None:
    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    reply = await rt.send(question)
    assert reply.text.startswith("Hi! I'm the offline demo model"), reply.text
    assert "*What's the weather in Paris?*" in reply.text


async def test_an_unknown_question_says_it_is_offline_and_offers_what_works_here() -> None:
    @gu.tool
    def get_weather(city: str) -> dict:
        return {"city": city, "temperature_c": 18, "sky": "rain"}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather], components=[gu.Chart])
    reply = await rt.send("Write me a poem about autumn")
    assert not reply.tool_calls
    for needed in ("offline", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        assert needed in reply.text
    assert "model='provider:model'" in reply.text
    tries = re.findall(r"\*([^*]+)\*", reply.text.split("Try", 1)[1])
    assert 2 <= len(tries) <= 3
    followed = await rt.send(tries[0])  # the first thing to try works in this chat
    assert followed.tool_calls and followed.tool_calls[0].tool_name == "get_weather"
    assert "I'm offline, so" not in (await rt.send(tries[-1])).text  # answered, not the fallback


async def test_a_question_about_a_notebook_is_not_taken_for_a_note() -> None:
    @gu.tool(requires_approval=True)
    def save_note(text: str) -> str:
        """Save a note."""
        return "saved"

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[save_note])
    reply = await rt.send("Does this work in any notebook?")
    assert reply.tool_calls == []


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


# --- a tool server's requests (notebooks/04_agents.ipynb) ----------------------------

_ARTICLE = (
    "MCP lets a tool server ask its client for help in the middle of a call. "
    "With elicitation it asks the user to fill in a form. Nothing goes back unseen."
)


async def _sampled(prompt: str, system: str | None = None, max_tokens: int = 60) -> str:
    """What the demo answers a tool server's sampling prompt, as the chat asks it."""
    messages = [{"role": "system", "content": system}] if system else []
    request = ModelRequest(
        messages=[*messages, {"role": "user", "content": prompt}],
        tools=[],
        tool_choice="none",
        max_tokens=max_tokens,
        purpose="sampling",
    )
    model = gu.DemoModel(delay=0)
    return "".join([d.text async for d in model.stream(request) if isinstance(d, TextDelta)])


async def test_a_sampling_prompt_to_summarise_gets_the_texts_first_sentence() -> None:
    first = "MCP lets a tool server ask its client for help in the middle of a call."
    assert await _sampled(_ARTICLE, system="Summarise the user's text in one sentence.") == first
    assert await _sampled(f"Please summarize this: {_ARTICLE}") == first
    assert await _sampled("Summarise: ") == "There is no text to summarise."
    # held to the server's token limit (four characters a token), cut between words
    cut = await _sampled(_ARTICLE, system="Summarise it.", max_tokens=5)
    assert cut == "MCP lets a tool…"


async def test_any_other_sampling_prompt_gets_an_honest_short_answer() -> None:
    said = await _sampled("What is the capital of France?", system="Answer briefly.")
    assert said == SAMPLING_OFFLINE and len(said) <= 60 * 4
    assert "Paris" not in said and OFFLINE not in said  # no made-up answer, no long template
    assert (await _sampled("What is the capital of France?", max_tokens=8)).endswith("…")


async def test_a_booking_and_a_summary_are_asked_of_the_chats_tools_that_ask() -> None:
    @gu.tool
    def book_table() -> str:
        """Book a table (a server would ask for the details)."""
        return "Booked a table for 2 people on Friday 4 December 2026."

    @gu.tool
    def summarize(text: str) -> str:
        """Summarise a text."""
        return f"Summary: {text[:20]}"

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[book_table, summarize])
    reply = await rt.send("Book a table for dinner")  # "table" asks for no Table here
    assert [p.tool_name for p in reply.tool_calls] == ["book_table"]
    assert reply.text.endswith("Booked a table for 2 people on Friday 4 December 2026.")
    reply = await rt.send(f"Summarise this: {_ARTICLE}")
    [part] = reply.tool_calls
    assert part.tool_name == "summarize" and part.args == {"text": _ARTICLE}
    listed = (await rt.send("What can you do?")).text
    assert "*Book a table*" in listed and "**summarise**" in listed
    without = gu.Runtime(model=gu.DemoModel(delay=0))
    assert (await without.send("Book a table for dinner")).tool_calls == []


async def test_a_table_of_the_notebooks_data_is_not_followed_by_an_offer_of_demo_data() -> None:
    @gu.tool
    def query_orders() -> pd.DataFrame:
        """Orders."""
        return pd.DataFrame({"units": range(30)})

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[query_orders], components=[gu.Table])
    reply = await rt.send("Query the top orders")
    assert [c.tool_name for c in reply.tool_calls] == ["query_orders", "show_component_Table"]
    assert reply.text.startswith("The query returned 30 rows")
    assert reply.text.endswith(
        "The table holds every row of the result; click a column to sort it."
    )


# --- after a component: what it shows, in a sentence ----------------------------------

_SHOWN = [
    (
        gu.Chart,
        {
            "kind": "line",
            "title": "Visitors",
            "x": ["Jan", "Feb", "Mar"],
            "series": [
                {"name": "2025", "values": [3, 9, 4]},
                {"name": "2026", "values": [5, 6, 7]},
            ],
        },
        "The line chart “Visitors” shows 2025 and 2026 from Jan to Mar; "
        "the highest is 2025 in Feb (9).",
    ),
    (
        gu.Table,
        {
            "title": "Top products",
            "rows": [{"product": "Widget", "units": 340}, {"product": "Gizmo", "units": 980}],
        },
        "The table “Top products” has 2 rows; Gizmo has the most units (980).",
    ),
    (
        gu.Metric,
        {
            "title": "This quarter",
            "metrics": [
                {
                    "label": "Revenue",
                    "value": 559000,
                    "unit": "USD",
                    "delta": 4.2,
                    "delta_unit": "%",
                },
                {"label": "NPS", "value": 61, "delta": -3, "delta_unit": "pts"},
                {"label": "Spend", "value": 1200, "unit": "$", "delta": 5},
            ],
        },
        "This quarter: Revenue 559,000 USD (up 4.2%), NPS 61 (down 3 pts) and Spend $1,200 (up 5).",
    ),
    (
        gu.Markdown,
        {"text": "## Findings\n\n- Revenue is **up**\n- East grew\n\n| a |\n|---|\n| 1 |"},
        "Here are the notes on “Findings”: 2 points and a table.",
    ),
    (
        gu.Image,
        {"src": "https://example.org/logo.png", "alt": "ipygenui logo"},
        "Here's the image: ipygenui logo.",
    ),
]


def _showing(component: gu.Component, props: dict[str, Any]) -> gu.Runtime:
    from ipygenui.testing import ScriptedCall, ScriptedModel, components_reply

    def script(request: Any) -> Any:
        if request.messages[-1].get("role") == "tool":
            return components_reply(request)
        return ScriptedCall(f"show_component_{component.name}", props)

    return gu.Runtime(model=ScriptedModel(script), components=[component])


@pytest.mark.parametrize(
    ("component", "props", "said"), _SHOWN, ids=lambda v: getattr(v, "name", "")
)
async def test_after_a_component_it_says_in_a_sentence_what_it_shows(
    component: gu.Component, props: dict[str, Any], said: str
) -> None:
    reply = await _showing(component, props).send("show it")
    assert reply.text == said


async def test_after_a_form_it_says_what_the_user_can_do_with_it() -> None:
    props = {
        "title": "Plan a trip",
        "fields": [{"name": "city", "label": "City"}, {"name": "nights", "type": "number"}],
    }
    reply = await _showing(gu.Form, props).send("a form")
    assert reply.text == (
        "Fill in the form “Plan a trip” above (city and nights) and press **Submit**: "
        "your answers come to me as your next message."
    )


async def test_a_notebooks_own_component_is_described_from_its_props() -> None:
    from pydantic import BaseModel

    class Weather(BaseModel):
        city: str
        temperature: float
        sky: str = "clear"

    class Sales(BaseModel):
        title: str
        months: list[str]
        sales: list[float]

    weather = gu.Component("Weather", props=Weather, esm="export function render() {}")
    said = await _showing(weather, {"city": "Lisbon", "temperature": 24, "sky": "Sunny"}).send("w")
    assert said.text == "Here's the weather for Lisbon: 24 °C and sunny."
    chart = gu.Component("SalesChart", props=Sales, esm="export function render() {}")
    props = {"title": "Sales 2026", "months": ["Jan", "Feb"], "sales": [12, 15]}
    said = await _showing(chart, props).send("c")
    assert (
        said.text
        == "The sales chart “Sales 2026” shows sales from Jan to Feb; the highest is in Feb (15)."
    )


async def test_a_component_that_failed_is_not_described_as_shown() -> None:
    reply = await _showing(gu.Chart, {"kind": "pie", "x": [], "series": []}).send("show it")
    assert reply.text.startswith("That didn't work: invalid props for component Chart"), reply.text


@pytest.mark.parametrize(
    "props",
    [
        {"title": 3, "rows": [{"a": True}, "x", None]},
        {"metrics": "many"},
        {"series": [{"name": None, "values": ["a", None]}], "x": [1]},
        {"fields": [None, {"name": 5}], "submit_label": ["*"]},
        {"text": None},
    ],
)
def test_odd_props_from_a_model_still_make_a_sentence(props: dict[str, Any]) -> None:
    from ipygenui.models.demo_components import component_sentence

    for name in ("Table", "Metric", "Chart", "Form", "Markdown", "Image", "Mine"):
        said = component_sentence(f"show_component_{name}", props)
        assert said.endswith("."), said
        _one_line_no_json(said)


async def test_a_question_about_tomorrow_is_not_answered_with_todays_weather() -> None:
    """A ``get_weather`` with no ``day``: the demo says it knows only today."""

    @gu.tool
    def get_weather(city: str) -> dict:
        """Current weather for a city."""
        return {"city": city, "temperature_c": 22, "sky": "partly cloudy"}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    reply = await rt.send("What's the weather in Oslo tomorrow?")
    assert reply.text == (
        "`get_weather` only knows the weather now, not tomorrow's forecast. "
        "Right now: It's 22 °C and partly cloudy in Oslo."
    )
    today = await rt.send("What's the weather in Oslo?")
    assert today.text == "It's 22 °C and partly cloudy in Oslo."


async def test_tomorrow_is_asked_of_a_weather_tool_that_takes_a_day() -> None:
    """notebooks/mcp_demo_server.py's ``get_weather(city, day)``: the dashboard
    app's "Ask about tomorrow" gets the forecast."""
    asked: list[str] = []

    @gu.tool
    def get_weather(city: str, day: str = "today") -> dict:
        """The weather for a city today, or tomorrow's forecast."""
        asked.append(day)
        return {"city": city, "temperature_c": 19, "sky": "sunny"}

    rt = gu.Runtime(model=gu.DemoModel(delay=0), tools=[get_weather])
    reply = await rt.send("What's the weather in Oslo tomorrow?")
    assert reply.text == "Tomorrow it will be 19 °C and sunny in Oslo."
    today = await rt.send("What's the weather in Oslo?")
    assert today.text == "It's 19 °C and sunny in Oslo."
    assert asked == ["tomorrow", "today"]


# What js/src/components/form.js's formMessage sends when the Form is submitted.
_SUBMITTED = (
    "Submitted the form “Plan a trip”:\n- City: Porto\n- Nights: 3\n"
    "- Travelling with pets: no\n- Notes: (empty)"
)


async def test_a_submitted_form_is_answered_from_its_answers_not_with_another_form() -> None:
    rt = gu.Runtime(model=gu.DemoModel(delay=0), components=[gu.Form])
    reply = await rt.send(_SUBMITTED)
    assert not reply.tool_calls
    assert reply.text.startswith("Thanks! I read your answers to “Plan a trip”:")
    assert "- **City**: Porto\n- **Nights**: 3\n- **Travelling with pets**: no" in reply.text
    assert "Left empty: Notes." in reply.text


def test_a_form_message_someone_typed_is_not_taken_for_a_submission() -> None:
    from ipygenui.testing import form_submission_reply

    assert form_submission_reply("Show a form to plan a trip") is None
    assert form_submission_reply("I Submitted the form: yesterday") is None
    empty = form_submission_reply("Submitted the form:\n- City: (empty)")
    assert empty == (
        "I got the form, but every field was empty: fill it in and press Submit again."
    )
    escaped = form_submission_reply("Submitted the form:\n- City: **Porto** <b>")
    assert escaped is not None and r"\*\*Porto\*\* \<b\>" in escaped


async def test_the_a2ui_form_turn_streams_in_a_few_seconds_at_the_demo_pace() -> None:
    """Notebook 05's Run All waits for this turn: its form's JSON is long."""
    model = gu.DemoModel(delay=0, record=True)
    rt = gu.Runtime(model=model, components=[gu.A2UI])
    reply = await rt.send("Show me an A2UI form")
    assert [c.tool_name for m in rt.thread.messages for c in m.tool_calls] == ["show_a2ui"]
    assert reply.text.endswith("comes back to me as your next message.")
    paced = gu.DemoModel()  # the notebook's pace: one piece per ``delay``
    replies = [r for r in model.requests if r.purpose == "reply"]
    pieces = sum(len(paced.deltas(paced.pick(request))) for request in replies)
    assert pieces * paced.delay < 3.0, f"{pieces} pieces"
