"""Issue 5: ``jupyter nbconvert --execute --to html`` of the quickstart shows the finished thread.

The quickstart runs with the offline model. The exported page must carry the
finished thread in its embedded widget state, and render it with no kernel:
Chromium opens the file from disk while the CDN requests the page makes
(require.js from cdnjs, html-manager's ``embed-amd.js`` from unpkg, the
``anywidget`` AMD module from jsdelivr) are answered from the npm packages in
``js/node_modules`` (devDependencies of ``js/package.json``), checked against
the version range the page asks for.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from ipygenui.models.base import ModelRequest
from ipygenui.models.demo import demo_reply

from .harness import REPO, jupyter_env
from .widget import assistant, messages, text_of, tool_card

pytestmark = pytest.mark.e2e

NODE_MODULES = REPO / "js" / "node_modules"
QUICKSTART = REPO / "notebooks" / "01_quickstart.ipynb"
FIRST_PROMPT = "Hello! What can you do?"  # sent by the quickstart's third code cell
WEATHER_PROMPT = "What's the weather in Paris?"
FIRST_REPLY = demo_reply(ModelRequest(messages=[{"role": "user", "content": FIRST_PROMPT}])).text
"""The demo's answer to the first prompt in a chat without tools, as the quickstart's."""

_STATE_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)
# https://unpkg.com/<pkg>@<range>/<file> and https://cdn.jsdelivr.net/npm/<pkg>@<range>/<file>
_NPM_CDN_RE = re.compile(
    r"^https://(?:unpkg\.com|cdn\.jsdelivr\.net/npm)/"
    r"(?P<pkg>(?:@[^/@]+/)?[^/@]+)@(?P<range>[^/]+)/(?P<file>[^?#]+)"
)
_REQUIRE_JS_RE = re.compile(r"^https://cdnjs\.cloudflare\.com/ajax/libs/require\.js/[^/]+/")
# The page asks for MathJax; the quickstart has no maths, so it may stay blocked.
_MAY_BLOCK_RE = re.compile(r"^https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quickstart executed and exported to HTML (offline model, no API key)."""
    base = tmp_path_factory.mktemp("nbconvert")
    notebook = base / QUICKSTART.name
    shutil.copy(QUICKSTART, notebook)
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "nbconvert",
        "--execute",
        "--to",
        "html",
        "--ExecutePreprocessor.timeout=120",
        str(notebook),
    ]
    done = subprocess.run(
        cmd, cwd=base, env=jupyter_env(base), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"nbconvert failed:\n{done.stdout}\n{done.stderr}"
    return notebook.with_suffix(".html")


def widget_state(html: str) -> dict[str, Any]:
    """The ``{model_id: {model_name, state, ...}}`` map embedded in an exported page."""
    found = _STATE_RE.search(html)
    assert found, "the export has no embedded widget state"
    state: dict[str, Any] = json.loads(found.group(1))["state"]
    return state


def chat_threads(state: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Each embedded Chat's messages (the per-message models' ``message`` dicts), in order."""
    threads = []
    for model in state.values():
        if model["state"].get("_anywidget_id", "").endswith(".Chat"):
            refs = model["state"]["messages"]
            threads.append([state[r.removeprefix("IPY_MODEL_")]["state"]["message"] for r in refs])
    return threads


def text(message: dict[str, Any]) -> str:
    return "".join(p["text"] for p in message["parts"] if p["type"] == "text")


def _words(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


def test_export_embeds_the_finished_thread(exported: Path) -> None:
    state = widget_state(exported.read_text())
    threads = chat_threads(state)
    # the widget's code once (the shared bundle model both chats name), not per chat
    bundles = [m_id for m_id, m in state.items() if "esm" in m["state"]]
    assert len(bundles) == 1
    chats = [m for m in state.values() if m["state"].get("_anywidget_id", "").endswith(".Chat")]
    assert {c["state"]["_bundle"] for c in chats} == {f"IPY_MODEL_{bundles[0]}"}
    assert len(threads) == 3, "the quickstart displays three chats"
    first, weather, picker = threads
    assert [m["role"] for m in picker] == ["user", "assistant"]  # the model section's reply

    assert [(m["role"], m["status"]["type"]) for m in first] == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    assert text(first[0]) == FIRST_PROMPT
    assert first[1]["status"]["reason"] == "stop"
    # the whole reply, not the head of a stream frozen mid-run
    assert text(first[1]) == FIRST_REPLY

    assert text(weather[0]) == WEATHER_PROMPT
    reply = weather[1]
    assert reply["status"]["type"] == "complete"
    [call] = [p for p in reply["parts"] if p["type"] == "tool-call"]
    assert call["tool_name"] == "get_weather"
    assert call["has_result"] and call["result"] == {
        "city": "Paris",
        "temperature_c": 21,
        "sky": "clear",
    }
    assert text(reply) == "It's 21 °C and clear in Paris."


def _satisfies(version_range: str, version: str) -> bool:
    """Enough of semver for the ranges an export asks for: ``*``, ``~0.11.*``, ``^1.0.1``."""
    if version_range in ("*", "latest"):
        return True
    prefix = version_range.lstrip("~^=").removesuffix(".*").removesuffix(".x")
    if version_range.startswith("^") and not prefix.startswith("0."):
        prefix = prefix.split(".")[0]  # ^1.0.1: any 1.x at or above
    return version == prefix or version.startswith(prefix + ".")


@dataclass
class OfflineCdn:
    """Answers the page's CDN requests from ``js/node_modules``; records what it did."""

    served: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)

    def local_file(self, url: str) -> Path | None:
        if _REQUIRE_JS_RE.match(url):
            return NODE_MODULES / "requirejs" / "require.js"
        found = _NPM_CDN_RE.match(url)
        if not found:
            return None
        package = NODE_MODULES / found["pkg"]
        if not (package / "package.json").is_file():
            return None
        version = json.loads((package / "package.json").read_text())["version"]
        if not _satisfies(urllib.parse.unquote(found["range"]), version):
            self.mismatched.append(f"{url} (local {found['pkg']} is {version})")
            return None
        path = package / found["file"]
        return path if path.is_file() else None

    def handle(self, route: Route) -> None:
        url = route.request.url
        path = self.local_file(url)
        if path is None:
            self.blocked.append(url)
            route.abort()
            return
        self.served.append(url)
        route.fulfill(path=str(path), content_type="application/javascript")


@pytest.fixture
def export_page(browser: Browser, exported: Path) -> Iterator[tuple[Page, OfflineCdn, list[str]]]:
    """The exported HTML opened from disk in Chromium, CDN answered offline."""
    for needed in ("@jupyter-widgets/html-manager", "anywidget", "requirejs"):
        if not (NODE_MODULES / needed).is_dir():
            pytest.fail(f"js/node_modules/{needed} is missing: run `cd js && npm ci`")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
    cdn = OfflineCdn()
    page.route(re.compile(r"^(https?|wss?)://"), cdn.handle)
    try:
        page.goto(exported.as_uri())
        yield page, cdn, console
    finally:
        context.close()


def test_exported_html_renders_the_finished_thread_without_a_kernel(
    export_page: tuple[Page, OfflineCdn, list[str]], screenshots: Path
) -> None:
    page, cdn, console = export_page
    chats = page.locator(".jp-OutputArea-output .gu-chat")
    expect(chats, f"console: {console}\ncdn: {cdn}").to_have_count(3, timeout=30_000)
    first, weather = chats.nth(0), chats.nth(1)

    expect(messages(first, "user").locator(".gu-bubble")).to_have_text(FIRST_PROMPT)
    reply = assistant(first)
    expect(reply).to_have_attribute("data-status", "complete")
    expect(reply).to_contain_text("How do I use a real model?")  # the reply's last line
    # the reply's own text: leave the controls around it out (code blocks' Copy buttons)
    page.add_style_tag(content=".gu-copy-code, .gu-actions { display: none !important; }")
    shown = [_words(line) for line in text_of(reply).splitlines() if line.strip()]
    source = _words(re.sub(r"[*`]", "", FIRST_REPLY))
    missing = [line for line in shown if line.removeprefix("• ") not in source]
    assert len(shown) >= 3 and not missing, f"rendered lines not in the reply: {missing}"

    expect(messages(weather, "user").locator(".gu-bubble")).to_have_text(WEATHER_PROMPT)
    expect(tool_card(weather, "get_weather")).to_contain_text("looked up the weather in Paris")
    expect(assistant(weather)).to_contain_text("It's 21 °C and clear in Paris.")
    expect(assistant(weather)).to_have_attribute("data-status", "complete")
    first.screenshot(path=screenshots / "static-export.png")

    # the render came from the local packages, and nothing else was fetched
    assert not cdn.mismatched, cdn.mismatched
    assert any("/@jupyter-widgets/html-manager@" in u for u in cdn.served), cdn
    assert any(re.search(r"/anywidget@[^/]+/dist/index\.js$", u) for u in cdn.served), cdn
    assert all(_MAY_BLOCK_RE.match(u) for u in cdn.blocked), f"unexpected requests: {cdn}"


def test_sending_in_the_exported_html_keeps_the_text_and_says_why(
    export_page: tuple[Page, OfflineCdn, list[str]],
) -> None:
    # No kernel behind a saved page: the typed text must not vanish silently.
    page, _cdn, _console = export_page
    chat = page.locator(".jp-OutputArea-output .gu-chat").nth(0)
    expect(chat).to_be_visible(timeout=30_000)
    box = chat.locator("textarea.gu-input")
    box.fill("is anyone there?")
    box.press("Enter")
    expect(chat.locator(".gu-notice")).to_contain_text("No kernel has answered")
    expect(box).to_have_value("is anyone there?")
