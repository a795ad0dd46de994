"""``tool_choice``: what the model may or must call, checked before any request."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...tools.component_names import UI_TOOL_PREFIX

__all__ = ["KEYWORDS", "resolve_tool_choice"]

KEYWORDS = ("auto", "required", "none")


def resolve_tool_choice(choice: str | None, tool_names: Sequence[str]) -> str | dict[str, Any]:
    """The OpenAI ``tool_choice`` value for a user's choice.

    None -> ``"auto"``; ``"auto"`` / ``"required"`` / ``"none"`` pass through;
    a tool's name forces that tool; a component's name forces its
    ``show_component_<Name>`` tool. Anything else raises ``ValueError``
    naming the available tools, so a typo fails before any request is made.
    """
    if choice is None:
        return "auto"
    if not isinstance(choice, str):
        raise TypeError(f"tool_choice must be a string or None, got {type(choice).__name__}")
    if choice == "required" and not tool_names:
        raise ValueError("tool_choice 'required' needs at least one tool, and there are none")
    if choice in KEYWORDS:
        return choice
    if choice in tool_names:
        name = choice
    elif UI_TOOL_PREFIX + choice in tool_names:
        name = UI_TOOL_PREFIX + choice
    else:
        available = ", ".join(sorted(tool_names)) or "(no tools)"
        raise ValueError(
            f"tool_choice {choice!r} is not 'auto', 'required', 'none' or a known tool; "
            f"available tools: {available}"
        )
    return {"type": "function", "function": {"name": name}}
