"""A thread's A2UI surfaces, and a pressed button as the model's next input.

The surfaces are rebuilt from the thread each time (the ``show_a2ui`` calls
that succeeded, in order, each followed by what the user entered on it), so
they survive save and load with nothing stored beside the parts.
"""

from __future__ import annotations

import datetime
import json
import re
import weakref
from typing import Any

from .._internal.json_depth import value_depth
from ..messages import Thread, ToolCallPart
from ..tools.component_names import component_id_of
from . import _validate
from ._surfaces import Surface, apply_messages, pointer_set, resolve_value
from ._validate import A2UI_CALLS, A2UIError, check_messages, too_deep, too_large, too_many

__all__ = [
    "action_event",
    "action_summary",
    "action_text",
    "check_in_thread",
    "checked_versions",
    "redrawn_props",
    "surface_id_of",
    "thread_surfaces",
]


_CHECKED: dict[int, tuple[weakref.ref[ToolCallPart], Any, list[str] | None]] = {}
"""Each A2UI call's messages as checked once: part id -> (the part, the
messages checked, their versions or None when they failed), so building
the surfaces again (``surfaces()``, a button press) checks nothing again."""


def checked_versions(part: ToolCallPart) -> list[str] | None:
    """The versions of ``part``'s messages (checked the first time only), or
    None when they do not pass (a call saved by another version of the rules)."""
    messages = (part.args or {}).get("messages")
    cached = _CHECKED.get(id(part))
    if cached is not None and cached[0]() is part and cached[1] is messages:
        return cached[2]
    try:
        versions: list[str] | None = check_messages(messages)
    except A2UIError:
        versions = None
    key = id(part)
    _CHECKED[key] = (weakref.ref(part, lambda _ref: _CHECKED.pop(key, None)), messages, versions)
    return versions


def _build(thread: Thread) -> dict[str, Surface]:
    surfaces: dict[str, Surface] = {}
    for message in thread.messages:
        for part in message.tool_calls:
            if part.tool_name not in A2UI_CALLS or not part.has_result or part.is_error:
                continue
            versions = checked_versions(part)
            if versions is None:
                continue  # a call saved by another version of the rules: skip it
            apply_messages(surfaces, part.args["messages"], versions)
            state = part.component_state or {}
            for surface_id, edits in (state.get("data") or {}).items():
                surface = surfaces.get(surface_id)
                if surface is None or surface.deleted:
                    continue
                for pointer, value in edits.items():
                    surface.data = pointer_set(surface.data, pointer, value)
    return surfaces


def check_in_thread(thread: Thread, messages: list[Any], versions: list[str]) -> None:
    """Refuse (``A2UIError``) a call whose messages would take the thread's
    surfaces past their limits: components per surface and in all, the data
    model's depth and size."""
    limits = _validate  # read when called (a test lowers them)
    surfaces = _build(thread)
    apply_messages(surfaces, messages, versions)
    live = [s for s in surfaces.values() if not s.deleted]
    for surface in live:
        if len(surface.components) > limits.MAX_SURFACE_COMPONENTS:
            raise too_many(surface.surface_id)
        if value_depth(surface.data, limits.MAX_DATA_DEPTH) > limits.MAX_DATA_DEPTH:
            raise too_deep()
        size = len(json.dumps(surface.data, ensure_ascii=False, default=str))
        if size > limits.MAX_DATA_CHARS:
            raise too_large(size)
    total = sum(len(s.components) for s in live)
    most = limits.MAX_THREAD_COMPONENTS
    if total > most:
        raise A2UIError(
            f"refused: more than {most:,} components in this thread's surfaces "
            f"(limit {most:,}); delete a surface (deleteSurface) first"
        )


def surface_id_of(message: Any) -> str | None:
    """The ``surfaceId`` an A2UI message (v0.8 or v0.9) is for, if it names one."""
    if isinstance(message, dict):
        for body in message.values():
            if isinstance(body, dict) and isinstance(body.get("surfaceId"), str):
                return str(body["surfaceId"])
    return None


def redrawn_props(thread: Thread) -> dict[str, dict[str, Any]]:
    """Component id -> props, for each call whose surfaces later calls changed:
    its own messages followed by theirs for those surfaces, so the browser
    redraws the surface where it first appeared (``component_props``)."""
    owner: dict[str, str] = {}  # surface id -> the call that first drew it
    merged: dict[str, list[Any]] = {}
    changed: set[str] = set()
    for message in thread.messages:
        for part in message.tool_calls:
            if part.tool_name not in A2UI_CALLS or not part.has_result or part.is_error:
                continue
            messages = (part.args or {}).get("messages")
            if not isinstance(messages, list):
                continue
            call = component_id_of(part.tool_call_id)
            merged[call] = list(messages)
            for entry in messages:
                surface = surface_id_of(entry)
                if surface is None:
                    continue
                first = owner.setdefault(surface, call)
                if first != call:
                    merged[first].append(entry)
                    changed.add(first)
    return {call: {"messages": merged[call]} for call in changed}


def thread_surfaces(thread: Thread) -> list[dict[str, Any]]:
    """Each live surface: ``surface_id``, ``version``, ``catalog_id``, ``root``,
    ``components`` (id -> the component, in v0.9's flat form) and ``data``
    (its data model, with the user's input)."""
    return [s.as_dict() for s in _build(thread).values() if not s.deleted]


def action_event(
    thread: Thread, tool_call_id: str, surface_id: str, component_id: str
) -> dict[str, Any]:
    """The A2UI v0.9 ``action`` message for a pressed button: its event's name
    and context, each path read from the surface's data model now.

    The browser names only the button; the event comes from the surface the
    kernel holds, so a view cannot invent one. Raises ``ValueError``.
    """
    found = thread.find_tool_call(tool_call_id)
    if found is None or found[1].tool_name not in A2UI_CALLS:
        raise ValueError(f"no A2UI surface was shown by tool call {tool_call_id!r}")
    surface = _build(thread).get(surface_id)
    if surface is None or surface.deleted:
        raise ValueError(f"no A2UI surface {surface_id!r} in this chat")
    component = surface.components.get(component_id)
    if component is None:
        raise ValueError(f"surface {surface_id!r} has no component {component_id!r}")
    action = component.get("action")
    event = action.get("event") if isinstance(action, dict) else None
    if not isinstance(event, dict) or not isinstance(event.get("name"), str):
        raise ValueError(
            f"component {component_id!r} has no server event to send "
            "(client-side functionCall actions are not supported)"
        )
    given = event.get("context")
    context: dict[str, Any] = given if isinstance(given, dict) else {}
    return {
        "version": "v0.9",
        "action": {
            "name": event["name"],
            "surfaceId": surface_id,
            "sourceComponentId": component_id,
            "timestamp": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "context": {k: resolve_value(v, surface.data) for k, v in context.items()},
        },
    }


MAX_QUOTED_CHARS = 80
"""Characters of a model-written name the user message's first line quotes."""

_HIDDEN = re.compile(
    "[`\x7f-\x9f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e0fff]"
)
"""Characters written as JSON escapes in the text, beyond the controls
``json.dumps`` escapes itself: the other line breaks and controls, the
invisible and bidi ones (what reads one way and runs another), and backticks
(which could close the message's code fence)."""


def _escaped(json_text: str) -> str:
    """JSON text with each ``_HIDDEN`` character as its ``\\uXXXX`` escape: they
    sit only inside its strings (``json.dumps`` writes nothing else but ASCII),
    where the escape means the same."""
    return _HIDDEN.sub(lambda m: _utf16_escape(m.group()), json_text)


def _utf16_escape(char: str) -> str:
    units = char.encode("utf-16-be")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def _quoted(text: str) -> str:
    """Model-written ``text`` as a bounded, escaped JSON string: data on one line."""
    short = text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 1] + "…"
    return _escaped(json.dumps(short, ensure_ascii=False))


def action_text(event: dict[str, Any]) -> str:
    """The user message an action becomes: a line to read, then the A2UI JSON.

    The event's name and surface id are the model's own text: the line quotes
    them as JSON strings (bounded, line breaks and bidi characters escaped) and
    says so, so no name reads as the user's words; the JSON block keeps them
    exact for the model, escaped the same way.
    """
    action = event["action"]
    head = (
        f"Pressed a button on an A2UI surface: the model's event {_quoted(action['name'])} "
        f"on its surface {_quoted(action['surfaceId'])} (both quoted as the model wrote them)."
    )
    block = _escaped(json.dumps(event, ensure_ascii=False, indent=1))
    return f"{head}\n\n```json\n{block}\n```"


MAX_SUMMARY_LABEL = 40
"""Characters of the button's label (or a field's name) the summary keeps."""
MAX_SUMMARY_FIELDS = 6
"""Fields the summary names; the rest are counted ("+3 more")."""


def _short(text: str, most: int = MAX_SUMMARY_LABEL) -> str:
    """Model-written ``text`` on one line, without hidden characters, bounded."""
    flat = " ".join(_HIDDEN.sub("", text).split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def _button_label(thread: Thread, action: dict[str, Any]) -> str:
    """The text on the pressed button (its child Text), else the event's name."""
    surface = _build(thread).get(action["surfaceId"])
    text = None
    if surface is not None:
        button = surface.components.get(action["sourceComponentId"]) or {}
        child = surface.components.get(str(button.get("child"))) or {}
        text = resolve_value(child.get("text"), surface.data)
    return _short(text) if isinstance(text, str) and text.strip() else _short(action["name"])


def action_summary(thread: Thread, event: dict[str, Any]) -> str:
    """The line the chat shows for a pressed button instead of its JSON
    (which stays the message's text, behind a Details disclosure): the
    button's label and the fields it sent, a checkbox's as on or off, e.g.
    ``Pressed Join: name, email, digest off``."""
    action = event["action"]
    fields = [
        f"{_short(key)} {'on' if value else 'off'}" if isinstance(value, bool) else _short(key)
        for key, value in action["context"].items()
    ]
    shown = fields[:MAX_SUMMARY_FIELDS]
    if len(fields) > len(shown):
        shown.append(f"+{len(fields) - len(shown)} more")
    head = f"Pressed {_button_label(thread, action)}"
    return f"{head}: {', '.join(shown)}" if shown else head
