"""The registry as the model sees it: each tool's and component's schema.

The runtime offers every tool and every component's ``show_component_<Name>``
tool with the two standard parameters added (``_internal/standard_params.py``),
and names the UI tools in its system prompt. These are the exact entries of
a request's ``tools`` list (``Tool.openai_schema(standard_parameters=True)``,
as the run loop builds them), so what is counted and exported is what is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..runtime.prompts import system_prompt
from ..tools import Tool, as_tool, expand_tools

__all__ = ["RegistryEntry", "registry_entries", "registry_tools", "system_prompt_line"]


@dataclass(frozen=True)
class RegistryEntry:
    """One tool of the registry: ``kind`` says whether it shows a component."""

    kind: Literal["tool", "component"]
    name: str
    """The tool's name, or the component's (``Chart``, not ``show_component_Chart``)."""
    tool: Tool
    schema: dict[str, Any]
    """The ``{"type": "function", ...}`` entry the model is sent."""


def registry_tools(components: Iterable[Any] = (), tools: Iterable[Any] = ()) -> list[Tool]:
    """``tools=`` and ``components=`` as the runtime's Tools, tools first (its order)."""
    made = [*expand_tools(tools), *map(as_tool, components)]
    seen: set[str] = set()
    for tool in made:
        if tool.name in seen:
            raise ValueError(f"two tools are named {tool.name!r}")
        seen.add(tool.name)
    return made


def registry_entries(
    components: Iterable[Any] = (), tools: Iterable[Any] = ()
) -> list[RegistryEntry]:
    """Each tool and component with the schema the model is sent."""
    entries = []
    for tool in registry_tools(components, tools):
        kind: Literal["tool", "component"] = "component" if tool.component else "tool"
        entries.append(
            RegistryEntry(
                kind,
                tool.component or tool.name,
                tool,
                tool.openai_schema(standard_parameters=True),
            )
        )
    return entries


def system_prompt_line(component_names: Sequence[str]) -> str:
    """What the registry adds to the system prompt: the line naming the UI tools."""
    if not component_names:
        return ""
    with_them = system_prompt(component_names=component_names)
    without = system_prompt()
    # the prompt is a template: the difference is the inserted line
    start = next(
        (i for i, (a, b) in enumerate(zip(with_them, without, strict=False)) if a != b),
        len(without),
    )
    extra = len(with_them) - len(without)
    return with_them[start : start + extra]
