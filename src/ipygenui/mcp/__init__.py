"""MCP tool servers as chat tools (``gu.MCPTools``; the optional extra ``mcp``).

- ``tools.py``: ``MCPTools``, one server's tools as chat tools, checked and
  gated (its annotations are shown, not obeyed).
- ``_connection.py``: the connection on a thread with its own event loop
  (stdio or streamable HTTP), restarted once if the server dies.
- ``_results.py``: a ``CallToolResult`` as a tool result (content for the
  user only kept from the model).
- ``_features.py``: what a server offers beside tools: roots the user allows,
  log lines and progress for the calls' cards, ``read_resource`` for the
  resources its tools link to; a task-only tool left out of a server that
  runs no tasks.
- ``_tasks.py``: a task-only tool's call run as an MCP task (its status
  polled onto the card, its result fetched, cancelled by Stop);
  ``_client_tasks.py`` the other way round: a server's sampling or
  elicitation request run as a task of this client.
- ``_prompts.py``: prompts as starters; one with arguments as an
  ``MCPPrompt`` (its form's fields), filled and completed by the server.
- ``_list_changes.py``: a server's ``list_changed`` notifications, each list
  read again (a chat takes new tools from its next model step).
- ``oauth.py``: ``MCPOAuth``, how to sign in to a server over HTTP;
  ``_oauth.py`` wires it to the SDK's OAuth clients, ``_token_store.py``
  keeps the tokens (a file per server only the user reads, outside the
  notebook's folder).
- ``_apps.py``: MCP Apps: the extension advertised, an app tool's ``ui://``
  resource read once and shown to the user only, ``visibility``, and an
  app's own requests checked before they reach the server.

This package shares its name with the MCP SDK's: the modules here import the
SDK absolutely (``from mcp import ClientSession``), which always means the
top-level ``mcp``, and their own siblings relatively.
"""

from __future__ import annotations

from ._prompts import MCPPrompt, MCPPromptArgument
from .oauth import MCPAssertion, MCPOAuth, MCPRedirect
from .tools import MCPApproval, MCPConnectionError, MCPTools, MCPTrust

__all__ = [
    "MCPApproval",
    "MCPAssertion",
    "MCPConnectionError",
    "MCPOAuth",
    "MCPPrompt",
    "MCPPromptArgument",
    "MCPRedirect",
    "MCPTools",
    "MCPTrust",
]
