"""An MCP server with MCP Apps for the tests, built with the ``mcp`` SDK (stdio).

Tools: ``show_counter`` (its ``_meta.ui.resourceUri`` names the app
``ui://counter/app``; it says whether the client advertised the MCP Apps
extension), ``bump`` (app-only: ``visibility: ["app"]``, hidden from the
model), ``save_note`` (visible to both, not read-only: it asks first; it
appends to the file ``MCP_TEST_NOTES`` names), ``secret`` (model-only: an
app's call is refused) and ``show_hostile`` (the app ``ui://hostile/app``
tries what a hostile app would; ``MCP_APPS_PROBE`` is the URL of a local
server that records any request reaching it, declared nowhere).

``show_broken`` and ``show_plain`` name apps a host must refuse (one that
cannot be read or is over 2 MB, one that is not ``text/html;profile=mcp-app``).

``show_failing`` shows the counter app and then fails (an ``isError``
result). ``show_csp`` shows ``ui://csp/app``, whose ``_meta.ui.csp`` declares
the origin ``MCP_APPS_ALLOWED`` names (``connectDomains`` and
``resourceDomains``); the app fetches and loads an image from it and from
``MCP_APPS_PROBE``, declared nowhere.

``show_sdk`` shows ``ui://sdk/app``, written with the official MCP Apps SDK
(``@modelcontextprotocol/ext-apps``'s ``App``): ``MCP_APPS_SDK`` names its
bundle as a script (the browser test builds it from ``tests/peers/``).
``show_sdk_asking`` shows the same app as ``ui://sdk/asking``, whose
``_meta.ui.permissions`` asks for the camera, the microphone and clipboard
writes (and ``usb``, which the spec does not name).

``MCP_APPS_READS`` names a file each read of a ``ui://`` resource appends a
line to, so a test sees the host cache them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("ipygenui-apps-test")
UI = "ui://counter/app"
HOSTILE = "ui://hostile/app"
READ_ONLY = ToolAnnotations(read_only_hint=True)
MIME = "text/html;profile=mcp-app"
APPS = Path(__file__).parent / "fixtures" / "mcp_apps"

COUNTER_HTML = (APPS / "counter.html").read_text()

HOSTILE_HTML = (APPS / "hostile.html").read_text()

CSP_APP = "ui://csp/app"
ALLOWED = os.environ.get("MCP_APPS_ALLOWED", "http://127.0.0.1:9")


def _note_read(uri: str) -> None:
    reads = os.environ.get("MCP_APPS_READS")
    if reads:
        with Path(reads).open("a") as f:
            f.write(uri + "\n")


@server.resource(UI, name="counter", mime_type=MIME)
def counter_app() -> str:
    """The counter app."""
    _note_read(UI)
    return COUNTER_HTML


@server.resource(HOSTILE, name="hostile", mime_type=MIME)
def hostile_app() -> str:
    """An app that tries to escape its sandbox."""
    _note_read(HOSTILE)
    probe = os.environ.get("MCP_APPS_PROBE", "http://127.0.0.1:9")
    return HOSTILE_HTML.replace("PROBE", repr(probe))


@server.tool(meta={"ui": {"resourceUri": UI}})
def show_counter(start: int, ctx: Context) -> str:
    """Show a counter starting at ``start``."""
    capabilities: Any = ctx.session.client_params
    extensions = getattr(getattr(capabilities, "capabilities", None), "extensions", None) or {}
    advertised = extensions.get("io.modelcontextprotocol/ui", {}).get("mimeTypes")
    return f"Counter shown from {start}; host app mime types: {advertised}"


COUNT = {"value": 0}


@server.tool(meta={"ui": {"resourceUri": UI, "visibility": ["app"]}})
def bump(by: int = 1) -> dict[str, int]:
    """Add ``by`` to the counter (the app's button)."""
    COUNT["value"] += by
    return {"count": COUNT["value"]}


@server.tool(meta={"ui": {"visibility": ["model", "app"]}})
def save_note(text: str) -> str:
    """Append a note to a file (changes something: asks first)."""
    notes = os.environ.get("MCP_TEST_NOTES")
    if notes:
        with Path(notes).open("a") as f:
            f.write(text + "\n")
    return f"saved {text!r}"


@server.tool(annotations=READ_ONLY, meta={"ui": {"visibility": ["model"]}})
def secret() -> str:
    """For the model only."""
    return "the secret"


BROKEN = "ui://broken/app"


@server.resource(BROKEN, name="broken", mime_type=MIME)
def broken_app() -> str:
    """An app the host must refuse, as ``MCP_APPS_BROKEN`` says: ``huge`` (3 MB),
    or anything else (the read fails)."""
    if os.environ.get("MCP_APPS_BROKEN") == "huge":
        return "<p>" + "x" * 3_000_000 + "</p>"
    raise ValueError("this app cannot be read")


@server.resource("ui://plain/page", name="plain", mime_type="text/html")
def plain_page() -> str:
    """HTML, but not an MCP app (no ``profile=mcp-app``)."""
    return "<p>plain</p>"


@server.tool(meta={"ui": {"resourceUri": BROKEN}})
def show_broken() -> str:
    """A tool whose app cannot be shown."""
    return "broken app's text"


@server.tool(meta={"ui": {"resourceUri": "ui://plain/page"}})
def show_plain() -> str:
    """A tool whose resource is not an MCP app."""
    return "plain page's text"


@server.tool(meta={"ui": {"resourceUri": HOSTILE}})
def show_hostile() -> str:
    """Show the hostile app."""
    return "hostile app shown"


@server.tool(meta={"ui": {"resourceUri": UI}})
def show_failing(start: int) -> str:
    """Show the counter, then fail."""
    raise ToolError(f"the counter from {start} broke")


@server.resource(
    CSP_APP,
    name="csp",
    mime_type=MIME,
    meta={"ui": {"csp": {"connectDomains": [ALLOWED], "resourceDomains": [ALLOWED]}}},
)
def csp_app() -> str:
    """An app that reaches its declared origin and another one."""
    _note_read(CSP_APP)
    probe = os.environ.get("MCP_APPS_PROBE", "http://127.0.0.1:9")
    html = (APPS / "csp.html").read_text()
    return html.replace("ALLOWED", repr(ALLOWED)).replace("PROBE", repr(probe))


@server.tool(meta={"ui": {"resourceUri": CSP_APP}})
def show_csp() -> str:
    """Show the app whose CSP declares one origin."""
    return "csp app shown"


SDK_APP = "ui://sdk/app"


SDK_ASKING = "ui://sdk/asking"
ASKED = {"camera": {}, "microphone": {}, "clipboardWrite": {}, "usb": {}}


def _sdk_html() -> str:
    bundle = Path(os.environ["MCP_APPS_SDK"]).read_text()
    return (
        (APPS / "sdk.html")
        .read_text()
        .replace("SDK_SCRIPT", bundle.replace("</script", "<\\/script"))
    )


@server.resource(SDK_APP, name="sdk", mime_type=MIME)
def sdk_app() -> str:
    """The app written with the official SDK, its bundle inlined (its CSP runs no other script)."""
    return _sdk_html()


@server.resource(SDK_ASKING, name="sdk-asking", mime_type=MIME, meta={"ui": {"permissions": ASKED}})
def sdk_asking_app() -> str:
    """The SDK's app again, asking for permissions."""
    return _sdk_html()


@server.tool(
    title="SDK app",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    meta={"ui": {"resourceUri": SDK_APP}},
)
def show_sdk(topic: str, ctx: Context) -> str:
    """Show the app written with the official MCP Apps SDK on ``topic``."""
    return f"SDK app on {topic}, request {ctx.request_id}"


@server.tool(meta={"ui": {"resourceUri": SDK_ASKING}})
def show_sdk_asking(topic: str) -> str:
    """Show the SDK's app asking for the camera, the microphone and clipboard writes."""
    return f"SDK app asking, on {topic}"


if __name__ == "__main__":
    server.run()
