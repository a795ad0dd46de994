"""Components as tools: the tool-name rules, and props schemas.

A registered component is offered to the model as a ``show_component_<Name>``
tool whose parameters are the component's props schema; calling it renders
the component. A shown component gets an id from its call's id, and an
``update_component_<id>`` tool changes its props. These rules live here only:
the widget sends the browser their results (``widget/_protocol.py``).
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "UI_TOOL_PREFIX",
    "UPDATE_PREFIX",
    "component_id_of",
    "component_name_of",
    "is_ui_tool",
    "props_json_schema",
    "ui_tool_name",
    "ui_tool_schema",
    "update_of",
]

UI_TOOL_PREFIX = "show_component_"
UPDATE_PREFIX = "update_component_"

_TOOL_NAMES = {"A2UI": "show_a2ui"}
"""Components whose tool is named by their standard, not ``show_component_<Name>``
(``ipygenui.a2ui``: the model knows A2UI by that name)."""
_NAMED_TOOLS = {tool: name for name, tool in _TOOL_NAMES.items()}
_NAMED_TOOLS["a2ui_surface"] = "A2UI"
"""An AG-UI agent's ``a2ui-surface`` activity (``agui/_activity.py``): the agent's
own call (no tool of the chat, so its answer stands), drawn by the A2UI component."""

# OpenAI function names: letters, digits, "_" and "-", at most 64 characters.
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64
_MAX_ID = _MAX_NAME - len(UPDATE_PREFIX)
_HASH_CHARS = 10


def ui_tool_name(component_name: str) -> str:
    """The tool name for a component: ``"Weather"`` -> ``"show_component_Weather"``."""
    if not _NAME.fullmatch(component_name):
        raise ValueError(
            f"component name {component_name!r} must use only letters, digits, '_' and '-'"
        )
    if component_name in _TOOL_NAMES:
        return _TOOL_NAMES[component_name]
    name = UI_TOOL_PREFIX + component_name
    if len(name) > _MAX_NAME:
        raise ValueError(
            f"component name {component_name!r} is too long: tool names are at most "
            f"{_MAX_NAME} characters, and {UI_TOOL_PREFIX!r} takes {len(UI_TOOL_PREFIX)}"
        )
    return name


def is_ui_tool(tool_name: str) -> bool:
    """True for a ``show_component_<Name>`` tool name (a non-empty Name), or ``show_a2ui``."""
    if tool_name in _NAMED_TOOLS:
        return True
    return tool_name.startswith(UI_TOOL_PREFIX) and len(tool_name) > len(UI_TOOL_PREFIX)


def component_name_of(tool_name: str) -> str | None:
    """The component a UI tool shows, or None for any other tool."""
    if tool_name in _NAMED_TOOLS:
        return _NAMED_TOOLS[tool_name]
    return tool_name[len(UI_TOOL_PREFIX) :] if is_ui_tool(tool_name) else None


def component_id_of(tool_call_id: str) -> str:
    """The id of a shown component: its call's id, made safe for a tool name.

    An id too long for ``update_component_<id>`` is cut and ends with a hash
    of the whole call id, so two calls whose ids share a long prefix still
    name two components.
    """
    safe = _UNSAFE.sub("_", tool_call_id)
    if len(safe) <= _MAX_ID:
        return safe
    digest = hashlib.sha256(tool_call_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{safe[: _MAX_ID - _HASH_CHARS - 1]}_{digest[:_HASH_CHARS]}"


def update_of(tool_name: str) -> str | None:
    """The component id an ``update_component_<id>`` tool name targets, else None."""
    if tool_name.startswith(UPDATE_PREFIX) and len(tool_name) > len(UPDATE_PREFIX):
        return tool_name[len(UPDATE_PREFIX) :]
    return None


def props_json_schema(props: Any) -> dict[str, Any]:
    """A JSON object schema for a component's props.

    Accepts a pydantic model class or a JSON-schema dict. Pydantic ``$defs``
    are kept (OpenAI resolves local ``$ref``), the model's ``title`` dropped.
    """
    if isinstance(props, Mapping):
        schema = copy.deepcopy(dict(props))
    elif isinstance(props, type) and hasattr(props, "model_json_schema"):
        schema = props.model_json_schema()
    else:
        raise TypeError(
            f"props must be a pydantic model class or a JSON-schema dict, got {props!r}"
        )
    if schema.get("type", "object") != "object":
        raise ValueError(f"a props schema must describe an object, got type {schema['type']!r}")
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema.pop("title", None)
    return schema


def ui_tool_schema(component_name: str, props: Any, description: str = "") -> dict[str, Any]:
    """The OpenAI tool schema (without standard parameters) for a component."""
    text = f"Show the {component_name} UI component to the user."
    if component_name in _TOOL_NAMES:
        text = ""
    if description:
        text += f" About the component: {description}" if text else description
    return {
        "type": "function",
        "function": {
            "name": ui_tool_name(component_name),
            "description": text,
            "parameters": props_json_schema(props),
        },
    }
