"""The ``A2UI`` component: the model's ``show_a2ui`` tool.

A built-in component like Form (its props stream to the browser, which draws
each surface as its messages arrive; ``js/src/a2ui/``), whose props are A2UI
messages checked against the spec's schemas before the call succeeds, and
whose state is what the user entered, per surface, as JSON Pointer -> value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from ..components.component import Component
from ..errors import ToolArgumentsError
from ..messages import Thread
from ._validate import (
    A2UI_CALLS,
    A2UI_TOOL,
    AGENT_A2UI_TOOL,
    MAX_DATA_DEPTH,
    A2UIError,
    check_messages,
    message_version,
)

__all__ = [
    "A2UI",
    "A2UI_CALLS",
    "A2UI_TOOL",
    "AGENT_A2UI_TOOL",
    "A2UIComponent",
    "A2UIProps",
    "A2UIState",
]


MAX_EDITS = 500
"""Most data-model values the user's input may set on one surface (each
pointer at most ``MAX_DATA_DEPTH`` deep)."""

_BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"

DESCRIPTION = (
    "Show an interactive UI to the user as A2UI v0.9 messages (Google's declarative "
    "agent-to-UI JSON, basic catalog only: Text, Image, Icon, Row, Column, List, Card, "
    "Tabs, Divider, Button, TextField, CheckBox, ChoicePicker, Slider, DateTimeInput). "
    'Send {"version": "v0.9", "createSurface": {"surfaceId": "s1", "catalogId": '
    f'"{_BASIC}"}}}}, then {{"version": "v0.9", "updateComponents": {{"surfaceId": "s1", '
    '"components": [...]}}} with one component of id "root" (children by id; a value is a '
    'literal or {"path": "/json/pointer"} into the data model), then optionally '
    '{"version": "v0.9", "updateDataModel": {"surfaceId": "s1", "path": "/", "value": {...}}}. '
    'A Button needs "child" (a Text id) and "action": {"event": {"name": "...", "context": '
    '{"key": {"path": "/field"}}}}; when the user presses it you get the event with its '
    "context resolved as the next user message."
)


class A2UIProps(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    messages: list[dict[str, Any]] = Field(
        description='A2UI messages in order (v0.9: each with "version": "v0.9")'
    )


class A2UIState(BaseModel):
    """What the user entered: surface id -> {JSON Pointer: value}."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    data: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)

    @field_validator("data")
    @classmethod
    def _pointers(cls, data: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for surface, edits in data.items():
            if len(edits) > MAX_EDITS:
                raise ValueError(f"surface {surface!r}: more than {MAX_EDITS} values")
            for pointer in edits:
                if not pointer.startswith("/"):
                    raise ValueError(f"{pointer[:80]!r} is not a JSON Pointer (it starts with '/')")
                if pointer.count("/") > MAX_DATA_DEPTH:
                    raise ValueError(f"{pointer[:80]!r} is deeper than {MAX_DATA_DEPTH} levels")
        return data


class A2UIComponent(Component):
    """Renders A2UI surfaces; opt in with ``gu.Chat(components=[gu.A2UI])``."""

    updatable = False
    """No ``update_component_<id>`` tool: the model sends more messages instead."""

    def __init__(self) -> None:
        super().__init__(
            "A2UI", A2UIProps, description=DESCRIPTION, state=A2UIState, builtin="a2ui"
        )

    def validate_props(self, props: Mapping[str, Any]) -> BaseModel:
        model = super().validate_props(props)
        try:
            check_messages(getattr(model, "messages", None))
        except A2UIError as exc:
            raise ToolArgumentsError(f"{exc}. Fix this and call {A2UI_TOOL} again.") from None
        return model

    def check_in_thread(self, props: BaseModel, thread: Thread) -> None:
        """The thread's surfaces with this call's messages stay within their limits."""
        from ._thread import check_in_thread

        messages = getattr(props, "messages", None) or []
        try:
            check_in_thread(thread, messages, [message_version(m) for m in messages])
        except A2UIError as exc:
            raise ToolArgumentsError(f"{exc}. Fix this and call {A2UI_TOOL} again.") from None


A2UI = A2UIComponent()
