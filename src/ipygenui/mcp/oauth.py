"""Signing in to an MCP server over HTTP: ``gu.MCPOAuth``, passed as
``gu.MCPTools.http(url, auth=gu.MCPOAuth(...))``.

The sign-in itself is the MCP SDK's OAuth 2.1 client
(``mcp.client.auth``): it finds the server's protected-resource metadata
(from ``WWW-Authenticate``, else the path-based then the root well-known
URL), the authorization server's (RFC 8414 and OpenID Connect, with the
issuer checked), registers a client (a client ID metadata document when the
server supports them and ``client_metadata_url`` is given, else dynamic
registration, unless ``client_id`` names a registered one), asks for the
scopes the server names (``WWW-Authenticate``, else its ``scopes_supported``),
signs in again for more on ``insufficient_scope`` (once per request), binds
the tokens to the server with the resource indicator (RFC 8707), and
refreshes them without asking. ``_oauth.py`` wires it; the tokens are kept by
``_token_store.py``, in the user's data folder, never in the notebook, a
thread file or the widget.

Three ways to sign in:

- ``MCPOAuth(redirect)``: a person signs in in a browser (the authorization
  code flow with PKCE). ``redirect`` gets the authorization URL and returns
  the URL the browser was sent back to (``redirect_uri?code=...&state=...``);
  it may be async. A test or a headless run answers it itself. Without
  ``redirect``, the tools' chat asks: a card shows the URL, opened on the
  user's click, and the kernel's loopback listener (or the address the user
  pastes) brings the browser's answer back (``_loopback.py``).
- ``MCPOAuth.client_credentials(client_id, client_secret)`` (or
  ``private_key=`` for ``private_key_jwt``): a program signs in as itself.
- ``MCPOAuth.identity_assertion(...)``: an enterprise identity provider's
  ID-JAG is exchanged for a token (SEP-990, the jwt-bearer grant).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

__all__ = ["MCPAssertion", "MCPOAuth", "MCPRedirect"]

MCPRedirect = Callable[[str], Awaitable[str] | str]
"""Gets the authorization URL a person must open; returns the URL the browser
was sent back to (the redirect URI with ``code`` and ``state``)."""

MCPAssertion = Callable[[str, str], Awaitable[str] | str]
"""Gets the authorization server's issuer (the assertion's audience) and the
MCP server's resource identifier; returns the ID-JAG to present."""

Grant = Literal["authorization_code", "client_credentials", "identity_assertion"]

DEFAULT_REDIRECT_URI = "http://127.0.0.1:33418/callback"
"""Where the authorization server sends the browser back to with ``redirect``
or a registered ``client_id``, unless ``redirect_uri=`` says otherwise
(registered with the client). A chat's sign-in card registers a loopback URI
of a port free at the first sign-in instead, kept with the client's record."""

_SECRET_AUTH = ("client_secret_basic", "client_secret_post")


class MCPOAuth:
    """How to sign in to one MCP server over HTTP (OAuth 2.1 by the MCP SDK).

    ``MCPOAuth(redirect)`` signs a person in with a browser: ``redirect``
    gets the whole authorization URL and returns the URL the browser was sent
    back to. ``MCPOAuth()`` in a chat's tools signs in through a card in the
    chat instead. Without ``client_id``, the client registers itself (by its
    metadata document at ``client_metadata_url`` when the server supports
    those, else by dynamic registration); with it (and ``client_secret`` for
    a confidential client), that registered client is used.

    The tokens are kept per server in a file only the user can read, outside
    the notebook's folder (``token_dir``, by default the user's data folder),
    refreshed without asking; ``MCPTools.sign_out()`` forgets them. The
    scopes asked for are those the server names.
    """

    def __init__(
        self,
        redirect: MCPRedirect | None = None,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_metadata_url: str | None = None,
        redirect_uri: str | None = None,
        client_name: str = "ipygenui",
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post", "none"]
        | None = None,
        token_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if redirect is not None and not callable(redirect):
            raise TypeError(
                f"MCPOAuth(redirect=...) must be a function of the URL, got {redirect!r}"
            )
        _check_text("client_id", client_id)
        _check_text("client_secret", client_secret)
        _check_text("client_metadata_url", client_metadata_url)
        _check_text("redirect_uri", redirect_uri)
        _check_text("client_name", client_name, optional=False)
        if client_secret is not None and client_id is None:
            raise ValueError("MCPOAuth(client_secret=...) needs the client_id it belongs to")
        if client_metadata_url is not None and not _is_metadata_url(client_metadata_url):
            raise ValueError(
                "MCPOAuth(client_metadata_url=...) must be an https URL with a path (the client's "
                f"metadata document), got {client_metadata_url!r}"
            )
        if token_endpoint_auth_method is None and client_id is not None:  # a registered client
            token_endpoint_auth_method = "client_secret_basic" if client_secret else "none"
        if token_endpoint_auth_method not in (*_SECRET_AUTH, "none", None):
            raise ValueError(
                "MCPOAuth(token_endpoint_auth_method=...) must be client_secret_basic, "
                f"client_secret_post or none, got {token_endpoint_auth_method!r}"
            )
        registered = client_id is not None
        if token_endpoint_auth_method in _SECRET_AUTH and registered and not client_secret:
            raise ValueError(
                f"MCPOAuth(token_endpoint_auth_method={token_endpoint_auth_method!r}) "
                "needs client_secret"
            )
        self.grant: Grant = "authorization_code"
        self.redirect = redirect
        self.client_id = client_id
        self._client_secret = client_secret
        self.client_metadata_url = client_metadata_url
        self.redirect_uri = redirect_uri
        """Where the browser is sent back to (``None``: chosen, see ``DEFAULT_REDIRECT_URI``)."""
        self.client_name = client_name
        self.token_endpoint_auth_method: str | None = token_endpoint_auth_method
        """How the client authenticates at the token endpoint (``None``: as the
        authorization server registers it)."""
        self.issuer: str | None = None
        self._private_key: str | None = None
        self.signing_algorithm = "RS256"
        self._assertion: MCPAssertion | None = None
        self.token_dir = _check_token_dir(token_dir)

    @classmethod
    def client_credentials(
        cls,
        client_id: str,
        client_secret: str | None = None,
        *,
        private_key: str | None = None,
        signing_algorithm: str = "RS256",
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = (
            "client_secret_basic"
        ),
        issuer: str | None = None,
        token_dir: str | os.PathLike[str] | None = None,
    ) -> MCPOAuth:
        """A program signs in as itself (the client credentials grant): with
        ``client_secret`` (``client_secret_basic`` or ``_post``), or with
        ``private_key`` (PEM), signing a ``private_key_jwt`` assertion with
        ``signing_algorithm``. ``issuer`` (the authorization server's issuer
        URL) makes sure the credentials go to that server only."""
        _check_text("client_id", client_id, optional=False)
        if (client_secret is None) == (private_key is None):
            raise ValueError(
                "MCPOAuth.client_credentials needs one of client_secret= and private_key="
            )
        if token_endpoint_auth_method not in _SECRET_AUTH:
            raise ValueError(
                "MCPOAuth.client_credentials(token_endpoint_auth_method=...) must be "
                f"client_secret_basic or client_secret_post, got {token_endpoint_auth_method!r}"
            )
        _check_text("private_key", private_key)
        oauth = cls(client_id=client_id, client_secret=client_secret, token_dir=token_dir)
        oauth.grant = "client_credentials"
        oauth.issuer = _check_issuer(issuer)
        oauth._private_key = private_key
        oauth.signing_algorithm = signing_algorithm
        oauth.token_endpoint_auth_method = (
            "private_key_jwt" if private_key is not None else token_endpoint_auth_method
        )
        return oauth

    @classmethod
    def identity_assertion(
        cls,
        client_id: str,
        client_secret: str,
        *,
        issuer: str,
        assertion: MCPAssertion,
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = (
            "client_secret_basic"
        ),
        token_dir: str | os.PathLike[str] | None = None,
    ) -> MCPOAuth:
        """Enterprise-managed sign-in (SEP-990): ``assertion(audience, resource)``
        returns an ID-JAG from the enterprise's identity provider, exchanged
        at the authorization server ``issuer`` (configured, never taken from
        the MCP server) for a token, with ``client_id`` / ``client_secret``."""
        _check_text("client_secret", client_secret, optional=False)
        if not callable(assertion):
            raise TypeError("MCPOAuth.identity_assertion(assertion=...) must be a function")
        if token_endpoint_auth_method not in _SECRET_AUTH:
            raise ValueError(
                "MCPOAuth.identity_assertion(token_endpoint_auth_method=...) must be "
                f"client_secret_basic or client_secret_post, got {token_endpoint_auth_method!r}"
            )
        oauth = cls.client_credentials(client_id, client_secret, token_dir=token_dir)
        oauth.grant = "identity_assertion"
        oauth.issuer = _check_issuer(issuer, optional=False)
        oauth._assertion = assertion
        oauth.token_endpoint_auth_method = token_endpoint_auth_method
        return oauth

    @property
    def client(self) -> str:
        """Who signs in, as the token file is keyed: the client's id, or how it registers."""
        return self.client_id or self.client_metadata_url or f"registered by {self.grant}"

    def __repr__(self) -> str:  # never the secret, the key or the assertion
        shown = [f"grant={self.grant!r}"]
        if self.client_id is not None:
            shown.append(f"client_id={self.client_id!r}")
        if self._client_secret is not None:
            shown.append("client_secret=<hidden>")
        if self._private_key is not None:
            shown.append("private_key=<hidden>")
        if self.issuer is not None:
            shown.append(f"issuer={self.issuer!r}")
        return f"MCPOAuth({', '.join(shown)})"


def _check_text(label: str, value: object, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value:
        raise TypeError(
            f"MCPOAuth({label}=...) must be a non-empty str, got {type(value).__name__}"
        )


def _check_issuer(issuer: str | None, *, optional: bool = True) -> str | None:
    _check_text("issuer", issuer, optional=optional)
    if issuer is not None and not issuer.startswith(("https://", "http://")):
        raise ValueError(f"MCPOAuth(issuer=...) must be an http(s) URL, got {issuer!r}")
    return issuer


def _is_metadata_url(url: str) -> bool:
    from urllib.parse import urlparse

    parsed = urlparse(url)
    return parsed.scheme == "https" and parsed.path not in ("", "/")


def _check_token_dir(token_dir: str | os.PathLike[str] | None) -> Path | None:
    """A folder of the user's choosing, but not the notebook's (nor one shown
    inside it: a hidden one, such as ``~/.local`` under a home folder, is fine)."""
    if token_dir is None:
        return None
    folder = Path(token_dir).expanduser().resolve()
    here = Path.cwd().resolve()
    inside = folder == here or here in folder.parents
    if inside and not any(part.startswith(".") for part in folder.relative_to(here).parts):
        raise ValueError(
            f"MCPOAuth(token_dir={str(token_dir)!r}) is inside the notebook's folder, where a "
            "token could be committed or shared: choose a folder outside it (the default is "
            "the user's data folder)"
        )
    return folder
