"""A thread as a markdown transcript: what ``to_markdown()`` and the
"download transcript" action give.

The active branch only, as the user reads it: a heading per message, its
text as written (it is markdown already), and each tool call summarized on
one line (its name, short arguments, and how it ended), not its whole result.
Reasoning is left out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._internal.decision_text import decision_text
from ..messages import Complete, Incomplete, Message, TextPart, Thread, ToolCallPart
from ..persistence.store import title_of

__all__ = ["thread_to_markdown"]

SUMMARY_CHARS = 120
"""Arguments and results are cut to this many characters in a tool line."""

_ROLES = {"user": "User", "assistant": "Assistant", "system": "System"}


def thread_to_markdown(thread: Thread) -> str:
    lines = [f"# {_one_line(title_of(thread))}", ""]
    for message in thread.messages:
        lines.extend(_message(message))
    return "\n".join(lines).rstrip() + "\n"


def _message(message: Message) -> list[str]:
    out = [f"## {_ROLES.get(message.role, message.role.title())}", ""]
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            out.extend([part.text.strip(), ""])
        elif isinstance(part, ToolCallPart):
            out.extend([_tool_line(part), ""])
    status = message.status
    if isinstance(status, Incomplete):
        why = status.error or status.reason
        out.extend([f"*(reply {status.reason}: {_one_line(why)})*", ""])
    feedback = message.feedback
    if feedback is not None:
        mark = "👍" if feedback.rating == "up" else "👎"
        comment = f" {_one_line(feedback.comment)}" if feedback.comment else ""
        out.extend([f"*Feedback: {mark}{comment}*", ""])
    if not isinstance(status, Complete | Incomplete) and len(out) == 2:
        out.extend(["*(in progress)*", ""])
    return out


def _tool_line(part: ToolCallPart) -> str:
    args = _short(part.args if part.args else part.args_text)
    name = part.tool_name or "unknown"
    head = f"> 🔧 {_code(f'{name}({args})')}"
    approval = part.approval
    decided = decision_text(approval)
    if approval is not None and approval.status == "rejected":
        if decided:
            return f"{head} was {_one_line(decided)}"
        reason = f": {_one_line(approval.reason)}" if approval.reason else ""
        return f"{head} was rejected{reason}"
    if not part.has_result:
        return f"{head}: no result"
    by = f" ({decided})" if decided else ""
    if part.is_error:
        return f"{head} failed: {_code(_short(part.result))}{by}"
    return f"{head} → {_code(_short(part.result))}{by}"


def _code(text: str) -> str:
    """``text`` as an inline code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _short(value: Any) -> str:
    if isinstance(value, dict) and not value:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    text = _one_line(text)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
