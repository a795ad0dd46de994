"""``MCPOAuth`` wired to the MCP SDK's OAuth clients (``mcp.client.auth``), for
``ipygenui.mcp``'s HTTP transport; and the sentence for a server that wants a
sign-in the client cannot do.

The SDK does the protocol (discovery, registration, PKCE, scopes and step-up,
resource indicators, refresh); this module picks its provider for the grant,
gives it the token file (``_token_store.py``), and turns the one
``redirect`` function of ``MCPOAuth`` into the SDK's two callbacks (open
this URL; what came back). Without ``redirect``, the chat the tools belong
to asks instead (``ChatSignIn``): a card with the URL, a loopback listener
and a field for the address the browser landed on (``_loopback.py``).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from ..errors import MCPSignInError
from ..tools.sign_ins import SignIn, SignInCancelled, SignIns
from ._loopback import Loopback, check_landed, free_loopback_uri, loopback_port
from ._token_store import TokenFile, default_token_dir, token_file
from .oauth import DEFAULT_REDIRECT_URI, MCPOAuth, MCPRedirect

if TYPE_CHECKING:
    import httpx2
    from mcp.shared.auth import AuthorizationCodeResult

__all__ = ["SIGN_IN_SECONDS", "ChatSignIn", "auth_provider", "token_store", "unauthorized_text"]

SIGN_IN_SECONDS = 600.0
"""How long a sign-in card waits for the user before the sign-in fails."""


@dataclass
class ChatSignIn:
    """The chat that shows this server's sign-in card (``desk``), the name the
    card gives the server, and ``asked``: set when a card opens (a chat being
    built stops waiting for the tools then)."""

    desk: SignIns
    name: str
    asked: threading.Event = field(default_factory=threading.Event)


ChatOf = Callable[[], "ChatSignIn | None"]


def token_store(oauth: MCPOAuth, server_url: str) -> TokenFile:
    """The file ``oauth``'s tokens for ``server_url`` are kept in."""
    folder = oauth.token_dir or default_token_dir()
    return TokenFile(token_file(folder, server_url, oauth.client), server_url)


async def _result(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class _SignIn:
    """The SDK's redirect and callback handlers from one ``redirect`` function."""

    def __init__(
        self,
        redirect: MCPRedirect | None,
        server_url: str,
        redirect_uri: str = DEFAULT_REDIRECT_URI,
        chat: ChatOf = lambda: None,
    ) -> None:
        self._redirect = redirect
        self._server_url = server_url
        self._redirect_uri = redirect_uri
        self._chat = chat
        self._back: str | None = None

    async def open(self, authorization_url: str) -> None:
        redirect = self._redirect
        self._back = None
        if redirect is None:
            chat = self._chat()
            if chat is None:
                raise MCPSignInError(
                    f"The MCP server {self._server_url} asks you to sign in, and nobody can be "
                    "asked: put these tools in a gu.Chat (it shows a sign-in card), or pass "
                    "gu.MCPOAuth(redirect=...), a function that opens the URL it gets and returns "
                    "the URL the browser came back to"
                )
            self._back = await self._in_chat(chat, authorization_url)
            return
        # a plain function may block (input(), a loopback listener): not on the loop
        back = await _result(
            redirect(authorization_url)
            if inspect.iscoroutinefunction(redirect)
            else await asyncio.to_thread(redirect, authorization_url)
        )
        if not isinstance(back, str) or not back:
            raise MCPSignInError(
                f"MCPOAuth(redirect=...) must return the URL the browser came back to, got {back!r}"
            )
        self._back = back

    async def _in_chat(self, chat: ChatSignIn, authorization_url: str) -> str:
        """The chat's card: the URL shown, the loopback listener open for this
        one sign-in, until the browser comes back, the user pastes where it
        landed, cancels, or ``SIGN_IN_SECONDS`` pass."""
        uri = self._redirect_uri
        state = _query_value(authorization_url, "state")
        sign_in = SignIn(
            server=chat.name,
            url=authorization_url,
            redirect_uri=uri,
            listening=False,
            check=lambda pasted: check_landed(pasted, uri, state),
        )
        loopback = Loopback(uri, state, sign_in.landed)
        sign_in.listening = await loopback.open()
        chat.asked.set()
        try:
            return await chat.desk.ask(sign_in, SIGN_IN_SECONDS)
        except SignInCancelled:
            raise MCPSignInError(
                f"the sign-in to {chat.name} was cancelled: its tools stay out of the chat "
                "until you sign in (await tools.connect() shows the card again)"
            ) from None
        except TimeoutError:
            raise MCPSignInError(
                f"nobody signed in to {chat.name} within {SIGN_IN_SECONDS:g} s"
            ) from None
        finally:
            await loopback.close()

    async def returned(self) -> AuthorizationCodeResult:
        from mcp.shared.auth import AuthorizationCodeResult

        back, self._back = self._back, None
        query = parse_qs(urlparse(back or "").query)

        def one(name: str) -> str | None:
            values = query.get(name)
            return values[0] if values else None

        error = one("error")
        if error is not None:
            said = one("error_description")
            raise MCPSignInError(
                f"The sign-in to {self._server_url} was refused: {error}"
                + (f" ({said})" if said else "")
            )
        code = one("code")
        if code is None:
            raise MCPSignInError(
                f"The URL the browser came back to has no authorization code: {back!r}"
            )
        return AuthorizationCodeResult(code=code, state=one("state"), iss=one("iss"))


def _query_value(url: str, name: str) -> str | None:
    values = parse_qs(urlparse(url).query).get(name)
    return values[0] if values else None


def auth_provider(oauth: MCPOAuth, server_url: str, chat: ChatOf = lambda: None) -> httpx2.Auth:
    """The SDK's ``httpx2.Auth`` that signs the requests to ``server_url`` in
    (``chat``: who shows the sign-in card when ``oauth`` has no ``redirect``)."""
    store = token_store(oauth, server_url)
    secret = oauth._client_secret
    if oauth.grant == "identity_assertion":
        from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

        assertion = oauth._assertion
        assert assertion is not None and secret is not None and oauth.issuer is not None

        async def id_jag(audience: str, resource: str) -> str:
            return str(await _result(assertion(audience, resource)))

        return IdentityAssertionOAuthProvider(
            server_url=server_url,
            storage=store,
            client_id=oauth.client,
            client_secret=secret,
            issuer=oauth.issuer,
            assertion_provider=id_jag,
            token_endpoint_auth_method=_secret_method(oauth),
        )
    if oauth.grant == "client_credentials":
        from mcp.client.auth.extensions.client_credentials import (
            ClientCredentialsOAuthProvider,
            PrivateKeyJWTOAuthProvider,
            SignedJWTParameters,
        )

        if oauth._private_key is not None:
            signed = SignedJWTParameters(
                issuer=oauth.client,
                subject=oauth.client,
                signing_key=oauth._private_key,
                signing_algorithm=oauth.signing_algorithm,
            )
            return PrivateKeyJWTOAuthProvider(
                server_url=server_url,
                storage=store,
                client_id=oauth.client,
                assertion_provider=signed.create_assertion_provider(),
                issuer=oauth.issuer,
            )
        assert secret is not None
        return ClientCredentialsOAuthProvider(
            server_url=server_url,
            storage=store,
            client_id=oauth.client,
            client_secret=secret,
            token_endpoint_auth_method=_secret_method(oauth),
            issuer=oauth.issuer,
        )
    return _authorization_code(oauth, server_url, store, chat)


def _secret_method(oauth: MCPOAuth) -> Any:
    method = oauth.token_endpoint_auth_method
    secret_methods = ("client_secret_basic", "client_secret_post")
    return method if method in secret_methods else "client_secret_basic"


def redirect_uri_for(oauth: MCPOAuth, store: TokenFile) -> str:
    """Where the browser is sent back to: the one given; with ``redirect`` or a
    registered client, ``DEFAULT_REDIRECT_URI``; for a chat's card, the
    loopback URI the client registered with before (kept in its record, so
    the authorization server knows it), else one of a port free now."""
    if oauth.redirect_uri is not None:
        return oauth.redirect_uri
    if oauth.redirect is not None or oauth.client_id is not None:
        return DEFAULT_REDIRECT_URI
    client = store.saved_client()
    for uri in client.get("redirect_uris") or [] if isinstance(client, dict) else []:
        if isinstance(uri, str) and loopback_port(uri) is not None:
            return uri
    return free_loopback_uri()


def _authorization_code(
    oauth: MCPOAuth, server_url: str, store: TokenFile, chat: ChatOf
) -> httpx2.Auth:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
    from pydantic import AnyUrl

    redirect_uri = redirect_uri_for(oauth, store)
    redirect_uris = [AnyUrl(redirect_uri)]
    metadata = OAuthClientMetadata(
        client_name=oauth.client_name,
        redirect_uris=redirect_uris,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        # registering: the authorization server says how (its answer is what the SDK uses)
        token_endpoint_auth_method=oauth.token_endpoint_auth_method if oauth.client_id else None,
    )
    registered = None
    if oauth.client_id is not None:  # a client registered beforehand: never written to the file
        registered = OAuthClientInformationFull(
            client_id=oauth.client_id,
            client_secret=oauth._client_secret,
            redirect_uris=redirect_uris,
            token_endpoint_auth_method=oauth.token_endpoint_auth_method,
        )
    sign_in = _SignIn(oauth.redirect, server_url, redirect_uri, chat)

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            if registered is not None:
                self.context.client_info = registered

    return Provider(
        server_url=server_url,
        client_metadata=metadata,
        storage=store,
        redirect_handler=sign_in.open,
        callback_handler=sign_in.returned,
        client_metadata_url=oauth.client_metadata_url,
    )


# --- a server that wants a sign-in we were not told how to do -----------------------


async def unauthorized_text(server_url: str, status: int, challenge: str | None) -> str:
    """What to say when the server answered ``status`` (401) with no ``auth=``
    given: whether it publishes OAuth metadata (then ``auth=gu.MCPOAuth(...)``
    signs in), or not (then it wants a token some other way)."""
    from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls
    from mcp.shared._httpx_utils import create_mcp_http_client

    said = f" ({challenge})" if challenge else ""
    where = _challenge_field(challenge, "resource_metadata")
    urls = build_protected_resource_metadata_discovery_urls(where, server_url)
    origin = urlparse(server_url)
    urls.append(f"{origin.scheme}://{origin.netloc}/.well-known/oauth-authorization-server")
    found: str | None = None
    try:
        async with create_mcp_http_client() as client:
            for url in urls:
                response = await client.get(url)
                if response.status_code == 200 and response.headers.get(
                    "content-type", ""
                ).startswith("application/json"):
                    found = url
                    break
    except Exception:  # the server answered the MCP request: a probe that fails says nothing
        found = None
    if found is not None:
        return (
            f"needs sign-in: it answered {status} Unauthorized{said} and publishes OAuth metadata "
            f"at {found}. Pass auth=gu.MCPOAuth(...) to gu.MCPTools.http to sign in"
        )
    return (
        f"needs sign-in: it answered {status} Unauthorized{said}, and no OAuth metadata was "
        f"found (tried {', '.join(urls)}). It may want a token in headers= "
        "(e.g. {'Authorization': 'Bearer ...'}) from its provider"
    )


def _challenge_field(challenge: str | None, name: str) -> str | None:
    import re

    if not challenge:
        return None
    match = re.search(rf'{name}=(?:"([^"]+)"|([^\s,]+))', challenge)
    return (match.group(1) or match.group(2)) if match else None
