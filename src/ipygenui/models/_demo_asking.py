"""The offline demo and tools that ask the client mid-call (an MCP server's
elicitation and sampling, notebooks/04_agents.ipynb).

The demo calls a chat's booking or summarising tool when a message asks for
one, and answers a sampling prompt itself: a text to summarise gets its first
sentence, which is what a well-written paragraph leads with, cut to the
server's token limit; any other prompt gets an honest short "I'm offline".
"""

from __future__ import annotations

import re

from .._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from .base import ModelRequest
from .scripted import ScriptedCall, ScriptedReply, last_user_text
from .token_estimate import CHARS_PER_TOKEN

BOOK_TOOL = "book_table"
"""notebooks/mcp_demo_server.py's tool that asks the user for a form."""
SUMMARY_TOOLS = ("summarize", "summarise")
"""Its tool that asks the client's model (either spelling of the name)."""

SAMPLING_OFFLINE = (
    "I'm the offline demo model, so I can't answer this prompt properly: "
    "I can only summarise a text. Connect a real model for a real answer."
)

_ASKS_TO_BOOK = re.compile(r"\b(?:book|reserve)\b")
_ASKS_TO_SUMMARISE = re.compile(r"\bsumm(?:ari[sz]e|ary)\b|\bsum up\b|\btl;?dr\b")
_SENTENCE = re.compile(r".+?[.!?](?=\s|$)", re.DOTALL)
_DEFAULT_LIMIT = 400
"""Characters of a sampled answer when the request sets no token limit."""


def asking_reply(text: str, lowered: str, names: set[str]) -> ScriptedReply | None:
    """A call of the chat's booking or summarising tool the message asks for, or None."""
    if _ASKS_TO_BOOK.search(lowered) and BOOK_TOOL in names:
        args = {STATUS_PARAM: "booking a table", COMPLETION_PARAM: "booked a table"}
        return ScriptedReply(
            text="The booking server needs the details from you: fill in its form below.\n\n",
            tool_calls=[ScriptedCall(BOOK_TOOL, args)],
        )
    tool = next((name for name in SUMMARY_TOOLS if name in names), None)
    if tool is not None and _ASKS_TO_SUMMARISE.search(lowered):
        source = _after_instruction(text)
        args = {STATUS_PARAM: "summarising", COMPLETION_PARAM: "summarised", "text": source}
        return ScriptedReply(tool_calls=[ScriptedCall(tool, args)])
    return None


def asking_things(names: set[str]) -> list[tuple[str, str]]:
    """``(what, a message that shows it)`` for these tools, as "What can you do?" lists them."""
    things = []
    if BOOK_TOOL in names:
        things.append(("**book a table** (the server asks you for the details)", "Book a table"))
    if any(name in names for name in SUMMARY_TOOLS):
        things.append(("**summarise** a text (the server asks me)", "Summarise this: ..."))
    return things


def sampling_reply(request: ModelRequest) -> str:
    """The demo's answer to a tool server's prompt (``purpose="sampling"``)."""
    system = " ".join(
        str(m.get("content", "")) for m in request.messages if m.get("role") == "system"
    )
    prompt = last_user_text(request)
    limit = request.max_tokens * CHARS_PER_TOKEN if request.max_tokens else _DEFAULT_LIMIT
    if not _ASKS_TO_SUMMARISE.search(f"{system}\n{prompt}".lower()):
        return _cut(SAMPLING_OFFLINE, limit)
    text = " ".join(_after_instruction(prompt).split())
    if not text:
        return _cut("There is no text to summarise.", limit)
    first = _SENTENCE.match(text)
    return _cut(first.group() if first else text, limit)


def _after_instruction(text: str) -> str:
    """``"Summarise this: X"`` -> ``"X"``; a text with no instruction before a colon, whole."""
    head, colon, rest = text.partition(":")
    if colon and _ASKS_TO_SUMMARISE.search(head.lower()) and len(head) < 80:
        return rest.strip()
    return text.strip()


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut between words with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[: max(1, limit - 1)]
    return (head.rsplit(" ", 1)[0] if " " in head else head) + "…"
