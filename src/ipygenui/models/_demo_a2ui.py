"""The demo model's A2UI: a small v0.9 form it shows when asked for A2UI,
and its answers once the form is shown and once its button is pressed."""

from __future__ import annotations

import json
from typing import Any

from .base import ModelRequest

__all__ = ["A2UI_ARGS_CHUNK", "A2UI_FORM", "A2UI_TOOL", "a2ui_answer"]

A2UI_TOOL = "show_a2ui"
_BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
_SURFACE = "demo_signup"


def _v09(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"version": "v0.9", kind: {"surfaceId": _SURFACE, **body}}


A2UI_FORM: list[dict[str, Any]] = [
    _v09("createSurface", {"catalogId": _BASIC}),
    _v09(
        "updateComponents",
        {
            "components": [
                {"id": "root", "component": "Card", "child": "body"},
                {
                    "id": "body",
                    "component": "Column",
                    "children": ["title", "name", "email", "news", "actions"],
                },
                {
                    "id": "title",
                    "component": "Text",
                    "text": "Join the newsletter",
                    "variant": "h3",
                },
                {
                    "id": "name",
                    "component": "TextField",
                    "label": "Name",
                    "value": {"path": "/name"},
                },
                {
                    "id": "email",
                    "component": "TextField",
                    "label": "Email",
                    "value": {"path": "/email"},
                },
                {
                    "id": "news",
                    "component": "CheckBox",
                    "label": "Send me the monthly digest",
                    "value": {"path": "/digest"},
                },
                {"id": "actions", "component": "Row", "children": ["join"], "justify": "end"},
                {"id": "join_label", "component": "Text", "text": "Join"},
                {
                    "id": "join",
                    "component": "Button",
                    "child": "join_label",
                    "variant": "primary",
                    "action": {
                        "event": {
                            "name": "join",
                            "context": {
                                "name": {"path": "/name"},
                                "email": {"path": "/email"},
                                "digest": {"path": "/digest"},
                            },
                        }
                    },
                },
            ]
        },
    ),
    _v09("updateDataModel", {"path": "/", "value": {"name": "", "email": "", "digest": True}}),
]
"""What the demo shows for "show me an A2UI form": small, as its arguments
stream at the demo's pace before the reply goes on."""

A2UI_ARGS_CHUNK = 32
"""Characters of the form's JSON per streamed piece: a model writes a long
JSON argument faster than prose, and the form shows in about a second."""

_SHOWN = (
    "There it is, above: an A2UI surface. Fill it in and press **Join**: the button's "
    "event, with what you typed, comes back to me as your next message."
)


def _last_call_names(request: ModelRequest) -> list[str]:
    for entry in reversed(request.messages):
        if entry.get("role") == "assistant":
            return [c["function"]["name"] for c in entry.get("tool_calls") or []]
    return []


def _action_of(text: str) -> dict[str, Any] | None:
    if "```json" not in text or "A2UI surface" not in text:
        return None
    try:
        event = json.loads(text.split("```json", 1)[1].rsplit("```", 1)[0])
    except ValueError:
        return None
    action = event.get("action") if isinstance(event, dict) else None
    return action if isinstance(action, dict) else None


def a2ui_answer(request: ModelRequest, text: str) -> str | None:
    """The demo's words after its A2UI form showed, or for a pressed button; else None."""
    if request.messages and request.messages[-1].get("role") == "tool":
        return _SHOWN if _last_call_names(request) == [A2UI_TOOL] else None
    action = _action_of(text)
    if action is None:
        return None
    given = action.get("context")
    context: dict[str, Any] = given if isinstance(given, dict) else {}
    name = str(context.get("name") or "").strip() or "friend"
    email = str(context.get("email") or "").strip()
    digest = "with" if context.get("digest") else "without"
    where = f" at {email}" if email else ""
    return (
        f"Thanks, {name}! I got the A2UI event **{action.get('name')}** from the surface "
        f"`{action.get('surfaceId')}`: you joined{where}, {digest} the monthly digest "
        "(demo only: nothing was sent anywhere)."
    )
