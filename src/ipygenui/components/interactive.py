"""Interactable components: user state in, ``update_component_<id>`` tools out.

- The frontend sends a shown component's state (debounced); it is validated
  against the component's state model and stored on the call's part
  (``component_state``), so it is saved with the thread and reaches the model
  on the next turn (``unreported_states`` rides on the next user message).
- Each successfully shown component gets an ``update_component_<id>`` tool
  whose parameters are its props, all optional: the model changes what is on
  screen instead of drawing it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, create_model

from .._internal.per_message import PerMessage
from .._internal.sanitize import json_safe
from ..messages import Approval, Message, Thread, ToolCallPart, new_id
from ..tools import Tool
from ..tools.component_names import UPDATE_PREFIX, component_id_of, component_name_of
from .component import Component
from .shown import effective_props

__all__ = [
    "StateReports",
    "UpdateComponentTool",
    "apply_app_context",
    "apply_component_state",
    "shown_app",
    "unreported_states",
    "update_tools",
]

MAX_UPDATE_TOOLS = 10
"""Only the most recent shown components get update tools (keeps requests small)."""


def _optional_model(props: type[BaseModel]) -> type[BaseModel]:
    fields: dict[str, Any] = {
        name: (Optional[info.annotation], Field(None, description=info.description))  # noqa: UP045
        for name, info in props.model_fields.items()
    }
    model: type[BaseModel] = create_model(
        f"{props.__name__}Update", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


class UpdateComponentTool(Tool):
    """``update_component_<id>``: change some props of a component already shown."""

    def __init__(self, component: Component, component_id: str, thread: Thread) -> None:
        super().__init__(
            UPDATE_PREFIX + component_id,
            f"Change props of the {component.name} component {component_id} shown earlier, "
            "in place. Pass only the props to change.",
            _optional_model(component.props),
            self._execute,
            component=component.name,
            pass_model=True,
        )
        self.spec = component
        self.component_id = component_id
        self.thread = thread

    def validate(self, args: Mapping[str, Any]) -> BaseModel:
        current = effective_props(self.thread).get(self.component_id, {})
        return self.spec.validate_props({**current, **dict(args)})

    async def _execute(self, props: BaseModel) -> str:
        self.spec.check(props)
        return f"Component {self.spec.name} {self.component_id} was updated"


def update_tools(
    thread: Thread, components: Iterable[Component], limit: int = MAX_UPDATE_TOOLS
) -> list[Tool]:
    """Update tools for the last ``limit`` successfully shown components."""
    registry = {c.name: c for c in components}
    shown: list[tuple[Component, str]] = []
    for message in thread.messages:
        for part in message.tool_calls:
            spec = registry.get(component_name_of(part.tool_name) or "")
            updatable = getattr(spec, "updatable", True)  # A2UI: more messages instead
            if spec is not None and updatable and part.has_result and not part.is_error:
                shown.append((spec, component_id_of(part.tool_call_id)))
    return (
        [UpdateComponentTool(spec, component_id, thread) for spec, component_id in shown[-limit:]]
        if limit
        else []
    )


def apply_component_state(
    thread: Thread, components: Iterable[Component], tool_call_id: str, state: Any
) -> tuple[Message, int, dict[str, Any]]:
    """Validate and store a user's state for a shown component.

    Returns (message, part index, validated state). Raises ``ValueError`` for
    an unknown call, a component that is not interactable, or invalid state;
    nothing changes then.
    """
    found = thread.find_tool_call(str(tool_call_id))
    if found is None:
        raise ValueError(f"no component shown by tool call {tool_call_id!r}")
    message, part = found
    name = component_name_of(part.tool_name)
    spec = {c.name: c for c in components}.get(name or "")
    if spec is None:
        raise ValueError(f"tool call {tool_call_id!r} did not show a registered component")
    validated = spec.validate_state(state)
    part.component_state = validated
    return message, message.parts.index(part), validated


def unreported_states(thread: Thread) -> dict[str, dict[str, Any]]:
    """Component id -> {component, state} for states the model has not seen yet.

    What the model saw is read back from earlier user messages' metadata, so
    the answer survives save and load with nothing extra stored.
    """
    return StateReports().unreported(thread)


def _stateful(message: Message) -> tuple[dict[str, Any], list[tuple[ToolCallPart, str]]] | None:
    """What ``message`` brings to :func:`unreported_states`: the states a user
    message reported, the calls whose state the user may change (with their
    component's name). The states themselves are read when asked: the user
    changes them in place. None: nothing."""
    if message.role == "user":
        states = message.metadata.get("component_state")
        return (states, []) if states else None
    parts = []
    for part in message.tool_calls:
        name = component_name_of(part.tool_name) or shown_app(part)
        if name:
            parts.append((part, name))
    return ({}, parts) if parts else None


class StateReports:
    """:func:`unreported_states` for one conversation, each message read once
    (kept per message, see ``_internal/per_message.py``)."""

    def __init__(self) -> None:
        self._cache = PerMessage(_stateful)
        self._found: list[tuple[int, tuple[dict[str, Any], list[tuple[ToolCallPart, str]]]]] = []
        """(index, what it brings) of the messages that bring something."""

    def unreported(self, thread: Thread) -> dict[str, dict[str, Any]]:
        """Component id -> {component, state} for states the model has not seen yet."""
        values = self._cache.values(thread.messages)
        kept, found = self._cache.kept, self._found
        while found and found[-1][0] >= kept:
            found.pop()
        found.extend((i, v) for i, v in enumerate(values[kept:], kept) if v)
        reported: dict[str, Any] = {}
        for _, (states, _) in found:
            for component_id, entry in states.items():
                reported[component_id] = entry.get("state")
        changed: dict[str, dict[str, Any]] = {}
        for _, (_, parts) in found:
            for part, name in parts:
                if part.component_state is not None:
                    component_id = component_id_of(part.tool_call_id)
                    if reported.get(component_id) != part.component_state:
                        changed[component_id] = {"component": name, "state": part.component_state}
        return changed


def shown_app(part: ToolCallPart) -> str | None:
    """The tool name of a call whose result shows an MCP app (else None): its
    context (``ui/update-model-context``) reaches the model as a state does."""
    result = part.result
    shown = result.get("for_user") if isinstance(result, dict) else None
    return part.tool_name if isinstance(shown, dict) and "mcp_app" in shown else None


APP_CALL = "mcp_app_call"
"""The tool name of the record an MCP app's own ``tools/call`` leaves in the thread."""
MAX_APP_CALL_RESULT_CHARS = 20_000
"""Characters of an app call's result the record keeps (as JSON)."""


def record_app_call(
    thread: Thread,
    app_call_id: str,
    tool: str,
    arguments: dict[str, Any],
    result: Any,
    is_error: bool,
    approved: bool,
) -> Message:
    """Record a ``tools/call`` an MCP app started and its server ran, on the
    message of the app's own call: a settled ``synthetic`` part (a card of its
    own, never in the model's history, like a server's request), whose
    arguments say which tool, with what, for which app and who decided."""
    found = thread.find_tool_call(str(app_call_id))
    if found is None or shown_app(found[1]) is None:
        raise ValueError(f"tool call {app_call_id!r} shows no MCP app")
    message = found[0]
    text = json.dumps(json_safe(result), ensure_ascii=False)
    kept = (
        json_safe(result)
        if len(text) <= MAX_APP_CALL_RESULT_CHARS
        else {"text": text[:MAX_APP_CALL_RESULT_CHARS] + "…", "truncated": True}
    )
    args = {
        "tool": tool,
        "arguments": json_safe(arguments),
        "app_call": app_call_id,
        "decided": (
            "approved by the user in the app's card"
            if approved
            else "ran without asking (the server marks the tool read-only)"
        ),
    }
    message.parts.append(
        ToolCallPart(
            tool_call_id=new_id("appcall"),
            tool_name=APP_CALL,
            args=args,
            args_text=json.dumps(args, ensure_ascii=False),
            args_complete=True,
            result=kept,
            has_result=True,
            is_error=is_error,
            approval=Approval(status="approved", decided_by="user") if approved else None,
            synthetic=True,
        )
    )
    return message


def apply_app_context(thread: Thread, tool_call_id: str, context: dict[str, Any]) -> Message:
    """Store an MCP app's latest context for the model (it replaces the one
    before: the model reads the last one, on its next turn)."""
    found = thread.find_tool_call(str(tool_call_id))
    if found is None or shown_app(found[1]) is None:
        raise ValueError(f"tool call {tool_call_id!r} shows no MCP app")
    message, part = found
    part.component_state = {"model_context": context}
    return message
