"""Thread messages and tool schemas in AG-UI form.

The history the model reads (``models/history.py``) is already the chat
format AG-UI's messages copy; this adds the ids AG-UI requires, derived from
the thread's so a message keeps its id from run to run.

One id scheme serves the streamed events and ``MESSAGES_SNAPSHOT`` alike, so
a client that merges messages by id (as ``@ag-ui/client`` does) keeps the
history in order across runs: a model step is one assistant message, named by
the part it starts at (``step_message_id``), whatever text parts and tool
calls it streams; a reasoning part is a reasoning message of its own
(``reasoning_message_id``); a call's result is ``result_message_id``.

A reasoning part a provider signed or encrypted (Anthropic's thinking
signature, a Responses reasoning item's ``encrypted_content``, both kept as a
thinking block's ``signature`` in its ``provider_data``) carries that
artefact as the reasoning message's ``encryptedValue``
(``reasoning_encrypted_value``): the value itself when there is one, a JSON
array of them when the part holds several blocks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from ag_ui.core import SystemMessage as AGUISystemMessage

from ..messages import Message as ThreadMessage
from ..messages import Part, ReasoningPart, TextPart, ToolCallPart
from ..models.history import DEFAULT_MAX_RESULT_CHARS, assistant_messages, step_ranges
from ..models.history import user_content as _user_content


def result_message_id(tool_call_id: str) -> str:
    """The id of the tool message that answers a call."""
    return f"{tool_call_id}:result"


def step_message_id(message_id: str, start: int) -> str:
    """The id of the assistant message of the model step starting at part ``start``."""
    return message_id if start == 0 else f"{message_id}:{start}"


def reasoning_message_id(message_id: str, part: int) -> str:
    """The id of the reasoning message of part ``part`` (never a step's id)."""
    return f"{message_id}:{part}:reasoning"


def reasoning_encrypted_value(part: ReasoningPart) -> str | None:
    """The provider's opaque artefacts of a reasoning part, or None when it has none."""
    found: list[str] = []
    for data in (part.provider_data or {}).values():
        blocks = data.get("parts") if isinstance(data, dict) else None
        for block in blocks if isinstance(blocks, list) else ():
            signature = block.get("signature") if isinstance(block, dict) else None
            if isinstance(signature, str) and signature:
                found.append(signature)
    if not found:
        return None
    return found[0] if len(found) == 1 else json.dumps(found)


def part_step_message_id(message: ThreadMessage, part: int) -> str:
    """The id of the assistant message that part ``part`` of ``message`` streams into."""
    starts = [first for first, _ in step_ranges(message) if first <= part]
    return step_message_id(message.id, max(starts, default=0))


def _said(part: Part) -> bool:
    """A part that streams into its step's assistant message (text or a model's call)."""
    if isinstance(part, ToolCallPart):
        return not getattr(part, "synthetic", False)
    return isinstance(part, TextPart)


def _agui_calls(entry: dict[str, Any]) -> list[ToolCall]:
    return [
        ToolCall(
            id=c["id"],
            function=FunctionCall(name=c["function"]["name"], arguments=c["function"]["arguments"]),
        )
        for c in entry.get("tool_calls", ())
    ]


def _assistant(
    message: ThreadMessage, max_result_chars: int | None, as_streamed: bool
) -> list[Message]:
    """One assistant message per model step (with its tool messages after it);
    ``as_streamed``: a step's reasoning parts around it, where the stream put
    them, and no tool message for a call still waiting."""
    waiting = (
        {p.tool_call_id for p in message.tool_calls if not p.has_result} if as_streamed else set()
    )
    groups: list[list[dict[str, Any]]] = []
    for entry in assistant_messages(message, max_result_chars=max_result_chars):
        if entry["role"] == "assistant":
            groups.append([entry])
        else:
            groups[-1].append(entry)
    steps = iter(groups)
    out: list[Message] = []
    for start, end in step_ranges(message):
        parts = message.parts[start:end]
        said = [i for i, p in enumerate(parts) if _said(p)]
        anchor = said[0] if said else len(parts)  # where the stream opened the step's message
        thoughts = [
            (
                i,
                ReasoningMessage(
                    id=reasoning_message_id(message.id, start + i),
                    content=p.text,
                    encrypted_value=reasoning_encrypted_value(p),
                ),
            )
            for i, p in enumerate(parts)
            if as_streamed and isinstance(p, ReasoningPart) and p.text
        ]
        out.extend(m for i, m in thoughts if i < anchor)
        if any(_said(p) and (isinstance(p, ToolCallPart) or bool(p.text)) for p in parts):
            entry, *results = next(steps)
            out.append(
                AssistantMessage(
                    id=step_message_id(message.id, start),
                    content=entry.get("content"),
                    tool_calls=_agui_calls(entry) or None,
                )
            )
            out.extend(
                ToolMessage(
                    id=result_message_id(r["tool_call_id"]),
                    tool_call_id=r["tool_call_id"],
                    content=r["content"],
                )
                for r in results
                if r["tool_call_id"] not in waiting
            )
        out.extend(m for i, m in thoughts if i >= anchor)
    return out


def to_agui_messages(
    messages: Iterable[ThreadMessage],
    *,
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
    as_streamed: bool = False,
) -> list[Message]:
    """The messages as AG-UI messages: one assistant message per model step,
    each followed by the tool messages answering its calls (a call with no
    result yet answered with an error, as a model reads it). ``as_streamed``:
    what a client rebuilds from our stream instead (the snapshots we send):
    the reasoning parts as reasoning messages too, and a waiting call left
    unanswered, for the client to resume."""
    out: list[Message] = []
    for message in messages:
        if message.role == "assistant":
            out.extend(_assistant(message, max_result_chars, as_streamed))
        elif message.role == "user":
            out.append(UserMessage(id=message.id, content=_user_content(message)))
        else:
            out.append(AGUISystemMessage(id=message.id, content=_user_content(message)))
    return out


def to_agui_tools(schemas: Sequence[dict[str, Any]]) -> list[Tool]:
    """OpenAI function schemas as AG-UI tools (frontend tools, run in the kernel)."""
    tools = []
    for schema in schemas:
        function = schema.get("function", schema)
        tools.append(
            Tool(
                name=function["name"],
                description=function.get("description") or "",
                parameters=function.get("parameters") or {"type": "object", "properties": {}},
            )
        )
    return tools
