"""Export a registry: its tool schemas as JSON, and the thread its static HTML gallery shows.

The schemas are the ones a request carries (``_schemas.py``), in OpenAI's
chat-completions shape (``{"type": "function", "function": {...}}``) or
MCP's (``{"name", "description", "inputSchema"}``).

The gallery's thread (``gallery_thread``) has one reply per component, each
showing the component from its sample props (``_preview.samples_for``:
examples, defaults, generated props and edge cases); samples that fail
validation are listed with the error the model would get. The chat widget
renders it into a static page (``gallery.py``, which imports the chat widget).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from ..components.component import Component
from ..messages import Complete, Message, TextPart, Thread, ToolCallPart, new_id
from ._schemas import registry_entries

__all__ = ["gallery_thread", "tool_schemas", "write_schemas"]

SchemaShape = Literal["openai", "mcp"]


def tool_schemas(
    components: Iterable[Any] = (),
    tools: Iterable[Any] = (),
    *,
    shape: SchemaShape = "openai",
    standard_parameters: bool = True,
) -> list[dict[str, Any]]:
    """Every tool's and component's schema, as the model is sent it.

    ``shape="openai"``: chat-completions ``tools`` entries; ``"mcp"``: MCP
    ``Tool`` objects (``name``, ``description``, ``inputSchema``).
    ``standard_parameters=False`` leaves out the two status parameters the
    runtime adds (a client that is not ipygenui does not strip them).
    """
    if shape not in ("openai", "mcp"):
        raise ValueError(f"shape must be 'openai' or 'mcp', got {shape!r}")
    out = []
    for entry in registry_entries(components, tools):
        schema = entry.tool.openai_schema(standard_parameters=standard_parameters)
        if shape == "openai":
            out.append(schema)
        else:
            function = schema["function"]
            out.append(
                {
                    "name": function["name"],
                    "description": function["description"],
                    "inputSchema": function["parameters"],
                }
            )
    return out


def write_schemas(
    path: str | os.PathLike[str],
    components: Iterable[Any] = (),
    tools: Iterable[Any] = (),
    *,
    shape: SchemaShape = "openai",
    standard_parameters: bool = True,
) -> Path:
    """``tool_schemas(...)`` written to ``path`` as indented JSON; returns the path."""
    schemas = tool_schemas(components, tools, shape=shape, standard_parameters=standard_parameters)
    target = Path(path)
    target.write_text(json.dumps(schemas, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def _samples(component: Component) -> list[Any]:
    from ._preview import samples_for  # the workbench's own sample props

    return samples_for(component)


def _component_message(component: Component) -> Message:
    about = f"\n\n{component.description}" if component.description else ""
    parts: list[Any] = [TextPart(text=f"## {component.name}{about}")]
    failed = []
    for sample in _samples(component):
        if sample.error is not None:
            failed.append(f"- **{sample.label}**: {sample.error}")
            continue
        parts.append(TextPart(text=f"\n\n#### {sample.label}\n\n"))
        parts.append(
            ToolCallPart(
                tool_call_id=new_id("call"),
                tool_name=component.tool_name,
                args_text=json.dumps(sample.props),
                args=sample.props,
                args_complete=True,
                result=f"Component {component.name} was rendered",
                has_result=True,
                component=component.name,
                completion_status_message=f"{component.name}: {sample.label}",
            )
        )
    if failed:
        errors = "\n".join(failed)
        parts.append(TextPart(text=f"\n\nSamples the model would be told are invalid:\n\n{errors}"))
    return Message(role="assistant", parts=parts, status=Complete(reason="stop"))


def gallery_thread(components: Sequence[Component]) -> Thread:
    """A thread with one reply per component, showing it from each valid sample."""
    listed = ", ".join(c.name for c in components) or "none"
    messages = [Message(role="user", parts=[TextPart(text=f"Component gallery: {listed}")])]
    messages += [_component_message(c) for c in components]
    return Thread(messages=messages, title="Component gallery")
