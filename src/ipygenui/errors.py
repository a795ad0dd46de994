"""Every error a user of ipygenui can meet, in one module.

``except ipygenui.errors.ToolError`` works wherever the error is raised: each
class is defined here once, and its old import paths (``ipygenui.tools.ToolError``
and the rest) import it from here and keep working. This module imports nothing
of the package, so any layer may import it.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "A2UIError",
    "AttachmentError",
    "BranchError",
    "CassetteError",
    "CassetteMissError",
    "CassetteWarning",
    "DecisionError",
    "MCPConnectionError",
    "MCPSignInError",
    "ModelChoiceError",
    "ModelError",
    "PersistenceConflictError",
    "SequenceError",
    "ThreadFileError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolError",
    "UnknownReference",
    "UnknownThreadError",
]

# tools


class ToolError(Exception):
    """Raised by a tool to answer with an error result: the model reads
    ``result`` as is (not "tool raised ..."), marked as an error."""

    def __init__(self, result: Any) -> None:
        super().__init__(result if isinstance(result, str) else json.dumps(result, default=repr))
        self.result = result


class ToolArgumentsError(ValueError):
    """A call's arguments failed validation; the text names every problem."""


class ToolDefinitionError(TypeError):
    """A function cannot become a tool (for example it takes ``*args``)."""


# models


class ModelError(Exception):
    """A failure the user should read: the loop keeps the text streamed so
    far and ends the message as incomplete/error with this text."""


class ModelChoiceError(ValueError):
    """A listed model that cannot be made (no key, no extra installed)."""


# the thread and the runtime


class DecisionError(ValueError):
    """An approve / reject / result that does not fit the thread's state
    (unknown call, not pending, decided twice, invalid edited arguments).
    Nothing was changed."""


class BranchError(ValueError):
    """An edit, regenerate, branch switch or rating that does not fit the
    thread (unknown message, wrong role, index out of range). Nothing changed."""


class AttachmentError(ValueError):
    """An attachment that cannot be sent (too large, unreadable); says which and why."""


class UnknownThreadError(KeyError):
    """No thread with that id in this chat; the message lists its threads."""

    def __str__(self) -> str:  # a KeyError would quote its message
        return str(self.args[0]) if self.args else "unknown thread"


# thread files


class ThreadFileError(ValueError):
    """A thread file that cannot be read; the message names the file and the problem."""


class PersistenceConflictError(RuntimeError):
    """Another writer took over the persist path, or changed the file since this
    writer last saved it: nothing was written, so no thread was overwritten."""


# data


class UnknownReference(KeyError):
    """A reference the store does not hold; ``str()`` lists the names it does."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.known = known

    def __str__(self) -> str:
        names = ", ".join(self.known) if self.known else "none"
        return f"no data named {self.name!r} (the names you may use: {names})"


# protocols


class MCPConnectionError(RuntimeError):
    """An MCP server could not be started, reached or listed; the text says
    which server and why (with a stdio server's stderr tail)."""


class MCPSignInError(RuntimeError):
    """The sign-in to an MCP server could not go on (no ``redirect`` to show
    the sign-in page to, an error sent back by the authorization server); the
    text says why. A failed start reports it as an ``MCPConnectionError``."""


class A2UIError(ValueError):
    """An A2UI message the renderer refuses; the text says why and how to fix it."""


class SequenceError(ValueError):
    """An AG-UI event broke one of the protocol's ordering rules (the message names it)."""


class CassetteError(ValueError):
    """A cassette file (``gu.record`` / ``gu.replay``) that cannot be read: the
    message names the file and, for a damaged entry, its line."""


class CassetteMissError(ModelError):
    """``gu.replay(..., on_miss="error")`` was sent a request it holds no recording of."""


class CassetteWarning(UserWarning):
    """A damaged cassette entry, skipped by ``gu.replay`` (the message names the
    file and the line)."""
