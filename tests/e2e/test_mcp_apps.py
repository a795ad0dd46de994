"""MCP Apps in real JupyterLab and Chromium, with a real server written with the
``mcp`` SDK (tests/mcp_apps_server.py): the app renders in its call's place,
gets its tool input and result, calls a server tool through the kernel (one
that asks first waits for Approve), sends a message the user confirms, opens
a link only once the user has seen it whole, resizes and is torn down; it
hears ``tool-cancelled`` when the user rejects its call and a result with
``isError`` when its call fails; and a hostile app stays in its sandbox: no
parent DOM, cookies or storage, no request reaching the Jupyter server or a
local recording server, no top navigation, no popup; a message from any other
window is ignored. An app's declared CSP origin (a public one, checked by the
browser's CSP reports: a local one is dropped) lets its requests through while
another stays blocked. An app written with the official MCP Apps SDK's ``App``
(``@modelcontextprotocol/ext-apps``, from ``tests/peers/``) reads every host
capability and its tool's definition, closes itself through the usual
teardown, and downloads a file only on the user's click; through
``App.requestDisplayMode`` it covers the window full screen (Esc and the
head's button bring it back) and floats as a panel while the notebook
scrolls, its document never reloaded; an app whose resource asks for
permissions loads only after Allow, its frame given exactly those features.

Screenshots light, dark and in a 500 px window go to ``docs/screenshots/``
with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FrameLocator, Locator, expect

from .harness import REPO, LabPage, LabServer, report_on_failure, serving, shared_notebook
from .widget import assistant, messages, send_from_ui, shoot_500px_window, tool_card

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed
SETUP_CELLS = 2
SERVER = REPO / "tests" / "mcp_apps_server.py"
LINK = "https://example.com/docs?from=counter"
STUB_OPEN = """() => {
  window.__opened = [];
  window.open = (...a) => { window.__opened.push(a); return null; };
}"""
# every postMessage the page receives, to see the app answer the teardown
RECORD_MESSAGES = """() => {
  window.__appMessages = [];
  if (window.__appRecorder) return;  // one listener, however many tests install it
  window.__appRecorder = true;
  window.addEventListener("message", (e) => window.__appMessages.push(e.data));
}"""


PROXY = REPO / "tests" / "fixtures" / "mcp_apps" / "proxy.html"
SDK = REPO / "tests" / "peers" / "node_modules" / "@modelcontextprotocol" / "ext-apps"
ESBUILD = REPO / "js" / "node_modules" / ".bin" / "esbuild"


class _Recorder(BaseHTTPRequestHandler):
    """Records each request; ``/proxy.html`` gets the sandbox proxy page."""

    seen: list[str]

    def _record(self) -> None:
        if self.path == "/proxy.html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(PROXY.read_bytes())
            return
        self.seen.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(b"reached")

    do_GET = do_POST = do_OPTIONS = _record

    def log_message(self, *args: object) -> None:
        pass


def _recording() -> Iterator[tuple[str, list[str]]]:
    """A local server that records every request reaching it: its URL and what it saw."""
    seen: list[str] = []
    handler = type("Recorder", (_Recorder,), {"seen": seen})
    with serving(handler) as url:
        yield url, seen


@pytest.fixture(scope="module")
def probe() -> Iterator[tuple[str, list[str]]]:
    """A local server no app declares: no request should reach it."""
    yield from _recording()


@pytest.fixture
def undeclared() -> Iterator[tuple[str, list[str]]]:
    """A local server beside it that the app's CSP does not declare."""
    yield from _recording()


@pytest.fixture(scope="module")
def sdk_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The server's env for ``show_sdk``: the official SDK's ``App`` as one script
    (its ESM bundle made an IIFE: the app's CSP takes inline scripts only)."""
    out = tmp_path_factory.mktemp("sdk") / "ext-apps.js"
    entry = SDK / "dist" / "src" / "app-with-deps.js"
    build = [str(ESBUILD), str(entry), "--bundle", "--format=iife", "--global-name=McpApps"]
    subprocess.run([*build, "--minify", f"--outfile={out}"], check=True, capture_output=True)
    return {"MCP_APPS_SDK": str(out)}


@pytest.fixture(scope="module")
def apps_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/mcp_apps.ipynb") as lab:
        yield lab


@pytest.fixture
def page(request: pytest.FixtureRequest, apps_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [apps_page])
    apps_page.keep_cells(SETUP_CELLS)
    return apps_page


def show_chat(lab: LabPage, env: dict[str, str], **options: str) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({str(SERVER)!r}, {env!r}, **{options!r})\ndisplay(chat)")
    return lab.chat(before)


def app_of(card: Locator) -> FrameLocator:
    return card.frame_locator("iframe.gu-app-frame")


def shoot(lab: LabPage, card: Locator, shots: Path, name: str) -> None:
    """The card light and dark at 1280 px, and light in a 500 px window."""
    app = app_of(card)
    card.scroll_into_view_if_needed()
    card.screenshot(path=shots / f"mcp-app-{name}-light-1280.png")
    try:
        lab.set_theme("JupyterLab Dark")
        expect(app.locator("#theme")).to_have_text("dark")  # host-context-changed
        card.scroll_into_view_if_needed()
        card.screenshot(path=shots / f"mcp-app-{name}-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")  # a saved setting: restore it
    expect(app.locator("#theme")).to_have_text("light")
    shoot_500px_window(lab, card, shots / f"mcp-app-{name}-light-500.png")


def test_an_app_renders_calls_its_server_and_talks_to_the_chat(
    page: LabPage, screenshots: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    page.page.evaluate(STUB_OPEN)
    page.page.evaluate(RECORD_MESSAGES)
    chat = show_chat(page, {"MCP_TEST_NOTES": str(notes)})
    send_from_ui(chat, "show the counter")
    card = tool_card(chat, "show_counter")
    app = app_of(card)
    # the input and the result, sent once the app said it was initialized
    expect(app.locator("#input")).to_have_text('{"start":5}', timeout=LONG_WAIT)
    expect(app.locator("#result")).to_contain_text("Counter shown from 5")
    expect(app.locator("#theme")).to_have_text("light")
    # the HTML is the iframe's alone: none of it in the widget's DOM
    assert chat.locator("#title").count() == 0
    frame = card.locator("iframe.gu-app-frame")
    assert frame.get_attribute("sandbox") == "allow-scripts allow-forms"
    expect(assistant(chat)).to_contain_text("The app is shown.", timeout=LONG_WAIT)
    shoot(page, card, screenshots, "counter")

    # an app-only tool, through the kernel to the server
    app.locator("#bump").click()
    expect(app.locator("#count")).to_have_text("1", timeout=LONG_WAIT)
    # a tool that asks first: nothing runs before Approve
    app.locator("#save").click()
    ask = card.locator(".gu-app-ask")
    expect(ask).to_contain_text("The app asks to call save_note.", timeout=LONG_WAIT)
    expect(ask.locator(".gu-app-ask-args")).to_contain_text('"text": "from the app"')
    card.scroll_into_view_if_needed()
    card.screenshot(path=screenshots / "mcp-app-approval-light-1280.png")
    assert not notes.exists()
    ask.locator("button.gu-app-yes").click()
    saved = "save_note: saved 'from the app'"
    expect(app.locator("#log")).to_contain_text(saved, timeout=LONG_WAIT)
    assert notes.read_text() == "from the app\n"
    # a model-only tool is refused to the app
    app.locator("#secret").click()
    expect(app.locator("#log")).to_contain_text("secret refused", timeout=LONG_WAIT)

    # size-changed: the iframe follows the app's height
    height = frame.evaluate("(el) => el.getBoundingClientRect().height")
    app.locator("#grow").click()
    expect(app.locator("#extra")).to_have_text("grown")
    grew = frame.evaluate(
        """(el, h) => new Promise((resolve) => {
          let tries = 0;  // a ceiling for slow CI, never a measured speed
          const check = () => {
            if (el.getBoundingClientRect().height > h + 150) resolve(true);
            else if (++tries > 1200) resolve(false);
            else setTimeout(check, 50);
          };
          check();
        })""",
        height,
    )
    if not grew:
        now = frame.evaluate("(el) => [el.style.height, el.closest('.gu-app').dataset.appHeight]")
        raise AssertionError(f"the iframe stayed {now} (was {height}px)")

    # a link: shown whole, opened only on the click
    app.locator("#link").click()
    expect(ask).to_contain_text(LINK, timeout=LONG_WAIT)
    assert page.page.evaluate("() => window.__opened.length") == 0
    ask.locator("button.gu-app-yes").click()
    expect(app.locator("#log")).to_contain_text("link opened", timeout=LONG_WAIT)
    assert page.page.evaluate("() => window.__opened") == [[LINK, "_blank", "noopener,noreferrer"]]

    # the model context, then a message the user confirms: the context rides on it
    app.locator("#context").click()
    expect(app.locator("#log")).to_contain_text("context updated", timeout=LONG_WAIT)
    app.locator("#tell").click()
    expect(ask).to_contain_text("The counter says hello", timeout=LONG_WAIT)
    assert messages(chat, "user").count() == 1  # not sent before the click
    ask.locator("button.gu-app-yes").click()
    expect(assistant(chat)).to_contain_text("heard: The counter says hello", timeout=LONG_WAIT)
    said = page.run_json("chat.thread.messages[-2].metadata.get('component_state')")
    [entry] = said.values()
    assert entry == {
        "component": "show_counter",
        "state": {"model_context": {"content": [{"type": "text", "text": "count is 1"}]}},
    }

    # torn down: the app answers ui/resource-teardown before its frame goes
    card.locator("button.gu-app-close").click()
    expect(card.locator(".gu-app-note")).to_have_text("App closed.", timeout=LONG_WAIT)
    assert card.locator("iframe.gu-app-frame").count() == 0
    answered = page.page.evaluate(
        "() => window.__appMessages.filter((m) => String(m?.id).startsWith('host-'))"
    )
    assert answered == [{"jsonrpc": "2.0", "id": "host-1", "result": {}}]


def test_an_app_that_navigates_its_frame_away_is_closed(page: LabPage) -> None:
    chat = show_chat(page, {})
    send_from_ui(chat, "show the counter")
    card = tool_card(chat, "show_counter")
    app = app_of(card)
    expect(app.locator("#result")).to_contain_text("Counter shown from 5", timeout=LONG_WAIT)
    app.locator("#away").click()
    expect(card.locator(".gu-app-note")).to_have_text(
        "The app left its page and was closed.", timeout=LONG_WAIT
    )
    assert card.locator("iframe.gu-app-frame").count() == 0
    expect(card.locator(".gu-app-fallback")).to_contain_text("Counter shown from 5")


def test_a_hostile_app_stays_in_its_sandbox(page: LabPage, probe: tuple[str, list[str]]) -> None:
    url, seen = probe
    page.page.evaluate(STUB_OPEN)
    page.page.evaluate("() => { document.cookie = 'gu=1'; localStorage.setItem('x', 'kept'); }")
    lab_url = page.page.url
    chat = show_chat(page, {"MCP_APPS_PROBE": url})
    send_from_ui(chat, "show the hostile app")
    card = tool_card(chat, "show_hostile")
    app = app_of(card)
    expect(app.locator("body[data-done='1']")).to_have_count(1, timeout=LONG_WAIT)
    out = json.loads(app.locator("#out").text_content() or "{}")
    assert out["parent_document"].startswith("blocked: SecurityError")
    assert out["cookie"].startswith("blocked: SecurityError")
    assert out["local_storage"].startswith("blocked: SecurityError")
    assert (out["kernels"], out["probe_fetch"], out["probe_image"]) == ("blocked",) * 3
    assert page.page.url == lab_url  # the top window was not navigated
    assert page.page.evaluate("() => window.__opened") == []  # no popup through the page
    assert chat.locator("h3", has_text="Hostile app").count() == 0  # not in the widget's DOM

    # a message from another window (the page itself, another iframe) is ignored
    page.page.evaluate(
        """() => {
      const msg = {jsonrpc: "2.0", id: 9, method: "ui/open-link", params: {url: "https://evil.example"}};
      window.postMessage(msg, "*");
      const other = document.createElement("iframe");
      other.setAttribute("sandbox", "allow-scripts");
      other.srcdoc = `<script>parent.postMessage(${JSON.stringify(msg)}, "*")</script>`;
      document.body.append(other);
    }"""
    )
    send_from_ui(chat, "anything")  # a round trip: the messages above had time to arrive
    expect(assistant(chat)).to_contain_text("heard: anything", timeout=LONG_WAIT)
    assert card.locator(".gu-app-ask").count() == 0
    assert seen == []  # nothing reached the recording server


def test_an_app_runs_behind_a_sandbox_proxy_on_another_origin(
    page: LabPage, probe: tuple[str, list[str]]
) -> None:
    url, seen = probe
    proxy = f"{url}/proxy.html"  # another port: another origin than JupyterLab's
    chat = show_chat(page, {}, app_origin=proxy)
    send_from_ui(chat, "show the counter")
    card = tool_card(chat, "show_counter")
    frame = card.locator("iframe.gu-app-frame")
    expect(frame).to_have_attribute("src", proxy, timeout=LONG_WAIT)
    assert frame.get_attribute("sandbox") == "allow-scripts allow-forms allow-same-origin"
    app = card.frame_locator("iframe.gu-app-frame").frame_locator("iframe")
    expect(app.locator("#input")).to_have_text('{"start":5}', timeout=LONG_WAIT)
    expect(app.locator("#result")).to_contain_text("Counter shown from 5")
    app.locator("#bump").click()  # through the proxy, the host and the kernel to the server
    expect(app.locator("#count")).to_have_text("1", timeout=LONG_WAIT)
    assert seen == []  # the proxy page alone was fetched from that origin


def test_the_offline_demo_model_opens_the_demo_servers_app(
    page: LabPage, screenshots: Path
) -> None:
    demo_server = REPO / "notebooks" / "mcp_demo_server.py"
    before = page.chats().count()
    page.run_code(
        "demo = gu.Chat(model=gu.model('demo', delay=0), tools=[gu.MCPTools.stdio("
        f"sys.executable, [{str(demo_server)!r}], trust_annotations=True)])\ndisplay(demo)"
    )
    chat = page.chat(before)
    send_from_ui(chat, "Show me the weather dashboard for Oslo")
    card = tool_card(chat, "weather_dashboard")
    app = app_of(card)
    expect(app.locator("#city")).to_have_text("Weather in Oslo", timeout=LONG_WAIT)
    expect(app.locator("#temp")).to_have_text("22 °C, partly cloudy")
    card.scroll_into_view_if_needed()
    card.screenshot(path=screenshots / "mcp-app-demo-light-1280.png")
    try:
        page.set_theme("JupyterLab Dark")
        card.scroll_into_view_if_needed()
        card.screenshot(path=screenshots / "mcp-app-demo-dark-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    app.locator("#tomorrow").click()  # ui/message: the user confirms it first
    card.locator(".gu-app-ask button.gu-app-yes").click()
    expect(messages(chat, "user").last).to_contain_text("What's the weather in Oslo tomorrow?")


def test_an_app_whose_message_leaves_the_view_hears_its_teardown(page: LabPage) -> None:
    chat = show_chat(page, {})
    send_from_ui(chat, "show the counter")
    card = tool_card(chat, "show_counter")
    expect(app_of(card).locator("#result")).to_contain_text(
        "Counter shown from 5", timeout=LONG_WAIT
    )
    page.page.evaluate(RECORD_MESSAGES)
    page.run_code("chat.new_thread()")  # another thread: the app's message view is dropped
    expect(chat.locator(".gu-tool-call")).to_have_count(0, timeout=LONG_WAIT)
    # the app answered ui/resource-teardown from where its frame waited, then went
    page.page.wait_for_function(
        "() => window.__appMessages.some((m) => String(m?.id).startsWith('host-'))",
        timeout=LONG_WAIT,
    )
    answered = page.page.evaluate(
        "() => window.__appMessages.filter((m) => String(m?.id).startsWith('host-'))"
    )
    assert answered == [{"jsonrpc": "2.0", "id": "host-1", "result": {}}]
    expect(chat.locator("iframe.gu-app-frame, .gu-app-leaving")).to_have_count(0)


def test_an_app_hears_tool_cancelled_when_the_user_rejects_its_call(page: LabPage) -> None:
    chat = show_chat(page, {}, requires_approval=True)
    send_from_ui(chat, "show the counter")
    card = tool_card(chat, "show_counter")
    app = app_of(card)
    expect(app.locator("#title")).to_have_text("Counter app", timeout=LONG_WAIT)  # shown as it asks
    card.locator("input.gu-reject-reason").fill("not now")
    card.locator("button.gu-reject").click()
    expect(app.locator("#ended")).to_have_text("cancelled: not now", timeout=LONG_WAIT)
    expect(app.locator("#input")).to_have_text('{"start":5}')
    expect(app.locator("#result")).to_have_text("none")  # no result after it


def test_an_app_whose_call_fails_hears_a_result_with_is_error(page: LabPage) -> None:
    chat = show_chat(page, {}, requires_approval=True)
    send_from_ui(chat, "show the failing counter")
    card = tool_card(chat, "show_failing")
    app = app_of(card)
    expect(app.locator("#title")).to_have_text("Counter app", timeout=LONG_WAIT)
    card.locator("button.gu-approve:not(.gu-app-yes)").click()
    expect(app.locator("#ended")).to_have_text("error", timeout=LONG_WAIT)
    expect(app.locator("#result")).to_contain_text("the counter from 5 broke")


def test_an_apps_csp_lets_its_declared_origin_through_and_no_other(
    page: LabPage, undeclared: tuple[str, list[str]]
) -> None:
    # a public origin no server answers: an app may not name a local one (its CSP
    # drops loopback and private addresses), so what is checked is what the CSP
    # refused, as the browser reports it (the app's securitypolicyviolation events)
    allowed = "https://allowed.apps-test.example"
    other, other_reached = undeclared
    chat = show_chat(page, {"MCP_APPS_ALLOWED": allowed, "MCP_APPS_PROBE": other})
    send_from_ui(chat, "show the csp app")
    card = tool_card(chat, "show_csp")
    app = app_of(card)
    expect(app.locator("body[data-done='1']")).to_have_count(1, timeout=LONG_WAIT)
    out = json.loads(app.locator("#out").text_content() or "{}")
    assert out["probe_fetch"] == "blocked"
    assert out["refused"] == [f"{other}/fetch", f"{other}/image"]  # not the declared origin's
    policy = card.locator("iframe.gu-app-frame").get_attribute("srcdoc") or ""
    assert f"connect-src {allowed};" in policy and f"img-src 'self' data: {allowed};" in policy
    assert other_reached == []  # declared nowhere: nothing reached it


def show_sdk_app(page: LabPage, sdk_env: dict[str, str]) -> tuple[Locator, FrameLocator]:
    chat = show_chat(page, sdk_env)
    send_from_ui(chat, "show the sdk")
    card = tool_card(chat, "show_sdk")
    app = app_of(card)
    expect(app.locator("#log")).to_contain_text("result heard", timeout=LONG_WAIT)
    return card, app


def test_the_official_sdks_app_sees_every_host_capability(
    page: LabPage, sdk_env: dict[str, str]
) -> None:
    _, app = show_sdk_app(page, sdk_env)
    caps = json.loads(app.locator("#caps").inner_text())
    # what the host does, under the spec's names (McpUiHostCapabilities)
    assert caps["message"] == {"text": {}}
    assert caps["updateModelContext"] == {"text": {}, "structuredContent": {}}
    assert caps["downloadFile"] == {}
    assert {"openLinks", "serverTools", "serverResources", "logging", "sandbox"} <= caps.keys()


def test_the_official_sdks_app_reads_its_tools_listed_definition(
    page: LabPage, sdk_env: dict[str, str]
) -> None:
    _, app = show_sdk_app(page, sdk_env)
    info = json.loads(app.locator("#tool").inner_text())
    # the JSON-RPC id the tools/call went under, as the server heard it (the chat's id is not it)
    heard = re.search(r"request (\S+)", app.locator("#log").inner_text())
    assert heard is not None and info["id"] == heard.group(1)
    assert info["id"].startswith("ipygenui-call-")
    # the server's own definition of the tool, as it listed it
    tool = info["tool"]
    assert tool["name"] == "show_sdk"
    assert tool["title"] == "SDK app"
    assert tool["description"].startswith("Show the app written with the official MCP Apps SDK")
    assert tool["inputSchema"]["properties"]["topic"]["type"] == "string"
    assert tool["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert tool["_meta"]["ui"]["resourceUri"] == "ui://sdk/app"


def test_the_official_sdks_request_teardown_closes_the_app(
    page: LabPage, sdk_env: dict[str, str]
) -> None:
    card, app = show_sdk_app(page, sdk_env)
    page.page.evaluate(RECORD_MESSAGES)
    app.locator("#teardown").click()
    # the usual teardown: ui/resource-teardown heard and answered, then the frame goes
    expect(card.locator(".gu-app-note")).to_have_text("The app closed itself.", timeout=LONG_WAIT)
    assert card.locator("iframe.gu-app-frame").count() == 0
    seen = page.page.evaluate("() => window.__appMessages")
    assert {"sdkTestTornDown": True} in seen
    assert {"jsonrpc": "2.0", "id": "host-1", "result": {}} in seen


def test_the_official_sdks_download_waits_for_the_users_click(
    page: LabPage, sdk_env: dict[str, str], screenshots: Path
) -> None:
    card, app = show_sdk_app(page, sdk_env)
    ask = card.locator(".gu-app-ask")
    # refused: the user cancels, nothing downloads
    app.locator("#download").click()
    expect(ask).to_contain_text("report.csv", timeout=LONG_WAIT)
    ask.locator("button.gu-app-no").click()
    expect(app.locator("#log")).to_contain_text("download refused: report.csv", timeout=LONG_WAIT)
    # accepted: the name and size shown, the file saved only on the click
    app.locator("#download").click()
    expect(ask).to_contain_text("report.csv", timeout=LONG_WAIT)
    expect(ask).to_contain_text("8 bytes")
    expect(ask).to_contain_text("text/csv")
    card.scroll_into_view_if_needed()
    card.screenshot(path=screenshots / "mcp-app-download-light-1280.png")
    try:
        page.set_theme("JupyterLab Dark")
        card.scroll_into_view_if_needed()
        card.screenshot(path=screenshots / "mcp-app-download-dark-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    with page.page.expect_download(timeout=LONG_WAIT) as saved:
        ask.locator("button.gu-app-yes").click()
    download = saved.value
    assert download.suggested_filename == "report.csv"
    assert Path(download.path()).read_text() == "a,b\n1,2\n"
    expect(app.locator("#log")).to_contain_text("download done: report.csv", timeout=LONG_WAIT)
    # over the cap: refused at once, no bar
    app.locator("#download-big").click()
    expect(app.locator("#log")).to_contain_text("download error:", timeout=LONG_WAIT)
    expect(app.locator("#log")).to_contain_text("10 MB")
    assert ask.count() == 0
    # a bidi override in the name: flagged, as on the approval card
    app.locator("#download-bidi").click()
    expect(ask.locator(".gu-invisible-warning")).to_contain_text(
        "invisible or bidirectional character", timeout=LONG_WAIT
    )
    expect(ask.locator(".gu-app-download-name .gu-invisible")).to_have_count(1)  # in the name too
    ask.locator("button.gu-app-no").click()
    expect(app.locator("#log")).to_contain_text("download refused", timeout=LONG_WAIT)


def shoot_window(lab: LabPage, shots: Path, name: str, dark_check: Locator) -> None:
    """The whole window light and dark at 1280 px, and light at 500 px (the theme restored)."""
    lab.page.screenshot(path=shots / f"mcp-app-{name}-light-1280.png")
    try:
        lab.set_theme("JupyterLab Dark")
        expect(dark_check).to_have_attribute("data-theme", "dark")  # host-context-changed
        lab.page.screenshot(path=shots / f"mcp-app-{name}-dark-1280.png")
    finally:
        lab.set_theme("JupyterLab Light")
    lab.page.set_viewport_size({"width": 500, "height": 900})
    try:
        lab.page.wait_for_timeout(300)  # the layout settles; nothing is measured
        lab.page.screenshot(path=shots / f"mcp-app-{name}-light-500.png")
    finally:
        lab.page.set_viewport_size({"width": 1280, "height": 900})


def test_the_official_sdks_app_goes_full_screen_and_back_without_reloading(
    page: LabPage, sdk_env: dict[str, str], screenshots: Path
) -> None:
    card, app = show_sdk_app(page, sdk_env)
    assert json.loads(app.locator("#caps").inner_text())["sandbox"]["permissions"] == {}
    expect(app.locator("#mode")).to_have_text("inline")
    loaded = app.locator("#loaded").inner_text()
    app.locator("#bump").click()
    app.locator("#bump").click()
    expect(app.locator("#clicks")).to_have_text("2")
    shown = card.locator(".gu-app")
    frame = card.locator("iframe.gu-app-frame")

    app.locator("#fullscreen").click()  # the SDK's App.requestDisplayMode
    answered = "asked fullscreen, got fullscreen"
    expect(app.locator("#log")).to_contain_text(answered, timeout=LONG_WAIT)
    expect(app.locator("#mode")).to_have_text("fullscreen")  # host-context-changed
    expect(shown).to_have_attribute("data-display-mode", "fullscreen")
    # the card covers the window, above JupyterLab's own panels, the frame filling it below the head
    assert shown.bounding_box() == {"x": 0, "y": 0, "width": 1280, "height": 900}
    box = frame.bounding_box()
    assert box is not None and box["width"] == 1280 and box["height"] > 820
    on_top = page.page.evaluate(
        "() => [[5, 890], [640, 450], [1275, 5]].map(([x, y]) => document.elementFromPoint(x, y)"
        "?.closest('.gu-app')?.dataset.displayMode ?? null)"
    )
    assert on_top == ["fullscreen"] * 3
    expect(card.locator(".gu-app-away")).to_contain_text("The app is shown full screen.")
    # the frame's size below the head, told to the app
    told = re.compile(r'dimensions \{"height":8\d\d,"width":1280\}')
    expect(app.locator("#log")).to_contain_text(told)
    shoot_window(page, screenshots, "fullscreen", app.locator("html"))

    page.page.keyboard.press("Escape")  # the focus is on the host's Exit full screen
    expect(app.locator("#mode")).to_have_text("inline", timeout=LONG_WAIT)
    expect(shown).to_have_attribute("data-display-mode", "inline")
    assert (shown.bounding_box() or {})["width"] < 1280  # back in its card
    # the same document all along: its JS state kept, never reloaded
    expect(app.locator("#clicks")).to_have_text("2")
    assert app.locator("#loaded").inner_text() == loaded

    # the head's visible button returns it too
    app.locator("#fullscreen").click()
    expect(app.locator("#mode")).to_have_text("fullscreen", timeout=LONG_WAIT)
    card.locator("button.gu-app-inline", has_text="Exit full screen").click()
    expect(app.locator("#mode")).to_have_text("inline", timeout=LONG_WAIT)
    app.locator("#bump").click()
    expect(app.locator("#clicks")).to_have_text("3")
    assert app.locator("#loaded").inner_text() == loaded


def test_the_official_sdks_app_floats_in_pip_while_the_notebook_scrolls(
    page: LabPage, sdk_env: dict[str, str], screenshots: Path
) -> None:
    card, app = show_sdk_app(page, sdk_env)
    page.run_code("print('\\n'.join(map(str, range(400))))")  # a notebook to scroll past
    card.scroll_into_view_if_needed()
    loaded = app.locator("#loaded").inner_text()
    app.locator("#pip").click()
    expect(app.locator("#log")).to_contain_text("asked pip, got pip", timeout=LONG_WAIT)
    expect(app.locator("#mode")).to_have_text("pip")
    shown = card.locator(".gu-app")
    expect(shown).to_have_attribute("data-display-mode", "pip")
    before = shown.bounding_box()
    assert before is not None and before["width"] == 400
    assert before["x"] + before["width"] == 1280 - 16 and before["y"] + before["height"] == 900 - 16
    away = card.locator(".gu-app-away")
    expect(away).to_contain_text("The app is shown in a floating panel.")
    card.screenshot(path=screenshots / "mcp-app-pip-card-light-1280.png")  # its place in the chat
    place = (away.bounding_box() or {})["y"]
    scrolled = card.evaluate(
        """(el) => {
          const outer = el.closest(".jp-WindowedPanel-outer");
          outer.scrollTop += 2000;
          return outer.scrollTop;
        }"""
    )
    assert scrolled > 0
    page.page.wait_for_function(
        "([el, y]) => el.getBoundingClientRect().y < y - 1500", arg=[away.element_handle(), place]
    )
    # the card's place went up with the notebook; the panel stayed where it was, alive
    assert shown.bounding_box() == before
    app.locator("#bump").click()
    expect(app.locator("#clicks")).to_have_text("1")
    shoot_window(page, screenshots, "pip", app.locator("html"))

    card.locator("button.gu-app-inline", has_text="Back to the chat").click()
    expect(app.locator("#mode")).to_have_text("inline", timeout=LONG_WAIT)
    expect(shown).to_have_attribute("data-display-mode", "inline")
    expect(app.locator("#clicks")).to_have_text("1")
    assert app.locator("#loaded").inner_text() == loaded


def test_the_official_sdks_app_gets_its_permissions_only_after_allow(
    page: LabPage, sdk_env: dict[str, str], screenshots: Path
) -> None:
    chat = show_chat(page, sdk_env)
    send_from_ui(chat, "show the sdk asking")
    card = tool_card(chat, "show_sdk_asking")
    ask = card.locator(".gu-app-ask")
    expect(ask).to_contain_text(
        "This app asks for: camera, microphone, writing to the clipboard", timeout=LONG_WAIT
    )
    expect(card.locator(".gu-app-waiting")).to_have_text("The app loads once you answer.")
    assert card.locator("iframe").count() == 0  # nothing loads, nothing granted, before the click
    card.scroll_into_view_if_needed()
    card.screenshot(path=screenshots / "mcp-app-permissions-light-1280.png")
    try:
        page.set_theme("JupyterLab Dark")
        card.scroll_into_view_if_needed()
        card.screenshot(path=screenshots / "mcp-app-permissions-dark-1280.png")
    finally:
        page.set_theme("JupyterLab Light")
    shoot_500px_window(page, card, screenshots / "mcp-app-permissions-light-500.png")
    ask.locator("button.gu-app-yes", has_text="Allow").click()
    frame = card.locator("iframe.gu-app-frame")
    expect(frame).to_have_attribute("allow", "camera; microphone; clipboard-write")
    app = app_of(card)
    expect(app.locator("#log")).to_contain_text("result heard", timeout=LONG_WAIT)
    # the browser lets the frame use exactly those, and the app reads the grant
    assert json.loads(app.locator("#allowed").inner_text()) == [
        "camera",
        "microphone",
        "clipboard-write",
    ]
    caps = json.loads(app.locator("#caps").inner_text())
    assert caps["sandbox"]["permissions"] == {"camera": {}, "microphone": {}, "clipboardWrite": {}}

    # another call of it: asked again, and Continue without grants nothing
    send_from_ui(chat, "show the sdk asking again")
    second = tool_card(chat, "show_sdk_asking").nth(1)
    second.locator(".gu-app-ask button.gu-app-no", has_text="Continue without").click(
        timeout=LONG_WAIT
    )
    app = app_of(second)
    expect(app.locator("#log")).to_contain_text("result heard", timeout=LONG_WAIT)
    assert second.locator("iframe.gu-app-frame").get_attribute("allow") is None
    assert json.loads(app.locator("#allowed").inner_text()) == []
    assert json.loads(app.locator("#caps").inner_text())["sandbox"]["permissions"] == {}
