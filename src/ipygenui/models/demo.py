"""``DemoModel``: the offline model used when no API key is set (Binder, CI).

It streams markdown at a human pace and answers like a small assistant, so
every notebook runs and shows streaming, tools and rendering without a
network: the questions the notebooks and its starters suggest get short
answers or the tool call they imply, a tool's result comes back as a sentence
(``_demo_results``), as does a component it showed (``demo_components``: "The
line chart shows 2025 and 2026 from Jan to Jun"), and anything else gets an
honest "I'm offline" with a few things to try. It never echoes a template
and it is always deterministic.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from collections.abc import Collection
from typing import Any

from .._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from ..tools.component_names import component_name_of
from ._demo_a2ui import A2UI_ARGS_CHUNK, A2UI_FORM, A2UI_TOOL, a2ui_answer
from ._demo_apps import apps_reply
from ._demo_asking import asking_reply, asking_things, sampling_reply
from ._demo_results import results_reply, tool_results
from .base import ModelRequest
from .demo_components import components_reply
from .demo_forms import form_submission_reply
from .scripted import ScriptedCall, ScriptedModel, ScriptedReply, last_user_text
from .token_estimate import reply_usage

OFFLINE = (
    "I'm offline, so I can only answer a few things: set a key (`OPENAI_API_KEY`, "
    "`ANTHROPIC_API_KEY`, `GEMINI_API_KEY`) or pass `model='provider:model'` for real answers."
)
"""The honest line of every reply to a question the demo has no answer for."""

HELLO = "Hi! I'm the offline demo model: I follow a small script instead of a real LLM."

REAL_MODEL = """\
For real answers, pick a model by name and set its provider's key in the environment:

```python
chat = gu.Chat(model="openai:gpt-4o-mini")  # OPENAI_API_KEY
chat = gu.Chat(model="anthropic:claude-sonnet-4-5")  # ANTHROPIC_API_KEY
chat = gu.Chat(model="google-gla:gemini-2.5-flash")  # GOOGLE_API_KEY or GEMINI_API_KEY
```

With one of these keys set, `gu.Chat()` picks that provider by itself (Claude and Gemini \
need the `providers` extra: `pip install ".[providers]"` in the checkout). Any \
OpenAI-compatible server (Ollama, vLLM, LM Studio) works through \
`gu.OpenAIModel(name, base_url=...)`.
"""

ABOUT = (
    "ipygenui puts a chat with an AI assistant in your notebook: it streams replies, calls "
    "your Python functions as tools (asking you first when they need approval) and shows "
    "components such as charts, tables and forms."
)

NO_WEATHER_TOOL = """\
I'd look that up with a `get_weather` tool, but none is registered in this chat.

Register one and ask again:

```python
@gu.tool
def get_weather(city: str) -> dict:
    \"\"\"Current weather for a city.\"\"\"
    return {"city": city, "temperature_c": 21, "sky": "sunny"}

chat = gu.Chat(tools=[get_weather])
chat
```
"""

# A city is the words after "in", "for" or "at", in any case, up to the first
# word that is clearly not part of a name ("weather in tokyo today?").
_CITY_START = re.compile(r"\b(?:in|for|at)\s+", re.IGNORECASE)
_CITY_WORD = re.compile(r"[^\W\d_][\w'-]*")
_NOT_A_CITY = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "at",
        "be",
        "for",
        "from",
        "in",
        "is",
        "it",
        "like",
        "me",
        "my",
        "now",
        "on",
        "or",
        "please",
        "right",
        "the",
        "this",
        "today",
        "tomorrow",
        "tonight",
        "week",
        "weekend",
        "with",
    ]
)
_CITY_MAX_WORDS = 4
_DEFAULT_CITY = "Paris"

NOTE_TOOL = "save_note"
"""Called for a message that mentions a note, when the chat has it (``text``:
what follows the first colon): notebooks/mcp_demo_server.py's write tool."""

_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]

# keyword -> (UI tool, props): shown when that component is registered, so a
# demo notebook can show props streaming into a component without a key.
COMPONENT_DEMOS: dict[str, tuple[str, dict[str, Any]]] = {
    "a2ui": (A2UI_TOOL, {"messages": A2UI_FORM}),  # first: "an A2UI form" is no Form
    "chart": (
        "show_component_Chart",
        {
            "kind": "line",
            "title": "Monthly sales (demo data)",
            "x": _MONTHS,
            "series": [
                {"name": "2025", "values": [120, 135, 128, 150, 162, 171]},
                {"name": "2026", "values": [130, 142, 151, 149, 175, 190]},
            ],
        },
    ),
    "table": (
        "show_component_Table",
        {
            "title": "Top products (demo data)",
            "columns": ["product", "units", "revenue"],
            "rows": [
                {"product": "Widget", "units": 1200, "revenue": 24000},
                {"product": "Gadget", "units": 860, "revenue": 30100},
                {"product": "Doohickey", "units": 430, "revenue": 8600},
            ],
        },
    ),
    "metric": (
        "show_component_Metric",
        {
            "title": "This month (demo data)",
            "metrics": [
                {"label": "Revenue", "value": 62700, "unit": "$", "delta": 8, "delta_unit": "%"},
                {"label": "Orders", "value": 2490, "delta": -2, "delta_unit": "%"},
            ],
        },
    ),
}


def _tool_names(request: ModelRequest) -> set[str]:
    return {t.get("function", {}).get("name", "") for t in request.tools}


def _last_calls_were_ui(request: ModelRequest) -> bool:
    for entry in reversed(request.messages):
        if entry.get("role") == "assistant":
            calls = entry.get("tool_calls") or []
            return bool(calls) and all(
                c["function"]["name"].startswith("show_component_") for c in calls
            )
    return False


_TOMORROW = re.compile(r"\btomorrow\b")


def _takes_a_day(request: ModelRequest) -> bool:
    """Whether the chat's ``get_weather`` has a ``day`` parameter (notebooks/mcp_demo_server.py's
    forecast for tomorrow)."""
    for tool in request.tools:
        function = tool.get("function", {})
        if function.get("name") == "get_weather":
            return "day" in (function.get("parameters") or {}).get("properties", {})
    return False


def _for_the_day_asked(request: ModelRequest, answer: str) -> str:
    """``answer`` to the results, saying so when the user asked about tomorrow
    (an app's "Ask about tomorrow") and ``get_weather`` gave the weather now."""
    asked_tomorrow = _TOMORROW.search(last_user_text(request).lower())
    looked_up = any(
        name == "get_weather" and args.get("day") != "tomorrow"
        for name, args, _ in tool_results(request)
    )
    if not (asked_tomorrow and looked_up):
        return answer
    return f"`get_weather` only knows the weather now, not tomorrow's forecast. Right now: {answer}"


def _city_in(text: str) -> str | None:
    """The city a weather question names, capitalised, or None."""
    for start in _CITY_START.finditer(text):
        words: list[str] = []
        rest = text[start.end() :]
        while len(words) < _CITY_MAX_WORDS:
            word = _CITY_WORD.match(rest)
            if word is None or word.group().lower() in _NOT_A_CITY:
                break
            words.append(word.group())
            rest = rest[word.end() :]
            if not rest.startswith(" "):  # punctuation ends the name
                break
            rest = rest[1:]
        if words:
            return " ".join(w[:1].upper() + w[1:] if w.islower() else w for w in words)
    return None


_CHIPS = 3


def _suggestions(request: ModelRequest, tool_names: set[str]) -> list[str]:
    """Follow-ups this chat can answer: the example questions the last reply
    offered (clickable), else what else this chat shows; never what was just
    asked, nor a weather question without the tool."""
    said = _last_assistant_text(request)
    examples = [e for _, e in _things_to_try(tool_names)]
    examples += ["What is ipygenui?", _REAL_MODEL_QUESTION]
    offered = sorted((said.find(f"*{e}*"), e) for e in examples if f"*{e}*" in said)
    if offered:
        return [e for _, e in offered][:_CHIPS]
    asked = _asked_before_suggestions(request).strip().lower()
    chips: list[str] = []
    if "get_weather" in tool_names:
        chips.append("What's the weather in Paris?")
    for keyword, (tool_name, _) in COMPONENT_DEMOS.items():
        if tool_name in tool_names:
            chips.append(f"Show me {_a(keyword)}")
    chips = [c for c in chips if c.lower() != asked][:2]
    return [*chips, "What can you do?"]


def _last_assistant_text(request: ModelRequest) -> str:
    for entry in reversed(request.messages):
        if entry.get("role") == "assistant" and isinstance(entry.get("content"), str):
            return str(entry["content"])
    return ""


def _asked_before_suggestions(request: ModelRequest) -> str:
    """The user's last message before the request for suggestions (its last message)."""
    users = [e for e in request.messages if e.get("role") == "user"]
    if len(users) < 2:
        return ""
    return last_user_text(dataclasses.replace(request, messages=request.messages[:-1]))


# --- notebook data (notebooks/03_data.ipynb) ------------------------------------

_ATTACHMENT = re.compile(r'<attachment name="([^"]*)" kind="(\w+)"(?: ref="([^"]*)")?>')
_CODE_BLOCK = re.compile(r"```(?:python)?\n(.*?)```", re.DOTALL)
_TABLE_TOOL = "show_component_Table"


def _data_reply(request: ModelRequest, text: str, names: set[str]) -> ScriptedReply | None:
    """Attachments described, a ``query_*`` tool called, or code run with run_python."""
    attached = _ATTACHMENT.findall(text)
    if attached:
        return _describe_attachments(request, attached, names)
    lowered = text.lower()
    if "run_python" in names and ("python" in lowered or "```" in text):
        block = _CODE_BLOCK.search(text)
        code = block.group(1) if block else "print('Hello from run_python')"
        return ScriptedReply(
            text="I'd like to run this code in your notebook:\n\n",
            tool_calls=[ScriptedCall("run_python", {"code": code})],
        )
    query = sorted(n for n in names if n.startswith("query"))
    if query and ("query" in lowered or "top" in lowered):
        args = {STATUS_PARAM: "querying the data", COMPLETION_PARAM: "queried the data"}
        return ScriptedReply(tool_calls=[ScriptedCall(query[0], args)])
    return None


def _describe_attachments(
    request: ModelRequest, attached: list[tuple[str, str, str]], names: set[str]
) -> ScriptedReply:
    lines = []
    content = request.messages[-1].get("content") if request.messages else None
    parts = content if isinstance(content, list) else []
    images = sum(1 for p in parts if isinstance(p, dict) and p.get("type") == "image_url")
    data_ref = None
    for name, kind, ref in attached:
        if kind == "data":
            data_ref = data_ref or ref
            lines.append(f"- **{name}**: data kept in your notebook as `{ref}`; I read a summary")
        elif kind == "image":
            lines.append(f"- **{name}**: an image; I'm offline, so I can't see it")
        else:
            lines.append(f"- **{name}**: text, which I read inline")
    text = "You attached:\n" + "\n".join(lines)
    if images:
        counted = "an image" if images == 1 else f"{images} images"
        text += f"\n\nThe chat sent me {counted} as image content, which a vision model would see."
    if data_ref and _TABLE_TOOL in names:
        text += f"\n\nHere is all of `{data_ref}`, sent by the notebook, not by me:\n\n"
        return ScriptedReply(text=text, tool_calls=[_table_call(data_ref, title=data_ref)])
    return ScriptedReply(text=text)


def _table_call(ref: str, title: str | None = None) -> ScriptedCall:
    """A Table of ``ref``; an internal ref (``df_1``) is no title, a file's name is."""
    args = {STATUS_PARAM: f"showing {ref}", COMPLETION_PARAM: f"showed {ref}", "data": ref}
    return ScriptedCall(_TABLE_TOOL, args if title is None else {**args, "title": title})


def _table_of_result(request: ModelRequest) -> ScriptedReply | None:
    """A tool result kept by reference (a DataFrame) shown whole in a Table."""
    if _TABLE_TOOL not in _tool_names(request):
        return None
    entry = request.messages[-1]
    with contextlib.suppress(ValueError, TypeError):
        result = json.loads(entry.get("content", ""))
        if isinstance(result, dict) and "ref" in result and "shape" in result:
            rows = result["shape"][0]
            return ScriptedReply(
                text=f"The query returned {rows:,} rows, kept in your notebook as "
                f"`{result['ref']}`. All of them, by reference:\n\n",
                tool_calls=[_table_call(str(result["ref"]))],
            )
    return None


# --- free questions ---------------------------------------------------------------

_ASKS_WHAT_IT_DOES = re.compile(
    r"what (?:can|could|else can|do) you|what you (?:can )?do|\bhelp\b|capabilit|who are you"
    r"|what are you|how does this work|how do i use (?:this|it|you)\b"
    r"|^\W*(?:hi|hello|hey|hallo|bonjour|good (?:morning|afternoon|evening))\b\W*$"
)
_ASKS_ABOUT_MODELS = re.compile(
    r"\b(?:api[ _-]?keys?|real (?:model|llm|answers?)|openai|anthropic|claude|gemini"
    r"|gpt|llms?|providers?|ollama|offline)\b"
)
_ASKS_ABOUT_IPYGENUI = re.compile(r"\bipygenui\b|what is this\b")
_THANKS = re.compile(r"\b(?:thanks|thank you|thx|cheers)\b")
_NOTE = re.compile(r"\bnotes?\b")
_REAL_MODEL_QUESTION = "How do I use a real model?"


def _things_to_try(names: set[str]) -> list[tuple[str, str]]:
    """``(what, a question that shows it)`` for what this chat's tools let the demo do."""
    things: list[tuple[str, str]] = []
    if "get_weather" in names:
        things.append(("look up **the weather**", "What's the weather in Paris?"))
    for keyword, (tool_name, _) in COMPONENT_DEMOS.items():
        if tool_name in names:
            things.append((f"show **{_a(keyword)}** component", f"Show me {_a(keyword)}"))
    query = sorted(n for n in names if n.startswith("query"))
    if query:
        things.append((f"query **your data** with `{query[0]}`", "Query the top orders"))
    if "run_python" in names:
        things.append(("run **Python** in your notebook, once you approve", "Run some python"))
    if NOTE_TOOL in names:
        things.append(("save **a note**, once you approve", "Save a note: buy milk"))
    things.extend(asking_things(names))
    return things


def _capabilities(names: set[str]) -> str:
    things = _things_to_try(names)[:4]
    if not things:
        things = [("explain **what ipygenui is**", "What is ipygenui?")]
    things.append(("tell you how to connect **a real model**", _REAL_MODEL_QUESTION))
    lines = "\n".join(f"- {what}: *{example}*" for what, example in things)
    return f"{HELLO} In this chat I can:\n\n{lines}\n"


def _offline(names: set[str]) -> str:
    examples = [example for _, example in _things_to_try(names)][:2]
    examples = [*examples, "What is ipygenui?", _REAL_MODEL_QUESTION][:3]
    tries = ", ".join(f"*{e}*" for e in examples[:-1]) + f" or *{examples[-1]}*"
    return f"{OFFLINE}\n\nTry {tries}"


def _a(keyword: str) -> str:
    """What to ask for: "a chart", "an A2UI form"."""
    return "an A2UI form" if keyword == "a2ui" else f"a {keyword}"


def _missing_component(keyword: str) -> str:
    name = component_name_of(COMPONENT_DEMOS[keyword][0]) or keyword
    return (
        f"I'd show that with the `{name}` component, but this chat has none. Create the chat "
        f"with it, `gu.Chat(components=[gu.{name}])`, and ask again."
    )


def _component_reply(lowered: str, names: set[str]) -> ScriptedReply | None:
    for keyword, (tool_name, props) in COMPONENT_DEMOS.items():
        if keyword not in lowered:
            continue
        if tool_name not in names:
            return ScriptedReply(text=_missing_component(keyword))
        label = tool_name.removeprefix("show_component_").lower()
        chunk = None
        if tool_name == A2UI_TOOL:
            label, chunk = "A2UI form", A2UI_ARGS_CHUNK
        a = "an" if label[0] in "aeiouAEIOU" else "a"
        status = {STATUS_PARAM: f"drawing {a} {label}", COMPLETION_PARAM: f"drew {a} {label}"}
        props = {**status, **props}
        return ScriptedReply(
            text=f"Here is {a} {label} with made-up demo data:\n\n",
            tool_calls=[ScriptedCall(tool_name, props, chunk_size=chunk)],
        )
    return None


def _tool_reply(request: ModelRequest, text: str, lowered: str) -> ScriptedReply | None:
    """A call of one of the chat's tools the question asks for, or None."""
    names = _tool_names(request)
    if _NOTE.search(lowered) and NOTE_TOOL in names:  # e.g. an MCP server's write tool
        note = text.split(":", 1)[1].strip() if ":" in text else text.strip()
        note_args = {
            STATUS_PARAM: "saving a note",
            COMPLETION_PARAM: "saved a note",
            "text": note or text,
        }
        return ScriptedReply(tool_calls=[ScriptedCall(NOTE_TOOL, note_args)])
    if "weather" in lowered:
        if "get_weather" not in names:
            return ScriptedReply(text=NO_WEATHER_TOOL)
        city = _city_in(text) or _DEFAULT_CITY
        tomorrow = _TOMORROW.search(lowered) is not None and _takes_a_day(request)
        what = "tomorrow's weather" if tomorrow else "the weather"
        args: dict[str, Any] = {
            STATUS_PARAM: f"looking up {what} in {city}",
            COMPLETION_PARAM: f"looked up {what} in {city}",
            "city": city,
        }
        if tomorrow:
            args["day"] = "tomorrow"
        return ScriptedReply(tool_calls=[ScriptedCall("get_weather", args)])
    return None


def _answer(lowered: str, names: set[str]) -> str:
    """A short answer to a question no tool serves."""
    if _THANKS.search(lowered):
        return "You're welcome!"
    if _ASKS_WHAT_IT_DOES.search(lowered):
        return _capabilities(names)
    if _ASKS_ABOUT_IPYGENUI.search(lowered):
        return f"{ABOUT} I'm its offline demo model, here so the notebooks run without a key."
    if _ASKS_ABOUT_MODELS.search(lowered):
        return REAL_MODEL
    return _offline(names)


def demo_reply(request: ModelRequest, known_tools: set[str] | None = None) -> ScriptedReply:
    """The demo's answer to a request.

    ``known_tools``: the chat's tools when ``request`` carries none (a request
    for suggestions is sent without tools).
    """
    names = _tool_names(request)
    a2ui = a2ui_answer(request, last_user_text(request))
    if a2ui is not None:
        return ScriptedReply(text=a2ui)
    if request.messages and request.messages[-1].get("role") == "tool":
        if _last_calls_were_ui(request):
            return ScriptedReply(text=components_reply(request))
        table = _table_of_result(request)
        if table is not None:
            return table
        return ScriptedReply(text=_for_the_day_asked(request, results_reply(request)))
    if request.purpose == "sampling":  # a tool server's prompt, asked mid-call
        return ScriptedReply(text=sampling_reply(request))
    text = last_user_text(request)
    if request.purpose == "suggestions":
        return ScriptedReply(text=json.dumps(_suggestions(request, known_tools or names)))
    submitted = form_submission_reply(text)  # before "form" asks for a component
    if submitted is not None:
        return ScriptedReply(text=submitted)
    lowered = text.lower()
    reply = (
        _data_reply(request, text, names)
        or asking_reply(text, lowered, names)  # before "table" asks for a Table
        or apps_reply(text, lowered, names)  # before "weather" asks for get_weather
        or _component_reply(lowered, names)
        or _tool_reply(request, text, lowered)
    )
    return reply if reply is not None else ScriptedReply(text=_answer(lowered, names))


STARTERS = (
    "What can you do offline?",
    "What's the weather in Paris?",
    "Show me a chart of monthly sales",
)
"""The prompts an empty demo chat with the weather tool and the Chart
component offers (``Runtime.starters``): each shows something the demo
answers well. A chat with other tools gets ``DemoModel.starters_for``'s."""

_COMPONENT_STARTERS = {"chart": "Show me a chart of monthly sales"}
"""A component's starter where "Show me a <component>" says too little."""
MAX_STARTERS = 3


def starters_for(tool_names: Collection[str]) -> list[str]:
    """The starters a chat with ``tool_names`` answers well: the weather only
    with ``get_weather``, a component only when it is registered, and what
    the demo can do whatever the chat holds."""
    offered = [STARTERS[0]]
    if "get_weather" in tool_names:
        offered.append(STARTERS[1])
    for keyword, (tool_name, _) in COMPONENT_DEMOS.items():
        if tool_name in tool_names:
            offered.append(_COMPONENT_STARTERS.get(keyword, f"Show me {_a(keyword)}"))
    if len(offered) == 1:
        offered.append(_REAL_MODEL_QUESTION)  # no tool to show: how to get a real one
    return offered[:MAX_STARTERS]


class DemoModel(ScriptedModel):
    """Offline demo: ~45 tokens a second by default (``delay`` per 4-character chunk).

    Like :class:`ScriptedModel` it keeps only its last few requests unless ``record=True``.
    ``starters`` are the prompts an empty chat on it offers.

    Each reply reports its usage as an estimate (``models/token_estimate.py``:
    about four characters a token), so the footer and ``chat.usage()`` show
    what a real model would count, marked as estimated. It is never priced;
    set ``price_ref`` (``gu.model("demo", price_ref="openai:gpt-4o-mini")``) to see what
    the conversation would cost with that model, labelled with its name.
    """

    price_ref: str | None
    """A ``"provider:model"`` the estimated tokens are priced as (``ipygenui.runtime.usage``)."""

    starters: tuple[str, ...] = STARTERS

    suggests = True
    """A chat on it offers follow-up chips after each reply unless told
    ``suggestions=False``: the example questions its replies name, clickable."""

    def starters_for(self, tool_names: Collection[str]) -> list[str]:
        """The prompts an empty chat with ``tool_names`` offers (``STARTERS``
        for the weather tool and the Chart component)."""
        return starters_for(tool_names)

    def __init__(
        self, *, delay: float = 0.022, record: bool = False, price_ref: str | None = None
    ) -> None:
        super().__init__(self._reply, chunk_size=4, delay=delay, name="offline demo", record=record)
        self.spec = "demo"
        self.price_ref = price_ref
        self._chat_tools: set[str] = set()

    def pace(self, request: ModelRequest) -> float:
        """No wait for the suggestions: they are no reply the user watches."""
        return 0.0 if request.purpose == "suggestions" else self.delay

    def _reply(self, request: ModelRequest) -> ScriptedReply:
        if request.tools:  # remembered for the suggestions, which come without tools
            self._chat_tools = _tool_names(request)
        elif request.tool_choice != "none":
            self._chat_tools = set()
        reply = demo_reply(request, self._chat_tools)
        calls = [
            (c.name, c.args if isinstance(c.args, str) else json.dumps(c.args))
            for c in reply.tool_calls
        ]
        usage = reply_usage(request, reply.reasoning, reply.text, calls)
        return dataclasses.replace(reply, usage=usage)
