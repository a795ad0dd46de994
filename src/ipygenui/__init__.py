"""ipygenui: generative-UI agents inside Jupyter notebooks.

The top level holds what a notebook user types: the chat and its runtime,
tools, components, models, data references and the workbench (``_API``,
group -> module -> names, at most 40). Everything else lives in its public
module, which lists it in its ``__all__``:

- ``ipygenui.events``: what the runtime tells a listener (``MessageAdded``,
  ``RunEnded``, ``ThreadsChanged``, ...) and ``ThreadSummary``;
- ``ipygenui.errors``: every error class (``ToolError``, which a tool raises
  to answer with an error, is at the top level too);
- ``ipygenui.messages``: parts, statuses, ``Approval``, ``Feedback``, ``Usage``;
- ``ipygenui.models``: the model and agent protocols (``Model``,
  ``ModelRequest``, ``Agent``, ``AgentRequest``) and the deltas a model
  streams (``TextDelta``, ``ToolCallDelta``, ...; ``messages`` sits below
  ``models``, so the deltas are not in ``messages``);
- ``ipygenui.tools`` (``ApprovalRule``), ``ipygenui.components``
  (``Registry``, ``ShownComponent``), ``ipygenui.data`` (``ToolResult``,
  ``summarize``), ``ipygenui.agui`` (``AGUIApp``), ``ipygenui.mcp``;
- ``ipygenui.testing``: test doubles (``ScriptedModel``).

Every submodule also resolves as an attribute on first use, so
``gu.events.MessageAdded`` works after ``import ipygenui as gu`` alone.
A name that moved off the top level (``_MOVED``) is still served for one
release, with a ``DeprecationWarning`` that names its new home.

Names load lazily so ``import ipygenui`` stays fast and the headless
runtime never pulls in widget code unless ``Chat`` is used. ``__all__`` and
the lazy loader are derived from ``_API``, and the ``TYPE_CHECKING`` block
below imports the same names for static checkers
(``tests/project/test_public_api.py`` holds the two equal). Each name is
listed under the public module that defines it.

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
        "messages": ("Thread", "Message"),
    },
    "tools": {
        "tools.base": ("tool", "Tool"),
        "errors": ("ToolError",),  # raised by tools, so typed in them (also in errors)
        "tools.code": ("python_tool",),
        "tools.data": ("data_tools",),
        "mcp.tools": ("MCPTools",),
        "mcp.oauth": ("MCPOAuth",),
    },
    "components": {
        "components.component": ("Component",),
        "components.python_component": ("component",),
        "components.builtins": ("Markdown", "Table", "Metric", "Chart", "Image", "Form"),
        "a2ui.component": ("A2UI",),
    },
    "models and agents": {
        "models.select": ("model",),
        "models.openai": ("OpenAIModel",),
        "models.providers": ("ProviderModel",),
        "models.demo": ("DemoModel",),
        "models.cassette.recording": ("record",),
        "models.cassette.replaying": ("replay",),
        "agui.client": ("AGUIAgent",),
    },
    "data": {
        "data": ("DataRef", "DataStore"),
    },
    "workbench": {
        "workbench.widget": ("Workbench",),
        "workbench.evaluate": ("evaluate", "evaluate_sync"),
        "workbench.cost": ("registry_cost",),
        "workbench.export": ("tool_schemas",),
        "workbench.gallery": ("gallery_html",),
    },
}

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    name: module for modules in _API.values() for module, names in modules.items() for name in names
}

# module -> old top-level names now imported from it (still served, with a warning)
_MOVED_TO: dict[str, tuple[str, ...]] = {
    "events": (
        "ThreadEvent",
        "ThreadListener",
        "ThreadSummary",
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
    "errors": (
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
    "messages": (
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
    "models": (
        "Model",
        "ModelRequest",
        "ModelDelta",
        "TextDelta",
        "ReasoningDelta",
        "ToolCallDelta",
        "UsageDelta",
        "FinishDelta",
        "FinishReason",
        "Agent",
        "AgentRequest",
    ),
    "tools": ("ApprovalRule",),
    "components": ("Registry", "ShownComponent"),
    "data": ("ToolResult", "summarize"),
    "agui": ("AGUIApp",),
    "testing": ("ScriptedModel", "ScriptedReply", "ScriptedCall"),
}

# old public name -> the module it moved to
_MOVED: dict[str, str] = {name: module for module, names in _MOVED_TO.items() for name in names}

# old public name -> the module that serves it under its new name, with a warning
_RENAMED: dict[str, str] = {"StateChanged": "events"}

__all__ = ["__version__"]
__all__ += list(_EXPORTS)  # derived: the names are listed once, in _API


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # later lookups skip this function
        return value
    if name in _RENAMED:
        home = f"{__name__}.{_RENAMED[name]}"
        return importlib.import_module(home).renamed(name, "gu", new_where=home)
    moved = _MOVED.get(name)
    if moved is not None:
        warnings.warn(
            f"gu.{name} moved: use 'from ipygenui.{moved} import {name}'"
            " (the top-level name goes in a later release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(f"{__name__}.{moved}"), name)
    if not name.startswith("_"):  # a public submodule: gu.events, gu.testing, ...
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise  # the submodule exists but needs a missing package
    raise AttributeError(f"module 'ipygenui' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # static checkers see the real names ("X as X": re-exported)
    from .a2ui.component import A2UI as A2UI
    from .agui.client import AGUIAgent as AGUIAgent
    from .components.builtins import Chart as Chart
    from .components.builtins import Form as Form
    from .components.builtins import Image as Image
    from .components.builtins import Markdown as Markdown
    from .components.builtins import Metric as Metric
    from .components.builtins import Table as Table
    from .components.component import Component as Component
    from .components.python_component import component as component
    from .data import DataRef as DataRef
    from .data import DataStore as DataStore
    from .errors import ToolError as ToolError
    from .mcp.oauth import MCPOAuth as MCPOAuth
    from .mcp.tools import MCPTools as MCPTools
    from .messages import Message as Message
    from .messages import Thread as Thread
    from .models.cassette.recording import record as record
    from .models.cassette.replaying import replay as replay
    from .models.demo import DemoModel as DemoModel
    from .models.openai import OpenAIModel as OpenAIModel
    from .models.providers import ProviderModel as ProviderModel
    from .models.select import model as model
    from .runtime import Runtime as Runtime
    from .runtime.continuation import should_continue as should_continue
    from .runtime.run import Run as Run
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
