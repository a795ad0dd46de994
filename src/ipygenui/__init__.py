"""ipygenui: generative-UI agents inside Jupyter notebooks.

Public names load lazily so ``import ipygenui`` stays fast and the headless
runtime never pulls in widget code unless ``Chat`` is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Thread": "messages",
    "Message": "messages",
    "TextPart": "messages",
    "ReasoningPart": "messages",
    "ToolCallPart": "messages",
    "Approval": "messages",
    "BranchError": "messages",
    "Feedback": "messages",
    "Usage": "messages",
    "should_continue": "_loop.continuation",
    "tool": "tools",
    "Tool": "tools",
    "ToolArgumentsError": "tools",
    "ToolDefinitionError": "tools",
    "ToolError": "tools",
    "MCPTools": "mcp",
    "Runtime": "runtime",
    "Run": "runtime",
    "DecisionError": "runtime",
    "PersistenceConflictError": "persistence",
    "ThreadFileError": "persistence",
    "ScriptedReply": "models.scripted",
    "ScriptedCall": "models.scripted",
    "Model": "models.base",
    "ModelRequest": "models.base",
    "ModelError": "models.base",
    "ScriptedModel": "models.scripted",
    "DemoModel": "models.demo",
    "OpenAIModel": "models.openai",
    "Chat": "widget.chat",
    "AGUIAgent": "agui",
    "Component": "components",
    "component": "components",
    "Registry": "components",
    "ShownComponent": "components",
    "Markdown": "components",
    "Table": "components",
    "Metric": "components",
    "Chart": "components",
    "Image": "components",
    "Form": "components",
    "python_tool": "tools.code",
    "AttachmentPart": "messages",
    "DataStore": "data",
    "UnknownReference": "data",
    "summarize": "data",
    "DataRef": "data",
    "ToolResult": "data",
    "data_tools": "tools.data",
}

# Spelled out (not derived from _EXPORTS) so linters and type checkers see it.
__all__ = [
    "AGUIAgent",
    "Approval",
    "AttachmentPart",
    "BranchError",
    "Chart",
    "Chat",
    "Component",
    "DataRef",
    "DataStore",
    "DecisionError",
    "DemoModel",
    "Feedback",
    "Form",
    "Image",
    "MCPTools",
    "Markdown",
    "Message",
    "Metric",
    "Model",
    "ModelError",
    "ModelRequest",
    "OpenAIModel",
    "PersistenceConflictError",
    "ReasoningPart",
    "Registry",
    "Run",
    "Runtime",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedReply",
    "ShownComponent",
    "Table",
    "TextPart",
    "Thread",
    "ThreadFileError",
    "Tool",
    "ToolArgumentsError",
    "ToolCallPart",
    "ToolDefinitionError",
    "ToolError",
    "ToolResult",
    "UnknownReference",
    "Usage",
    "__version__",
    "component",
    "data_tools",
    "python_tool",
    "should_continue",
    "summarize",
    "tool",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ipygenui' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # static checkers see the real names
    from ._loop.continuation import should_continue
    from .agui import AGUIAgent
    from .components import (
        Chart,
        Component,
        Form,
        Image,
        Markdown,
        Metric,
        Registry,
        ShownComponent,
        Table,
        component,
    )
    from .data import DataRef, DataStore, ToolResult, UnknownReference, summarize
    from .mcp import MCPTools
    from .messages import (
        Approval,
        AttachmentPart,
        BranchError,
        Feedback,
        Message,
        ReasoningPart,
        TextPart,
        Thread,
        ToolCallPart,
        Usage,
    )
    from .models.base import Model, ModelError, ModelRequest
    from .models.demo import DemoModel
    from .models.openai import OpenAIModel
    from .models.scripted import ScriptedCall, ScriptedModel, ScriptedReply
    from .persistence import PersistenceConflictError, ThreadFileError
    from .runtime import DecisionError, Run, Runtime
    from .tools import Tool, ToolArgumentsError, ToolDefinitionError, ToolError, tool
    from .tools.code import python_tool
    from .tools.data import data_tools
    from .widget.chat import Chat
