"""Tools: Python functions the model may call, with schemas from type hints.

- ``Tool``, ``@tool``: a function as a tool (``base.py``), its arguments as a
  pydantic model (``_signature.py``), raw JSON-schema tools checked without
  fetching a ``$ref`` (``_json_schema.py``), sync tools each in a thread of its
  own (``_internal/worker_threads.py``).
- ``code``: ``gu.python_tool`` (run_python in the kernel's namespace).
- ``data``: ``gu.data_tools`` (describe, preview and query referenced tables).
- ``component_names``: the ``show_component_<Name>`` / ``update_component_<id>`` name rules
  and props schemas, shared by the components, the loop and the widget.

``code`` and ``data`` import ``ipygenui.data``; they are not imported here, so
this package does not load it: ``gu.python_tool`` and ``gu.data_tools`` load them.
"""

from __future__ import annotations

from ..errors import ToolArgumentsError, ToolError
from ._signature import ToolDefinitionError
from .base import (
    ApprovalRule,
    JSONSchemaTool,
    Tool,
    as_tool,
    expand_tools,
    parse_docstring,
    to_jsonable,
    tool,
)

__all__ = [
    "ApprovalRule",
    "JSONSchemaTool",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolError",
    "as_tool",
    "expand_tools",
    "parse_docstring",
    "to_jsonable",
    "tool",
]
