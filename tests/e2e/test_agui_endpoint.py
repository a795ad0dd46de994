"""The AG-UI endpoint (``rt.ag_ui_app()``) against a real web page of another origin.

A page on one loopback port (a small ``http.server``) tries what any site
the user opens could do to the endpoint served by uvicorn on another: a
``no-cors`` ``text/plain`` POST of a valid ``RunAgentInput`` asking to run a
tool (no preflight needed), the same with the token in the URL, and
CORS-mode JSON POSTs with and without the token. The runtime must run
nothing: no message, no model request, the tool never called; the server's
log shows each attempt arrived and was refused. An origin listed in
``allow_origins`` then runs the same input through Chromium's own CORS
checks, so the preflight answer is one a browser accepts.

No JupyterLab: a headless Chromium page is enough.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, UserMessage
from playwright.sync_api import Browser, Page

import ipygenui as gu
from agui_agents import serve
from ipygenui.testing import ScriptedModel
from runtime_helpers import call

from .harness import serving

pytestmark = pytest.mark.e2e

ran: list[str] = []


@gu.tool
def add(a: int, b: int) -> int:
    ran.append("add")
    return a + b


def adding_runtime() -> gu.Runtime:
    model = ScriptedModel([call("add", {"a": 2, "b": 3}, id="a1"), "It is 5."])
    return gu.Runtime(model=model, tools=[add])


RUN_INPUT = RunAgentInput(
    thread_id="t1",
    run_id="page-run",
    messages=[UserMessage(id="u1", content="add 2 and 3")],
    tools=[],
    context=[],
    state={},
    forwarded_props={},
).model_dump(mode="json", by_alias=True)


class Logged:
    """An ASGI app that records (method, status) of every request it answers."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.answers: list[tuple[str, int]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def logging_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.answers.append((scope["method"], message["status"]))
            await send(message)

        await self.app(scope, receive, logging_send)


@pytest.fixture
def page_origin() -> Iterator[str]:
    """A blank page served on its own loopback port: another origin than the endpoint."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>some site</title><p>a page the user opened"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serving(Handler) as url:
        yield url


@pytest.fixture
def page(browser: Browser, page_origin: str) -> Iterator[Page]:
    context = browser.new_context()
    tab = context.new_page()
    tab.goto(page_origin + "/")
    try:
        yield tab
    finally:
        context.close()


ATTACKS = """
async ({url, token, body}) => {
  const text = JSON.stringify(body);
  const outcome = async (promise) => {
    try {
      const r = await promise;
      return r.type === "opaque" ? "opaque" : String(r.status);
    } catch (e) {
      return "blocked";
    }
  };
  return {
    noCors: await outcome(fetch(url, {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: text})),
    noCorsWithToken: await outcome(fetch(url + "?token=" + token, {method: "POST",
      mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: text})),
    corsJson: await outcome(fetch(url, {method: "POST",
      headers: {"Content-Type": "application/json"}, body: text})),
    corsJsonWithToken: await outcome(fetch(url, {method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": "Bearer " + token},
      body: text})),
  };
}
"""


def test_a_page_of_another_origin_runs_nothing_in_the_runtime(page: Page) -> None:
    ran.clear()
    rt = adding_runtime()
    app = rt.ag_ui_app()
    logged = Logged(app)
    with serve(logged) as url:
        # even a page that learnt the token is refused: its origin is not allowed
        outcome = page.evaluate(ATTACKS, {"url": url, "token": app.token, "body": RUN_INPUT})
    assert outcome == {
        "noCors": "opaque",  # sent, and its answer hidden from the page
        "noCorsWithToken": "opaque",
        "corsJson": "blocked",  # the preflight was refused
        "corsJsonWithToken": "blocked",
    }
    assert ran == [] and rt.thread.messages == [] and not rt.running
    model = rt.model
    assert isinstance(model, ScriptedModel) and not model.requests
    # every attempt reached the endpoint and was refused there, before the runtime
    assert logged.answers == [("POST", 403), ("POST", 403), ("OPTIONS", 403), ("OPTIONS", 403)]


ALLOWED_CLIENT = """
async ({url, token, body}) => {
  const r = await fetch(url, {method: "POST",
    headers: {"Content-Type": "application/json", "Accept": "text/event-stream",
              "Authorization": "Bearer " + token},
    body: JSON.stringify(body)});
  const events = (await r.text()).split("\\n").filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)).type);
  return {status: r.status, first: events[0], last: events[events.length - 1]};
}
"""


def test_an_allowed_origin_with_the_token_passes_the_browsers_cors_checks(
    page: Page, page_origin: str
) -> None:
    ran.clear()
    rt = adding_runtime()
    app = rt.ag_ui_app(allow_origins=[page_origin])
    logged = Logged(app)
    with serve(logged) as url:
        result = page.evaluate(ALLOWED_CLIENT, {"url": url, "token": app.token, "body": RUN_INPUT})
    assert result == {"status": 200, "first": "RUN_STARTED", "last": "RUN_FINISHED"}
    assert logged.answers == [("OPTIONS", 204), ("POST", 200)]
    assert ran == ["add"] and rt.thread.messages[-1].text == "It is 5."
