"""ipygenui: generative-UI agents inside Jupyter notebooks.

Public names load lazily so ``import ipygenui`` stays fast and the headless
runtime never pulls in widget code unless ``Chat`` is used.

The names come in groups, listed once in ``_API`` (group -> module -> names):
``__all__`` and the lazy loader are derived from it, and the ``TYPE_CHECKING``
block below imports the same names for static checkers
(``tests/test_public_api.py`` holds the two equal). Test doubles live in
``ipygenui.testing``.

``gu.Markdown`` and ``gu.Image`` share their names with ``IPython.display``'s:
use them through the module (``gu.Markdown(...)``), as with ``widgets.Image``
or ``pn.pane.Markdown``, rather than ``from ipygenui import Markdown``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# group -> module (relative to this package) -> the public names it defines
_API: dict[str, dict[str, tuple[str, ...]]] = {
    "runtime": {
        "runtime": ("Runtime", "Run"),
        "_loop.continuation": ("should_continue",),
        "widget.chat": ("Chat",),
        "workbench": ("Workbench",),
    },
    "thread and messages": {
        "messages": (
            "Thread",
            "Message",
            "Part",
            "TextPart",
            "ReasoningPart",
            "ToolCallPart",
            "AttachmentPart",
            "Approval",
            "Feedback",
            "Usage",
            "MessageStatus",
            "Running",
            "RequiresAction",
            "Complete",
            "Incomplete",
        ),
        "events": ("ThreadSummary",),
    },
    "tools": {
        "tools": ("tool", "Tool", "ApprovalRule"),
        "tools.code": ("python_tool",),
        "tools.data": ("data_tools",),
        "mcp": ("MCPTools",),
        "workbench._cost": ("registry_cost",),
        "workbench._export": ("tool_schemas",),
        "widget._gallery": ("gallery_html",),
    },
    "components": {
        "components": (
            "Component",
            "component",
            "Registry",
            "ShownComponent",
            "Markdown",
            "Table",
            "Metric",
            "Chart",
            "Image",
            "Form",
        ),
        "a2ui": ("A2UI",),
    },
    "models": {
        "models.base": (
            "Model",
            "ModelRequest",
            "ModelDelta",
            "TextDelta",
            "ReasoningDelta",
            "ToolCallDelta",
            "UsageDelta",
            "FinishDelta",
            "FinishReason",
        ),
        "models.demo": ("DemoModel",),
        "models.openai": ("OpenAIModel",),
        "models.providers": ("ProviderModel",),
        "models.select": ("model",),
        "workbench._evaluate": ("evaluate", "evaluate_sync"),
    },
    "events": {
        "events": (
            "ThreadEvent",
            "ThreadListener",
            "MessageAdded",
            "MessagePatched",
            "MessageReplaced",
            "RunStarted",
            "RunEnded",
            "RunChanged",
            "RunPhase",
            "AgentStateChanged",
            "AlwaysAllowedChanged",
            "SuggestionsChanged",
            "SaveStatusChanged",
            "ActivePathChanged",
            "FeedbackChanged",
            "ThreadsChanged",
            "ModelChanged",
            "AgentCustomEvent",
        ),
    },
    "errors": {
        "tools": ("ToolError", "ToolArgumentsError", "ToolDefinitionError"),
        "models.base": ("ModelError",),
        "runtime": ("DecisionError",),
        "messages": ("BranchError",),
        "persistence": ("PersistenceConflictError", "ThreadFileError"),
        "_threads": ("UnknownThreadError",),
        "_attachments": ("AttachmentError",),
        "_model_choices": ("ModelChoiceError",),
        "data": ("UnknownReference",),
        "mcp": ("MCPConnectionError",),
    },
    "data": {
        "data": ("DataStore", "DataRef", "ToolResult", "summarize"),
    },
    "agents and servers": {
        "models.agent": ("Agent", "AgentRequest"),
        "agui": ("AGUIAgent", "AGUIApp"),
    },
}

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    name: module for modules in _API.values() for module, names in modules.items() for name in names
}

# old public name -> the module it moved to (still served, with a warning)
_MOVED: dict[str, str] = {
    "ScriptedModel": "testing",
    "ScriptedReply": "testing",
    "ScriptedCall": "testing",
}

# old public name -> the module that serves it under its new name, with a warning
_RENAMED: dict[str, str] = {"StateChanged": "events"}

__all__ = ["__version__"]
__all__ += list(_EXPORTS)  # derived: the names are listed once, in _API


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None and name in _RENAMED:
        renamed = importlib.import_module(f"{__name__}.{_RENAMED[name]}").renamed
        return renamed(name, "gu")
    if module is None:
        moved = _MOVED.get(name)
        if moved is None:
            raise AttributeError(f"module 'ipygenui' has no attribute {name!r}")
        warnings.warn(
            f"gu.{name} moved: use 'from ipygenui.{moved} import {name}'",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(f"{__name__}.{moved}"), name)
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # static checkers see the real names ("X as X": re-exported)
    from ._attachments import AttachmentError as AttachmentError
    from ._loop.continuation import should_continue as should_continue
    from ._model_choices import ModelChoiceError as ModelChoiceError
    from ._threads import UnknownThreadError as UnknownThreadError
    from .a2ui import A2UI as A2UI
    from .agui import AGUIAgent as AGUIAgent
    from .agui import AGUIApp as AGUIApp
    from .components import Chart as Chart
    from .components import Component as Component
    from .components import Form as Form
    from .components import Image as Image
    from .components import Markdown as Markdown
    from .components import Metric as Metric
    from .components import Registry as Registry
    from .components import ShownComponent as ShownComponent
    from .components import Table as Table
    from .components import component as component
    from .data import DataRef as DataRef
    from .data import DataStore as DataStore
    from .data import ToolResult as ToolResult
    from .data import UnknownReference as UnknownReference
    from .data import summarize as summarize
    from .events import ActivePathChanged as ActivePathChanged
    from .events import AgentCustomEvent as AgentCustomEvent
    from .events import AgentStateChanged as AgentStateChanged
    from .events import AlwaysAllowedChanged as AlwaysAllowedChanged
    from .events import FeedbackChanged as FeedbackChanged
    from .events import MessageAdded as MessageAdded
    from .events import MessagePatched as MessagePatched
    from .events import MessageReplaced as MessageReplaced
    from .events import ModelChanged as ModelChanged
    from .events import RunChanged as RunChanged
    from .events import RunEnded as RunEnded
    from .events import RunPhase as RunPhase
    from .events import RunStarted as RunStarted
    from .events import SaveStatusChanged as SaveStatusChanged
    from .events import SuggestionsChanged as SuggestionsChanged
    from .events import ThreadEvent as ThreadEvent
    from .events import ThreadListener as ThreadListener
    from .events import ThreadsChanged as ThreadsChanged
    from .events import ThreadSummary as ThreadSummary
    from .mcp import MCPConnectionError as MCPConnectionError
    from .mcp import MCPTools as MCPTools
    from .messages import Approval as Approval
    from .messages import AttachmentPart as AttachmentPart
    from .messages import BranchError as BranchError
    from .messages import Complete as Complete
    from .messages import Feedback as Feedback
    from .messages import Incomplete as Incomplete
    from .messages import Message as Message
    from .messages import MessageStatus as MessageStatus
    from .messages import Part as Part
    from .messages import ReasoningPart as ReasoningPart
    from .messages import RequiresAction as RequiresAction
    from .messages import Running as Running
    from .messages import TextPart as TextPart
    from .messages import Thread as Thread
    from .messages import ToolCallPart as ToolCallPart
    from .messages import Usage as Usage
    from .models.agent import Agent as Agent
    from .models.agent import AgentRequest as AgentRequest
    from .models.base import FinishDelta as FinishDelta
    from .models.base import FinishReason as FinishReason
    from .models.base import Model as Model
    from .models.base import ModelDelta as ModelDelta
    from .models.base import ModelError as ModelError
    from .models.base import ModelRequest as ModelRequest
    from .models.base import ReasoningDelta as ReasoningDelta
    from .models.base import TextDelta as TextDelta
    from .models.base import ToolCallDelta as ToolCallDelta
    from .models.base import UsageDelta as UsageDelta
    from .models.demo import DemoModel as DemoModel
    from .models.openai import OpenAIModel as OpenAIModel
    from .models.providers import ProviderModel as ProviderModel
    from .models.select import model as model
    from .persistence import PersistenceConflictError as PersistenceConflictError
    from .persistence import ThreadFileError as ThreadFileError
    from .runtime import DecisionError as DecisionError
    from .runtime import Run as Run
    from .runtime import Runtime as Runtime
    from .tools import ApprovalRule as ApprovalRule
    from .tools import Tool as Tool
    from .tools import ToolArgumentsError as ToolArgumentsError
    from .tools import ToolDefinitionError as ToolDefinitionError
    from .tools import ToolError as ToolError
    from .tools import tool as tool
    from .tools.code import python_tool as python_tool
    from .tools.data import data_tools as data_tools
    from .widget._gallery import gallery_html as gallery_html
    from .widget.chat import Chat as Chat
    from .workbench import Workbench as Workbench
    from .workbench._cost import registry_cost as registry_cost
    from .workbench._evaluate import evaluate as evaluate
    from .workbench._evaluate import evaluate_sync as evaluate_sync
    from .workbench._export import tool_schemas as tool_schemas
