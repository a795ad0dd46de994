"""The kernel's loopback listener for one OAuth sign-in, and the check of a
URL the browser landed on, for ``ipygenui.mcp``'s sign-in card.

A browser on the same machine as the kernel is sent back to
``http://127.0.0.1:<port>/callback?code=...&state=...``: the listener,
opened on 127.0.0.1 only for that one sign-in, takes the first request on
the callback path whose ``state`` is the sign-in's, answers a small page
("you can close this tab") and closes. Anything else (another path, another
state, a request too long or too slow) is refused and the listener waits on.
It closes with the sign-in: landed, cancelled or timed out.

A browser elsewhere cannot reach it: the user pastes the URL the browser
landed on, which ``check_landed`` accepts only at this redirect URI (scheme,
host, port and path) with this sign-in's ``state``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

__all__ = ["Loopback", "check_landed", "free_loopback_uri", "loopback_port"]

MAX_REQUEST_BYTES = 16_384
"""A request line and headers longer than this are refused."""
READ_SECONDS = 10.0
"""How long one connection may take to send its request."""
MAX_PASTED_CHARS = 8_192

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>{title}</title>"
    "<body style='font-family:system-ui,sans-serif;margin:3rem'>"
    "<h1 style='font-size:1.3rem'>{title}</h1><p>{text}</p>"
)
_DONE = _PAGE.format(
    title="Signed in", text="The notebook has the sign-in. You can close this tab."
)
_REFUSED = _PAGE.format(
    title="Not this sign-in",
    text="This page is not the one the notebook waits for. Go back to the notebook.",
)


def free_loopback_uri() -> str:
    """A redirect URI on a loopback port free now (registered with the client)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/callback"


def loopback_port(redirect_uri: str) -> int | None:
    """The port to listen on for ``redirect_uri``, if it is an http URI of 127.0.0.1."""
    parts = urlsplit(redirect_uri)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or parts.hostname != "127.0.0.1" or not port:
        return None
    return port


def _query_value(url: str, name: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get(name)
    return values[0] if values else None


def check_landed(url: str, redirect_uri: str, state: str | None) -> str:
    """``url`` (pasted by the user) if it is this sign-in's redirect; else
    ``ValueError`` saying what is wrong with it."""
    url = url.strip()
    if not url or len(url) > MAX_PASTED_CHARS:
        raise ValueError("paste the whole address the browser landed on after signing in")
    got, want = urlsplit(url), urlsplit(redirect_uri)
    try:
        same_port = got.port == want.port
    except ValueError:
        same_port = False
    same_place = (
        got.scheme.lower() == want.scheme.lower()
        and (got.hostname or "") == (want.hostname or "")
        and same_port
        and got.path == want.path
    )
    if not same_place:
        raise ValueError(
            f"that address is not this sign-in's: it must start with {redirect_uri} "
            "(paste the address the browser landed on after signing in)"
        )
    if state is not None and _query_value(url, "state") != state:
        raise ValueError(
            "that address belongs to another sign-in (its state differs): paste the one "
            "from this sign-in's page"
        )
    if _query_value(url, "code") is None and _query_value(url, "error") is None:
        raise ValueError("that address has no authorization code: the sign-in did not finish")
    return url


class Loopback:
    """A listener on ``127.0.0.1:port`` for one sign-in's redirect; ``on_landed``
    gets the whole URL the browser was sent back to (once)."""

    def __init__(self, redirect_uri: str, state: str | None, on_landed: Callable[[str], None]):
        self.redirect_uri = redirect_uri
        self._state = state
        self._on_landed = on_landed
        self._server: asyncio.Server | None = None
        self._done = False

    async def open(self) -> bool:
        """Start listening; whether it could (a port taken: the paste field only)."""
        port = loopback_port(self.redirect_uri)
        if port is None:
            return False
        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)
        except OSError:
            return False
        return True

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_SECONDS)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
            writer.close()
            return
        if len(head) > MAX_REQUEST_BYTES:
            await _answer(writer, 431, _REFUSED)
            return
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        method, _, rest = line.partition(" ")
        target = rest.rsplit(" ", 1)[0]
        wanted = urlsplit(self.redirect_uri).path
        mine = (
            method == "GET"
            and urlsplit(target).path == wanted
            and (self._state is None or _query_value(target, "state") == self._state)
        )
        if not mine or self._done:
            await _answer(writer, 404 if method == "GET" else 405, _REFUSED)
            return
        self._done = True
        await _answer(writer, 200, _DONE)
        self._on_landed(_origin(self.redirect_uri) + target)
        if self._server is not None:
            self._server.close()  # one sign-in, one redirect


def _origin(uri: str) -> str:
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


async def _answer(writer: asyncio.StreamWriter, status: int, page: str) -> None:
    body = page.encode()
    reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 431: "Too Large"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n"
        "Referrer-Policy: no-referrer\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(OSError):
        await writer.drain()
    writer.close()
