"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension), the kernel half.

- The client advertises the extension (``APP_EXTENSION``) on every connection.
- A tool whose ``_meta.ui.resourceUri`` names a ``ui://`` resource is an app
  tool: after each call its resource is read (``resources/read``, once per
  server: ``AppResources``) and goes in the result's ``for_user`` entry
  (``mcp_app``): the card shows the app, the model reads the text only, and
  the thread file keeps what a reload needs (the HTML, its CSP, the raw
  ``CallToolResult`` the app is sent, the tool as its server listed it)
  and, for AG-UI clients, its server's name and reference (``server``:
  ``{id, hash}``).
- ``visibility``: a tool without ``"model"`` is left out of the model's
  tools; an app's ``tools/call`` of a tool without ``"app"`` is refused.
- An app's requests (``tools/call``, ``resources/read``) come from the
  browser and are checked here (``app_request``) before they reach its
  server; a tool that asks first is called only with the user's approval
  (``approved``), which the browser gives only on a click outside the app.

The HTML is the server's, untrusted: the browser renders it in a sandboxed
iframe with an opaque origin and a CSP built from ``csp`` (origins checked
here, ``_app_origins.py`` saying which an app may name; anything else is
dropped, named in a warning and in ``csp_dropped``, which the card notes; the
spec's restrictive default otherwise). The ``permissions`` it declares (camera,
microphone, geolocation, clipboard write) are only what it asks for: the
card asks the user before the app loads and grants only what they allow.
"""

from __future__ import annotations

import base64
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._internal.user_view import FOR_USER
from ._app_origins import origin_refusal
from ._results import result_value

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult
    from mcp.types import Tool as MCPTool

__all__ = [
    "APP_EXTENSION",
    "APP_MIME",
    "MAX_APP_BYTES",
    "AppRequestError",
    "AppResources",
    "AppTool",
    "app_request",
    "app_tool",
    "app_view",
    "raw_result",
]

logger = logging.getLogger("ipygenui")

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME = "text/html;profile=mcp-app"
APP_EXTENSION: dict[str, dict[str, Any]] = {EXTENSION_ID: {"mimeTypes": [APP_MIME]}}
"""What the client advertises (``capabilities.extensions``)."""

MAX_APP_BYTES = 2 * 1024 * 1024
"""Largest app HTML shown: it is saved with the thread."""

MAX_DOMAINS = 32
_ORIGIN = re.compile(r"(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?")
"""An origin a CSP may name: scheme, host (a leading ``*.`` allowed), port; no
path, quote, space or semicolon that could add a directive."""

_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
PERMISSION_KEYS = ("camera", "microphone", "geolocation", "clipboardWrite")
"""The spec's ``McpUiResourcePermissions``: what an app may ask the user for."""


@dataclass(frozen=True)
class AppTool:
    """What a server tool's ``_meta.ui`` says, and the tool as its server
    listed it (``definition``: the app reads it as ``hostContext.toolInfo.tool``)."""

    resource_uri: str | None
    visibility: tuple[str, ...] = ("model", "app")
    definition: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def for_model(self) -> bool:
        return "model" in self.visibility

    @property
    def for_app(self) -> bool:
        return "app" in self.visibility


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def app_tool(listed: MCPTool) -> AppTool:
    """The app metadata of ``listed`` (a ``resourceUri`` not ``ui://`` is ignored)."""
    meta = _object(listed.meta)
    ui = _object(meta.get("ui"))
    uri = ui.get("resourceUri", meta.get("ui/resourceUri"))  # the flat form is deprecated
    if not (isinstance(uri, str) and uri.startswith("ui://") and len(uri) <= 2_000):
        uri = None
    definition = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
    visibility = ui.get("visibility")
    if isinstance(visibility, list) and all(v in ("model", "app") for v in visibility):
        return AppTool(uri, tuple(visibility), definition)
    return AppTool(uri, definition=definition)


def clean_csp(
    csp: Any, uri: str, dropped: list[dict[str, str]] | None = None
) -> dict[str, list[str]]:
    """The declared domains that are plain origins an app may name
    (``_app_origins.py``); each other one is dropped with a warning naming it,
    and, as ``{key, origin, reason}``, added to ``dropped`` (the card notes it)."""
    if not isinstance(csp, dict):
        return {}
    clean: dict[str, list[str]] = {}
    for key in _CSP_KEYS:
        domains = csp.get(key)
        if not isinstance(domains, list):
            continue
        kept = []
        for domain in domains[:MAX_DOMAINS]:
            ok = isinstance(domain, str) and _ORIGIN.fullmatch(domain)
            why = origin_refusal(domain) if ok else "not a plain origin"
            if why is None:
                kept.append(domain)
                continue
            shown = repr(domain)[:120]
            logger.warning("MCP app %s: CSP %s entry %s dropped: %s", uri, key, shown, why)
            if dropped is not None:
                dropped.append({"key": key, "origin": shown, "reason": why})
        if len(domains) > MAX_DOMAINS:
            logger.warning("MCP app %s: CSP %s entries past %d dropped", uri, key, MAX_DOMAINS)
        if kept:
            clean[key] = kept
    return clean


def clean_permissions(permissions: Any, uri: str) -> dict[str, dict[str, Any]]:
    """The spec's permissions the resource asks for (``{"camera": {}, ...}``);
    another key is left out and logged. Nothing is granted here: the browser
    asks the user before the app loads."""
    if not isinstance(permissions, dict):
        return {}
    unknown = [str(key)[:40] for key in permissions if key not in PERMISSION_KEYS]
    if unknown:
        logger.warning("MCP app %s: permissions %s not known, left out", uri, unknown[:8])
    return {key: {} for key in PERMISSION_KEYS if isinstance(permissions.get(key), dict)}


@dataclass
class AppResources:
    """The ``ui://`` resources of one server, read once each."""

    cache: dict[str, dict[str, Any]] = field(default_factory=dict)
    reads: int = 0

    async def read(self, session: ClientSession, uri: str) -> dict[str, Any]:
        """``{uri, html, csp, prefers_border}`` (``ValueError`` saying why not)."""
        if uri in self.cache:
            return self.cache[uri]
        self.reads += 1
        result = await session.read_resource(uri)
        contents = [c for c in result.contents if str(c.uri) == uri] or list(result.contents)
        if not contents:
            raise ValueError(f"the server returned nothing for {uri}")
        content = contents[0]
        mime = (content.mime_type or "").replace(" ", "").lower()
        if mime != APP_MIME:
            raise ValueError(f"{uri} is {content.mime_type!r}, not {APP_MIME!r}")
        text = getattr(content, "text", None)
        if text is None:
            text = base64.b64decode(getattr(content, "blob", "") or "").decode("utf-8", "replace")
        if len(text.encode()) > MAX_APP_BYTES:
            raise ValueError(f"{uri} is over {MAX_APP_BYTES:,} bytes of HTML")
        ui = _object(_object(content.meta).get("ui"))
        dropped: list[dict[str, str]] = []
        app: dict[str, Any] = {
            "uri": uri,
            "html": text,
            "csp": clean_csp(ui.get("csp"), uri, dropped),
        }
        if dropped:
            app["csp_dropped"] = dropped[:MAX_DOMAINS]
        permissions = clean_permissions(ui.get("permissions"), uri)
        if permissions:
            app["permissions"] = permissions
        if isinstance(ui.get("prefersBorder"), bool):
            app["prefers_border"] = ui["prefersBorder"]
        logger.info("MCP app %s read; CSP %s", uri, app["csp"] or "(the spec's default)")
        self.cache[uri] = app
        return app

    async def specs(self, session: ClientSession, tools: dict[str, AppTool]) -> dict[str, Any]:
        """Tool name -> its app (with the tool's ``definition``), for ``tools``
        (those with a resource URI); an app that cannot be read is left out
        (its calls show their text)."""
        out: dict[str, Any] = {}
        for name, tool in tools.items():
            if tool.resource_uri is None:
                continue
            try:
                app = await self.read(session, tool.resource_uri)
            except Exception as exc:
                logger.warning("MCP app %s of %s not shown: %s", tool.resource_uri, name, exc)
                continue
            out[name] = {**app, "tool": tool.definition}  # the cached read stays the server's
        return out


def raw_result(result: Any) -> dict[str, Any]:
    """A ``CallToolResult`` as the app reads it (JSON, the spec's camelCase)."""
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


class AppRequestError(Exception):
    """An app's request refused: ``code`` and ``message`` go back to the app
    as a JSON-RPC error; ``needs_approval``: ask the user, then send it again.
    A refused request reached no server (``reached_server`` False): nothing ran."""

    reached_server = False

    def __init__(self, code: int, message: str, needs_approval: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.needs_approval = needs_approval


async def app_view(
    resources: AppResources,
    session: ClientSession,
    tool: AppTool,
    result: CallToolResult,
    server: dict[str, str],
    request_id: str | None = None,
) -> Any:
    """The tool result with the app (and the tool's definition) in its
    ``for_user`` entry (the text alone when the app cannot be read: the
    model's result never depends on it). ``server`` (``{id, hash}``) names
    its server to AG-UI clients; ``request_id``, the JSON-RPC id the
    ``tools/call`` went under (the app's ``hostContext.toolInfo.id``)."""
    value = result_value(result)  # an error result raises: no app for it
    uri = tool.resource_uri
    if uri is None:
        return value
    try:
        app = await resources.read(session, uri)
    except Exception as exc:
        logger.warning("MCP app %s not shown: %s", uri, exc)
        return value
    if not isinstance(value, dict):
        value = {"text": value}
    elif value is result.structured_content:  # the model reads it as without the app
        value = dict(value) if FOR_USER not in value else {"structured": value}
    shown = _object(value.get(FOR_USER))
    app = {**app, "tool": tool.definition, "result": raw_result(result), "server": server}
    if request_id is not None:
        app["request_id"] = request_id
    value[FOR_USER] = {**shown, "mcp_app": app}
    return value


async def app_request(
    apps: dict[str, tuple[AppTool, bool]],
    reads_ask: bool,
    session: ClientSession,
    method: str,
    params: Any,
    approved: bool,
) -> Any:
    """On the worker loop: one request of an app to its server, checked."""
    params = params if isinstance(params, dict) else {}
    if method == "ping":
        return {}
    if method == "tools/call":
        name = params.get("name")
        entry = apps.get(name) if isinstance(name, str) else None
        if entry is None or not entry[0].for_app:
            raise AppRequestError(-32602, f"the tool {str(name)[:80]!r} is not open to apps")
        if entry[1] and not approved:
            raise AppRequestError(-32000, f"{name} asks first", needs_approval=True)
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise AppRequestError(-32602, "tools/call arguments must be an object")
        return raw_result(await session.call_tool(name, arguments or {}))
    if method == "resources/read":
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri or len(uri) > 2_000:
            raise AppRequestError(-32602, "resources/read needs a uri")
        if reads_ask and not uri.startswith("ui://") and not approved:
            raise AppRequestError(-32000, f"reading {uri} asks first", needs_approval=True)
        read = await session.read_resource(uri)
        dumped: dict[str, Any] = read.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    raise AppRequestError(-32601, f"the host does not pass {method[:80]!r} to the server")
