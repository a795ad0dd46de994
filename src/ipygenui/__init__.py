"""ipygenui: generative-UI agents inside Jupyter notebooks.

Public names load lazily so ``import ipygenui`` stays fast and the headless
runtime never pulls in widget code unless ``Chat`` is used.

The names come in groups, listed once in ``_API`` (group -> module -> names):
``__all__`` and the lazy loader are derived from it, and the ``TYPE_CHECKING``
block below imports the same names for static checkers
(``tests/project/test_public_api.py`` holds the two equal). Each name is listed
under the public module that defines it. Test doubles live in
``ipygenui.testing``, every error class in ``ipygenui.errors``.

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
        "runtime": ("Runtime",),
        "runtime.run": ("Run",),
        "runtime.continuation": ("should_continue",),
        "widget.chat": ("Chat",),
        "workbench.widget": ("Workbench",),
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
        "tools.base": ("tool", "Tool", "ApprovalRule"),
        "tools.code": ("python_tool",),
        "tools.data": ("data_tools",),
        "mcp.tools": ("MCPTools",),
        "workbench.cost": ("registry_cost",),
        "workbench.export": ("tool_schemas",),
        "workbench.gallery": ("gallery_html",),
    },
    "components": {
        "components.component": ("Component",),
        "components.python_component": ("component",),
        "components.registry": ("Registry",),
        "components.shown": ("ShownComponent",),
        "components.builtins": ("Markdown", "Table", "Metric", "Chart", "Image", "Form"),
        "a2ui.component": ("A2UI",),
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
        "workbench.evaluate": ("evaluate", "evaluate_sync"),
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
        "errors": (
            "ToolError",
            "ToolArgumentsError",
            "ToolDefinitionError",
            "ModelError",
            "DecisionError",
            "BranchError",
            "PersistenceConflictError",
            "ThreadFileError",
            "UnknownThreadError",
            "AttachmentError",
            "ModelChoiceError",
            "UnknownReference",
            "MCPConnectionError",
        ),
    },
    "data": {
        "data": ("DataStore", "DataRef", "ToolResult", "summarize"),
    },
    "agents and servers": {
        "models.agent": ("Agent", "AgentRequest"),
        "agui.client": ("AGUIAgent",),
        "agui.server": ("AGUIApp",),
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
    from .a2ui.component import A2UI as A2UI
    from .agui.client import AGUIAgent as AGUIAgent
    from .agui.server import AGUIApp as AGUIApp
    from .components.builtins import Chart as Chart
    from .components.builtins import Form as Form
    from .components.builtins import Image as Image
    from .components.builtins import Markdown as Markdown
    from .components.builtins import Metric as Metric
    from .components.builtins import Table as Table
    from .components.component import Component as Component
    from .components.python_component import component as component
    from .components.registry import Registry as Registry
    from .components.shown import ShownComponent as ShownComponent
    from .data import DataRef as DataRef
    from .data import DataStore as DataStore
    from .data import ToolResult as ToolResult
    from .data import summarize as summarize
    from .errors import AttachmentError as AttachmentError
    from .errors import BranchError as BranchError
    from .errors import DecisionError as DecisionError
    from .errors import MCPConnectionError as MCPConnectionError
    from .errors import ModelChoiceError as ModelChoiceError
    from .errors import ModelError as ModelError
    from .errors import PersistenceConflictError as PersistenceConflictError
    from .errors import ThreadFileError as ThreadFileError
    from .errors import ToolArgumentsError as ToolArgumentsError
    from .errors import ToolDefinitionError as ToolDefinitionError
    from .errors import ToolError as ToolError
    from .errors import UnknownReference as UnknownReference
    from .errors import UnknownThreadError as UnknownThreadError
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
    from .mcp.tools import MCPTools as MCPTools
    from .messages import Approval as Approval
    from .messages import AttachmentPart as AttachmentPart
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
    from .models.base import ModelRequest as ModelRequest
    from .models.base import ReasoningDelta as ReasoningDelta
    from .models.base import TextDelta as TextDelta
    from .models.base import ToolCallDelta as ToolCallDelta
    from .models.base import UsageDelta as UsageDelta
    from .models.demo import DemoModel as DemoModel
    from .models.openai import OpenAIModel as OpenAIModel
    from .models.providers import ProviderModel as ProviderModel
    from .models.select import model as model
    from .runtime import Runtime as Runtime
    from .runtime.continuation import should_continue as should_continue
    from .runtime.run import Run as Run
    from .tools.base import ApprovalRule as ApprovalRule
    from .tools.base import Tool as Tool
    from .tools.base import tool as tool
    from .tools.code import python_tool as python_tool
    from .tools.data import data_tools as data_tools
    from .widget.chat import Chat as Chat
    from .workbench.cost import registry_cost as registry_cost
    from .workbench.evaluate import evaluate as evaluate
    from .workbench.evaluate import evaluate_sync as evaluate_sync
    from .workbench.export import tool_schemas as tool_schemas
    from .workbench.gallery import gallery_html as gallery_html
    from .workbench.widget import Workbench as Workbench
