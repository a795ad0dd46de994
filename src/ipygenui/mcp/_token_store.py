"""Where the OAuth tokens of MCP servers are kept, for ``ipygenui.mcp``: one
file per server and client, readable by the user only.

The folder is the user's data folder (``$XDG_DATA_HOME/ipygenui/mcp-tokens``,
by default ``~/.local/share/ipygenui/mcp-tokens``; ``%LOCALAPPDATA%`` on
Windows, ``~/Library/Application Support`` on macOS), or
``$IPYGENUI_MCP_TOKENS``, or ``MCPOAuth(token_dir=...)``: never the notebook's
folder, where a token could be committed or shared with the notebook. The
folder is made mode 0700 and each file 0600, written whole to a temporary
file beside it and renamed, so a reader never sees half a file.

A file holds the server's URL, the client the SDK registered (or was given)
with the issuer it belongs to, and the tokens; the SDK drops a client and its
tokens when the server names another authorization server (SEP-2352).
Nothing here logs a token, and the store's repr names only its file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["TOKEN_DIR_VARIABLE", "TokenFile", "default_token_dir", "token_file"]

TOKEN_DIR_VARIABLE = "IPYGENUI_MCP_TOKENS"
"""The environment variable naming another folder for the tokens (tests use it)."""


def default_token_dir() -> Path:
    """The folder the tokens go in unless ``MCPOAuth(token_dir=...)`` says otherwise."""
    named = os.environ.get(TOKEN_DIR_VARIABLE)
    if named:
        return Path(named).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "ipygenui" / "mcp-tokens"


def token_file(folder: Path, server_url: str, client: str) -> Path:
    """The file of ``server_url``'s tokens for ``client`` (a client id, or the
    kind of sign-in): named by a hash, so the file name says nothing of either."""
    key = json.dumps([server_url, client]).encode()
    return folder / f"{hashlib.sha256(key).hexdigest()[:32]}.json"


class TokenFile:
    """The SDK's ``TokenStorage`` on one file (the server's tokens and client)."""

    def __init__(self, path: Path, server_url: str) -> None:
        self.path = path
        self.server_url = server_url

    def __repr__(self) -> str:
        return f"TokenFile({str(self.path)!r})"

    # --- the SDK's TokenStorage -------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        saved = self._read().get("tokens")
        return OAuthToken.model_validate(saved) if saved else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._update("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        saved = self._read().get("client")
        return OAuthClientInformationFull.model_validate(saved) if saved else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._update("client", client_info.model_dump(mode="json", exclude_none=True))

    def saved_client(self) -> Any:
        """The client record as saved (JSON), or None: read without the SDK."""
        return self._read().get("client")

    # --- the file ---------------------------------------------------------------

    def forget(self) -> bool:
        """Delete the file (sign out); whether there was one."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            saved = json.loads(text)
        except ValueError:  # a damaged file: signing in again rewrites it
            return {}
        if not isinstance(saved, dict) or saved.get("server") != self.server_url:
            return {}
        return saved

    def _update(self, key: str, value: Any) -> None:
        saved = self._read() or {"server": self.server_url}
        saved[key] = value
        self._write(saved)

    def _write(self, saved: dict[str, Any]) -> None:
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # a folder of the user's own choosing may refuse
            os.chmod(folder, 0o700)
        # mkstemp creates the file 0600; renamed over the old one whole
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tokens-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(saved, out)
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
