"""What an MCP server offers beside its tools, for ``ipygenui.mcp``: roots the
user allows, log lines and progress for the running calls' cards, and the
resources its tools link to (prompts: ``_prompts.py``).

The MCP SDK is imported inside the functions: the ``mcp`` extra is optional.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.sanitize import clean_text

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import ReadResourceResult

    from ..tools.call_report import CallReport

__all__ = [
    "LogRelay",
    "check_roots",
    "read_result",
    "roots_callback",
    "runs_as_task",
    "task_refusal",
]

logger = logging.getLogger("ipygenui")

# --- roots ------------------------------------------------------------------------


def check_roots(roots: Any) -> list[Path] | None:
    """The folders a server may be told of (``roots=``): ``None`` / ``False``
    advertises none, ``True`` the notebook's folder (the kernel's working
    folder), a list of paths those folders, each one that exists."""
    if roots is None or roots is False:
        return None
    if roots is True:
        return [Path(os.getcwd()).resolve()]
    if isinstance(roots, str | bytes | os.PathLike) or not isinstance(roots, Sequence):
        hint = f": write roots=[{roots!r}]" if isinstance(roots, str | os.PathLike) else ""
        raise TypeError(
            "MCPTools(roots=...) must be True (the notebook's folder), False or a list of "
            f"folder paths, got {roots!r}{hint}"
        )
    folders: list[Path] = []
    for item in roots:
        if not isinstance(item, str | os.PathLike):
            raise TypeError(f"MCPTools(roots=...) items must be folder paths, got {item!r}")
        folder = Path(item).expanduser().resolve()
        if not folder.is_dir():
            raise ValueError(f"MCPTools(roots=...): {str(item)!r} is not a folder")
        folders.append(folder)
    return folders


def roots_callback(folders: list[Path]) -> Any:
    """The session's answer to ``roots/list``: those folders, as file:// URIs, only."""
    from mcp import types

    roots = [types.Root(uri=folder.as_uri(), name=folder.name or str(folder)) for folder in folders]

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=list(roots))

    return list_roots


# --- logging and progress ----------------------------------------------------------


class LogRelay:
    """A server's log lines (``notifications/message``, which name no request)
    go to the cards of the calls running on it then; with none, to the log."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.running: dict[int, CallReport] = {}

    async def __call__(self, params: Any) -> None:
        data = params.data
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        source = f" {params.logger}:" if params.logger else ""
        line = f"[{params.level}]{source} {text}"
        if not self.running:
            logger.info("MCP server %s says %s", self.server, clean_text(line)[:500])
        for report in list(self.running.values()):
            report.log(line)


def progress_callback(report: CallReport | None) -> Any:
    """The call's ``progress_callback`` (the SDK sends a progress token with it)."""
    if report is None:
        return None

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        report.progress(progress, total, message)

    return on_progress


# --- tasks ---------------------------------------------------------------------------


def task_refusal(listed_tool: Any, server_runs_tasks: bool) -> str | None:
    """Why a tool that runs only as an MCP task is left out: the server does
    not say it runs tool calls as tasks, so the spec forbids asking for one
    (and a plain call fails). On a server that does, ``_tasks.py`` runs it."""
    if runs_as_task(listed_tool) and not server_runs_tasks:
        return (
            "it runs only as an MCP task (execution.taskSupport is 'required'), "
            "but the server does not say it runs tool calls as tasks (capabilities.tasks)"
        )
    return None


def runs_as_task(listed_tool: Any) -> bool:
    """Whether a call of this tool must be a task (``taskSupport`` ``required``;
    an ``optional`` one runs as a plain call)."""
    execution = getattr(listed_tool, "execution", None)
    return getattr(execution, "task_support", None) == "required"


# --- resources ------------------------------------------------------------


async def offers_resources(session: ClientSession) -> bool:
    """Whether the server has resources to read: it says it serves them and
    lists at least one (an MCP app's ``ui://`` page aside), or a template (an
    SDK server says so with none)."""
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.resources is None:
        return False
    try:
        listed = (await session.list_resources()).resources
        if any(not str(r.uri).startswith("ui://") for r in listed):  # ui://: apps, for the host
            return True
        return bool((await session.list_resource_templates()).resource_templates)
    except Exception:
        return False


def read_result(read: ReadResourceResult) -> Any:
    """A ``resources/read`` answer as a tool result, through the tool results'
    own conversion (each content an embedded resource)."""
    from mcp import types

    from ._results import result_value

    blocks: list[Any] = [types.EmbeddedResource(type="resource", resource=c) for c in read.contents]
    return result_value(types.CallToolResult(content=blocks))


READ_RESOURCE = "read_resource"
READ_RESOURCE_SCHEMA = {
    "type": "object",
    "properties": {
        "uri": {
            "type": "string",
            "description": "The resource's URI, as a tool's resource link gave it.",
        }
    },
    "required": ["uri"],
    "additionalProperties": False,
}
READ_RESOURCE_DESCRIPTION = (
    "Read a resource of this MCP server by its URI (e.g. one a tool's result links to)."
)
