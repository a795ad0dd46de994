"""How a card names an MCP server, for ``ipygenui.mcp``: as a reader knows it.

The server's own name from its ``initialize`` result (``serverInfo.title``,
else ``.name``) when it gives one, else the short form of how it was started
(``python mcp_demo_server.py``, not the venv's absolute path; a URL's host and
path). Both are untrusted text: control characters become spaces and the
length is bounded. The full command (``command_text``) goes in the card's
details, bounded too; errors keep naming the server by its full command.
``server_hash`` names it for AG-UI clients (the ``mcp-apps`` activity).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from typing import Any
from urllib.parse import urlsplit

from .._internal.sanitize import clean_text
from ._connection import Stdio, Transport

__all__ = ["MAX_COMMAND_CHARS", "MAX_NAME_CHARS", "command_text", "server_hash", "server_name"]

MAX_NAME_CHARS = 80
"""Characters of a server's name a card shows (its end is cut)."""
MAX_COMMAND_CHARS = 1_000
"""Characters of a server's full command a card's details keep."""

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _bounded(text: str, limit: int) -> str:
    text = " ".join(_CONTROLS.sub(" ", clean_text(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def server_name(info: Any, transport: Transport) -> str:
    """The card's name for a server: ``info`` (its ``serverInfo``, or None
    before it answered) names it; else how ``transport`` reaches it."""
    for said in (getattr(info, "title", None), getattr(info, "name", None)):
        if isinstance(said, str) and _bounded(said, MAX_NAME_CHARS):
            return _bounded(said, MAX_NAME_CHARS)
    if isinstance(transport, Stdio):
        return _bounded(_short_command(transport.command, transport.args), MAX_NAME_CHARS)
    parts = urlsplit(transport.url)
    return _bounded(f"{parts.netloc}{parts.path}" or "the server", MAX_NAME_CHARS)


def _short_command(command: str, args: list[str]) -> str:
    """The command's file name, then its arguments up to the first that is
    not an option (the script or package), paths cut to their file names."""
    words = [os.path.basename(command) or command]
    for arg in args:
        words.append(arg if arg.startswith(("-", "@")) else os.path.basename(arg) or arg)
        if not arg.startswith("-"):
            break
    return shlex.join(words)


def command_text(transport: Transport) -> str:
    """The full command line (or the URL without its query, which may hold a
    key), for the card's details."""
    if isinstance(transport, Stdio):
        return _bounded(shlex.join([transport.command, *transport.args]), MAX_COMMAND_CHARS)
    parts = urlsplit(transport.url)
    return _bounded(parts._replace(query="", fragment="").geturl(), MAX_COMMAND_CHARS)


def server_hash(transport: Transport) -> str:
    """The server's ``serverHash`` in an AG-UI ``mcp-apps`` activity: for a
    URL, AG-UI's mcp-apps middleware's own (the MD5 of ``JSON.stringify({type,
    url})``), so both name one server alike; for a command, the same over
    ``{type: "stdio", command}``. A reference, never the command itself."""
    if isinstance(transport, Stdio):
        said: dict[str, Any] = {"type": "stdio", "command": [transport.command, *transport.args]}
    else:
        said = {"type": "http", "url": transport.url}
    text = json.dumps(said, separators=(",", ":"), ensure_ascii=False)
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()
