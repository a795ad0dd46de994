"""Thread messages and tool schemas in AG-UI form.

The history the model reads (``_loop/history.py``) is already the chat
format AG-UI's messages copy; this adds the ids AG-UI requires, derived from
the thread's so a message keeps its id from run to run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from ag_ui.core import SystemMessage as AGUISystemMessage

from .._loop.history import DEFAULT_MAX_RESULT_CHARS, to_openai_messages
from ..messages import Message as ThreadMessage


def result_message_id(tool_call_id: str) -> str:
    """The id of the tool message that answers a call."""
    return f"{tool_call_id}:result"


def to_agui_messages(
    messages: Iterable[ThreadMessage], *, max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS
) -> list[Message]:
    """The messages as AG-UI messages: one assistant message per model step,
    each followed by the tool messages answering its calls."""
    out: list[Message] = []
    for message in messages:
        entries = to_openai_messages([message], max_result_chars=max_result_chars)
        step = 0
        for entry in entries:
            role = entry["role"]
            if role == "tool":
                out.append(
                    ToolMessage(
                        id=result_message_id(entry["tool_call_id"]),
                        tool_call_id=entry["tool_call_id"],
                        content=entry["content"],
                    )
                )
            elif role == "assistant":
                calls = [
                    ToolCall(
                        id=c["id"],
                        function=FunctionCall(
                            name=c["function"]["name"], arguments=c["function"]["arguments"]
                        ),
                    )
                    for c in entry.get("tool_calls", ())
                ]
                out.append(
                    AssistantMessage(
                        id=message.id if step == 0 else f"{message.id}:{step}",
                        content=entry.get("content"),
                        tool_calls=calls or None,
                    )
                )
                step += 1
            elif role == "user":
                out.append(UserMessage(id=message.id, content=entry["content"]))
            else:
                out.append(AGUISystemMessage(id=message.id, content=entry["content"]))
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
