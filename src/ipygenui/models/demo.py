"""``DemoModel``: the offline model used when no API key is set (Binder, CI).

It streams plausible markdown at a human pace and answers a few keywords
sensibly, so every notebook runs and shows streaming, tools and rendering
without a network. It is honest about what it is.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from .._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from .base import ModelRequest
from .scripted import ScriptedCall, ScriptedModel, ScriptedReply, last_user_text

INTRO = """\
I'm the **offline demo model**: no API key is set, so I answer from a small \
script instead of a real LLM.

You said: *{echo}*

To chat with a real model:
- set `OPENAI_API_KEY` in the environment and create the chat again, or
- pass a model explicitly:

```python
import ipygenui as gu
chat = gu.Chat(model=gu.OpenAIModel("gpt-4o-mini"))
```

Any OpenAI-compatible server works too (Ollama, vLLM, LM Studio) through \
`base_url=`. Try asking me about the **weather** to see a tool call.
"""

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

_ECHO_LIMIT = 200
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>~|])")


_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]

# keyword -> (UI tool, props): shown when that component is registered, so a
# demo notebook can show props streaming into a component without a key.
COMPONENT_DEMOS: dict[str, tuple[str, dict[str, Any]]] = {
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
                {"label": "Revenue", "value": 62700, "unit": "$", "delta": 0.08},
                {"label": "Orders", "value": 2490, "delta": -0.02},
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


def _summarize_result(request: ModelRequest) -> str:
    results: list[str] = []
    for entry in reversed(request.messages):
        if entry.get("role") != "tool":
            break
        results.append(str(entry.get("content", "")))
    shown = []
    for content in reversed(results):
        with contextlib.suppress(ValueError):
            content = json.dumps(json.loads(content), indent=2)
        shown.append(f"```json\n{content}\n```")
    return "Here is what the tool returned:\n\n" + "\n\n".join(shown)


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


def _echo(text: str) -> str:
    """``text`` on one line, cut between words with an ellipsis when long, with
    markdown escaped so it shows as typed inside the intro's emphasis."""
    echo = " ".join(text.split())
    if len(echo) > _ECHO_LIMIT:
        head = echo[: _ECHO_LIMIT + 1]  # one more: a space there ends a whole word
        echo = (head.rsplit(" ", 1)[0] if " " in head else echo[:_ECHO_LIMIT]) + "…"
    return _MARKDOWN_INLINE.sub(r"\\\1", echo) or "(nothing)"


def _suggestions(tool_names: set[str]) -> list[str]:
    """Follow-ups this chat can answer: never a weather question without the tool."""
    chips: list[str] = []
    if "get_weather" in tool_names:
        chips.append("What's the weather in Paris?")
    for keyword, (tool_name, _) in COMPONENT_DEMOS.items():
        if tool_name in tool_names and len(chips) < 2:
            chips.append(f"Show me a {keyword}")
    return [*chips, "What can you do?"]


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
            lines.append(f"- **{name}**: an image (I am the offline demo: I cannot see it)")
        else:
            lines.append(f"- **{name}**: text, which I read inline")
    text = "You attached:\n" + "\n".join(lines)
    if images:
        text += f"\n\n{images} image(s) reached me as image content parts."
    if data_ref and _TABLE_TOOL in names:
        text += f"\n\nHere is all of `{data_ref}`, sent by the notebook, not by me:\n\n"
        return ScriptedReply(text=text, tool_calls=[_table_call(data_ref)])
    return ScriptedReply(text=text)


def _table_call(ref: str) -> ScriptedCall:
    return ScriptedCall(
        _TABLE_TOOL,
        {
            STATUS_PARAM: f"showing {ref}",
            COMPLETION_PARAM: f"showed {ref}",
            "title": ref,
            "data": ref,
        },
    )


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


def demo_reply(request: ModelRequest, known_tools: set[str] | None = None) -> ScriptedReply:
    """The demo's answer to a request.

    ``known_tools``: the chat's tools when ``request`` carries none (a request
    for suggestions is sent without tools).
    """
    if request.messages and request.messages[-1].get("role") == "tool":
        if _last_calls_were_ui(request):
            return ScriptedReply(text="Ask for a *chart*, a *table* or *metrics* to see another.")
        table = _table_of_result(request)
        if table is not None:
            return table
        return ScriptedReply(text=_summarize_result(request))
    text = last_user_text(request)
    if request.purpose == "suggestions":
        return ScriptedReply(text=json.dumps(_suggestions(known_tools or _tool_names(request))))
    lowered = text.lower()
    names = _tool_names(request)
    data_reply = _data_reply(request, text, names)
    if data_reply is not None:
        return data_reply
    for keyword, (tool_name, props) in COMPONENT_DEMOS.items():
        if keyword in lowered and tool_name in names:
            label = tool_name.removeprefix("show_component_").lower()
            props = {
                STATUS_PARAM: f"drawing a {label}",
                COMPLETION_PARAM: f"drew a {label}",
                **props,
            }
            return ScriptedReply(
                text=f"Here is a {label} with made-up demo data:\n\n",
                tool_calls=[ScriptedCall(tool_name, props)],
            )
    if "note" in lowered and NOTE_TOOL in names:  # e.g. an MCP server's write tool
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
        args: dict[str, Any] = {
            STATUS_PARAM: f"looking up the weather in {city}",
            COMPLETION_PARAM: f"looked up the weather in {city}",
            "city": city,
        }
        return ScriptedReply(tool_calls=[ScriptedCall("get_weather", args)])
    return ScriptedReply(text=INTRO.format(echo=_echo(text)))


STARTERS = (
    "What can you do offline?",
    "What's the weather in Paris?",
    "Show me a chart of monthly sales",
)
"""The prompts an empty demo chat offers (``Runtime.starters``): each shows
something the demo answers well."""


class DemoModel(ScriptedModel):
    """Offline demo: ~45 tokens a second by default (``delay`` per 4-character chunk).

    Like :class:`ScriptedModel` it keeps only its last few requests unless ``record=True``.
    ``starters`` are the prompts an empty chat on it offers.
    """

    starters: tuple[str, ...] = STARTERS

    def __init__(self, *, delay: float = 0.022, record: bool = False) -> None:
        super().__init__(self._reply, chunk_size=4, delay=delay, name="offline demo", record=record)
        self.spec = "demo"
        self._chat_tools: set[str] = set()

    def _reply(self, request: ModelRequest) -> ScriptedReply:
        if request.tools:  # remembered for the suggestions, which come without tools
            self._chat_tools = _tool_names(request)
        elif request.tool_choice != "none":
            self._chat_tools = set()
        return demo_reply(request, self._chat_tools)
