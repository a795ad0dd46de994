"""How a message, a thread and a part show in a notebook: a short ``repr`` and a
compact transcript (``_repr_markdown_`` / ``_repr_html_``).

Message text, tool arguments and results are untrusted (the model, a tool,
an MCP server, a thread file wrote them): the HTML escapes every character
that means something there and builds no links, images or styles from them,
the markdown escapes every punctuation mark, so nothing in them renders as
markup or loads a URL. Everything is cut to one line and a bounded length, so a
huge thread still shows as a few lines.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from typing import Any

from .decision_text import decision_text

# Messages, threads and parts are typed ``Any`` here: ``ipygenui.messages``
# calls this module, so importing it (even for types) would make a cycle.

REPR_TEXT = 40
"""Characters of a message's text its ``repr`` quotes."""
LINE_TEXT = 200
"""Characters of a message's text one transcript line shows."""
CALL_TEXT = 100
"""Characters of a call's result one line shows."""
ARGS_TEXT = 60
"""Characters of a call's arguments one line shows: short, so how the call
ended still shows beside them."""
MAX_MESSAGES = 30
"""Messages a transcript shows: the last ones, with a count of those left out."""
MAX_CALLS = 5
"""Tool calls shown under one message, with a count of the rest."""

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation mark
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def one_line(text: Any, limit: int) -> str:
    """``text`` on one line, cut with "…": control and direction characters
    dropped (they would reorder or hide what follows), lone surrogates replaced
    (a notebook's output must encode as UTF-8)."""
    text = str(text).encode("utf-8", "replace").decode("utf-8")  # a lone surrogate: "?"
    line = " ".join(_CONTROL.sub(" ", text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _value(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def call_text(part: Any, limit: int = ARGS_TEXT) -> str:
    """``name(key=value, ...)``: the call as one line, its arguments cut to ``limit``."""
    args = part.args
    if isinstance(args, dict) and args:
        inner = ", ".join(f"{key}={_value(value)}" for key, value in args.items())
    elif isinstance(getattr(part, "parsed_args", None) and part.parsed_args.value, dict):
        inner = ""  # none, or only the standard parameters (stripped from ``args``)
    else:
        inner = part.args_text  # not a JSON object: shown as the model wrote it
    return f"{one_line(part.tool_name or 'unknown', 60)}({one_line(inner, limit)})"


def call_outcome(part: Any, limit: int = CALL_TEXT) -> str:
    """How the call ended, in a few words: its result, an error, a decision pending."""
    approval = part.approval
    decided = decision_text(approval)
    if approval is not None and approval.status == "rejected":
        if decided:
            return one_line(decided, limit)
        return "rejected" + (f": {one_line(approval.reason, limit)}" if approval.reason else "")
    if not part.has_result:
        if approval is not None and approval.status == "pending":
            return "waiting for approval"
        return "no result yet"
    result = part.result if isinstance(part.result, str) else _value(part.result)
    outcome = ("failed: " if part.is_error else "→ ") + one_line(result, limit)
    return f"{outcome} ({decided})" if decided else outcome


def _status(message: Any) -> str:
    status = message.status
    reason = getattr(status, "reason", None)
    if status.type == "incomplete" and reason:
        return f"incomplete ({reason})"
    return status.type


def message_repr(message: Any) -> str:
    """``Message(assistant, 3 parts, complete: "It's 21 °C…")``."""
    count = len(message.parts)
    head = f"{message.role}, {count} part{'s' if count != 1 else ''}, {_status(message)}"
    text = message.text
    if text.strip():
        return f"Message({head}: {json.dumps(one_line(text, REPR_TEXT), ensure_ascii=False)})"
    calls = message.tool_calls
    if calls:
        more = f" +{len(calls) - 1}" if len(calls) > 1 else ""
        return f"Message({head}: {call_text(calls[0], REPR_TEXT)}{more})"
    return f"Message({head})"


def thread_repr(thread: Any) -> str:
    """``Thread(4 messages, id=thread_…, title="…")``."""
    count = len(thread.messages)
    title = one_line(thread.title, REPR_TEXT) if thread.title else ""
    title = f", title={json.dumps(title, ensure_ascii=False)}" if title else ""
    return (
        f"Thread({count} message{'s' if count != 1 else ''}, id={one_line(thread.id, 60)}{title})"
    )


def part_repr(part: Any) -> str:
    """``TextPart("…")`` or ``ToolCallPart(name(args) → result)``."""
    kind = getattr(part, "type", None)
    if kind == "tool-call":
        return f"ToolCallPart({call_text(part, REPR_TEXT)} {call_outcome(part, REPR_TEXT)})"
    if kind == "text":
        return f"TextPart({json.dumps(one_line(part.text, REPR_TEXT), ensure_ascii=False)})"
    return type(part).__name__


# --- the transcript ----------------------------------------------------------------


def _markdown(text: str) -> str:
    """Plain text that markdown shows as written: every punctuation mark escaped."""
    return _PUNCTUATION.sub(r"\\\1", text)


_WAITING = "waiting for you"


def _lines(messages: Sequence[Any]) -> list[tuple[int, str, str]]:
    """``(depth, label, text)`` rows: a message (depth 0), its calls (depth 1)."""
    rows: list[tuple[int, str, str]] = []
    left_out = len(messages) - MAX_MESSAGES
    if left_out > 0:
        rows.append((0, "…", f"{left_out} earlier message{'s' if left_out != 1 else ''}"))
    for message in messages[-MAX_MESSAGES:]:
        status = _WAITING if message.status.type == "requires-action" else _status(message)
        label = message.role if status == "complete" else f"{message.role} ({status})"
        attached = [str(a.name) for a in message.attachments]
        files = f" (attached: {', '.join(attached)})" if attached else ""
        rows.append((0, label, one_line(message.text + files, LINE_TEXT)))
        calls = message.tool_calls
        for part in calls[:MAX_CALLS]:
            rows.append((1, "tool", f"{call_text(part)} {call_outcome(part)}"))
        if len(calls) > MAX_CALLS:
            rows.append((1, "tool", f"and {len(calls) - MAX_CALLS} more calls"))
    return rows


def transcript_markdown(messages: Sequence[Any], heading: str | None = None) -> str:
    """A list item per message and per call; ``heading`` (a thread's) above them."""
    lines = [f"**{_markdown(heading)}**", ""] if heading else []
    for depth, label, text in _lines(messages):
        indent = "  " * depth
        lines.append(f"{indent}- **{_markdown(label)}**: {_markdown(text)}")
    return "\n".join(lines) + "\n"


def transcript_html(messages: Sequence[Any], heading: str | None = None) -> str:
    """A line per message and per call; ``heading`` (a thread's) above them."""
    rows = []
    for depth, label, text in _lines(messages):
        pad = "padding-left:1.5em;" if depth else ""
        rows.append(
            f'<div style="{pad}white-space:nowrap;overflow:hidden;text-overflow:ellipsis">'
            f"<b>{html.escape(label)}</b>: "
            f"{'<code>' if depth else ''}{html.escape(text)}{'</code>' if depth else ''}</div>"
        )
    return (
        '<div class="gu-transcript" style="font-size:0.9em;line-height:1.5">'
        f"{f'<div><b>{html.escape(heading)}</b></div>' if heading else ''}{''.join(rows)}</div>"
    )


def thread_heading(thread: Any) -> str:
    count = len(thread.messages)
    title = f": {one_line(thread.title, 80)}" if thread.title else ""
    return f"Thread{title} ({count} message{'s' if count != 1 else ''})"
