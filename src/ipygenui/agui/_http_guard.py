"""The checks every request to ``Runtime.ag_ui_app()`` passes before its body
is read and before anything touches the runtime, as Jupyter Server does.

Any web page the user opens and any local process can reach a loopback port,
so, in this order: the ``Host`` must be a loopback name (a page on a
rebinding domain names its own), an ``Origin`` other than the server's own
must be allowed, the token must be sent, the body must be
``application/json`` (a page can POST ``text/plain`` without a CORS
preflight), at most ``max_body_bytes`` long (read in chunks, never whole) and
nested at most ``max_depth`` deep. A refused request gets a JSON
``{"error": ...}`` saying what to change.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._internal.json_depth import json_depth

if TYPE_CHECKING:
    from starlette.requests import Request

DEFAULT_MAX_BODY_BYTES = 1_000_000
DEFAULT_MAX_DEPTH = 64
"""Arrays and objects inside each other. A ``RunAgentInput`` needs about 6
(messages, a call, its function) plus its tools' schemas and the state, so
64 leaves real inputs room and stays far below Python's recursion limit."""

LOOPBACK_NAMES = frozenset({"localhost"})
"""Host names that are loopback whatever DNS says (plus every loopback IP)."""

HOW_TO_PASS = (
    "send the header 'Authorization: Bearer <token>' or add '?token=<token>' to the URL; "
    "the token is the app's .token (app = rt.ag_ui_app())"
)


class Refused(Exception):
    """A request the endpoint does not serve: ``status`` and the message it reads."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def host_name(host: str) -> str:
    """``host`` without its port, lower case: ``[::1]:80`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass
class HttpGuard:
    """What a request must show to reach the runtime (see the module's docstring)."""

    token: str
    allow_origins: frozenset[str] = frozenset()
    """Origins (``scheme://host:port``) whose pages may call; ``"*"`` is any."""
    allow_hosts: frozenset[str] = frozenset()
    """Host names served besides the loopback ones; ``"*"`` is any."""
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    _token_bytes: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.token, str) or not self.token:
            raise ValueError("the AG-UI endpoint needs a token: a non-empty string")
        self._token_bytes = self.token.encode()
        for name, value in (("max_body_bytes", self.max_body_bytes), ("max_depth", self.max_depth)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")

    @classmethod
    def of(
        cls,
        token: str,
        allow_origins: Iterable[str],
        allow_hosts: Iterable[str] | None,
        max_body_bytes: int,
        max_depth: int,
    ) -> HttpGuard:
        if isinstance(allow_origins, str) or isinstance(allow_hosts, str):
            raise TypeError("allow_origins and allow_hosts are lists of strings, not one string")
        origins = frozenset(o.strip().rstrip("/").lower() for o in allow_origins)
        hosts = frozenset(host_name(h) for h in allow_hosts or ())
        return cls(token, origins, hosts, max_body_bytes, max_depth)

    # --- the headers: Host, Origin, token, content type ----------------------

    def check_host(self, request: Request) -> None:
        host = request.headers.get("host")
        if host is None:
            raise Refused(403, "no Host header: the AG-UI endpoint serves HTTP/1.1 requests")
        name = host_name(host)
        if not (is_loopback(name) or name in self.allow_hosts or "*" in self.allow_hosts):
            raise Refused(
                403,
                f"Host {host!r} is not served: only loopback names (localhost, 127.0.0.1, [::1]) "
                "unless ag_ui_app(allow_hosts=[...]) names more",
            )

    def allowed_origin(self, request: Request) -> str | None:
        """The request's ``Origin`` when it may be answered with CORS headers;
        None when it has none or is the server's own; ``Refused`` otherwise."""
        origin = request.headers.get("origin")
        if origin is None:
            return None  # not sent by a browser page: the token decides
        normal = origin.strip().rstrip("/").lower()
        if urlsplit(normal).netloc == request.headers.get("host", "").lower():
            return None  # same origin
        if normal in self.allow_origins or "*" in self.allow_origins:
            return origin
        raise Refused(
            403,
            f"cross-origin request from {origin!r} refused: "
            "list the origin in ag_ui_app(allow_origins=[...]) to let its pages call",
        )

    def check_token(self, request: Request) -> None:
        sent = self._sent_token(request)
        if sent is None:
            raise Refused(
                401,
                f"this AG-UI endpoint needs its token: {HOW_TO_PASS}",
                {"WWW-Authenticate": "Bearer"},
            )
        if not hmac.compare_digest(sent.encode(), self._token_bytes):
            raise Refused(403, f"wrong token: {HOW_TO_PASS}")

    @staticmethod
    def _sent_token(request: Request) -> str | None:
        header = request.headers.get("authorization")
        if header is not None:
            scheme, _, value = header.strip().partition(" ")
            if scheme.lower() in ("bearer", "token") and value.strip():
                return value.strip()
            return ""  # some other scheme: a wrong token, not a missing one
        return request.query_params.get("token")

    @staticmethod
    def check_json_type(request: Request) -> None:
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            raise Refused(
                415,
                f"the body must be sent as 'Content-Type: application/json', "
                f"not {kind or 'none'!r}",
            )

    # --- the body: size, then depth, then JSON ---------------------------------

    async def read_json(self, request: Request) -> Any:
        """The body parsed, read chunk by chunk and refused past the limits."""
        return self.parse(await self.read_body(request))

    async def read_body(self, request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                raise Refused(400, f"Content-Length {declared!r} is not a number") from None
            if length > self.max_body_bytes:
                raise self._too_large()
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > self.max_body_bytes:
                raise self._too_large()
        return bytes(body)

    def _too_large(self) -> Refused:
        return Refused(
            413,
            f"the body is larger than {self.max_body_bytes} bytes: "
            "send less, or serve with ag_ui_app(max_body_bytes=...)",
        )

    def parse(self, body: bytes) -> Any:
        too_deep = Refused(
            400,
            f"the JSON nests arrays and objects more than {self.max_depth} deep: "
            "a RunAgentInput never does (ag_ui_app(max_depth=...) allows more)",
        )
        if json_depth(body) > self.max_depth:
            raise too_deep
        try:
            return json.loads(body)
        except RecursionError:  # max_depth set above what the parser can nest
            raise too_deep from None
        except ValueError as exc:
            raise Refused(400, f"the body is not JSON: {exc}") from None

    # --- CORS -------------------------------------------------------------------

    @staticmethod
    def cors_headers(origin: str | None) -> dict[str, str]:
        """The headers that let an allowed origin's page read the answer."""
        if origin is None:
            return {}
        return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}

    def preflight_headers(self, request: Request) -> dict[str, str]:
        """A CORS preflight's answer; ``Refused`` unless the origin is allowed."""
        origin = self.allowed_origin(request)
        if origin is None:
            raise Refused(403, "not a cross-origin preflight: OPTIONS needs an allowed Origin")
        return {
            **self.cors_headers(origin),
            "Access-Control-Allow-Methods": "POST",
            "Access-Control-Allow-Headers": "authorization, content-type",
            "Access-Control-Max-Age": "600",
        }
