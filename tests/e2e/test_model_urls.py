"""Model-written URLs in real JupyterLab: nothing loads until the user asks.

A scripted reply names images on a local HTTP server that records every
request it gets (markdown image, ``<img src>``, ``srcset``, ``<picture>``,
a video poster) and a same-origin path on the Jupyter server itself (found
in the server's log). The browser must request none of them until the user
clicks a placeholder, then exactly the clicked one. A reply with a
``<frameset>`` block still shows the text after it.

Waits use a control image: once the recorder has served it, a request the
page made while rendering the reply would have arrived too.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, Locator, expect

from .harness import LabPage, LabServer, report_on_failure, shared_notebook
from .widget import assistant, send_from_ui

pytestmark = pytest.mark.e2e

LONG_WAIT = 60_000  # ms; a ceiling for slow CI, never a measured speed

# A 1x1 transparent PNG: a request that is answered loads a real image.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


class Recorder:
    """An HTTP server on 127.0.0.1 that answers every GET with a PNG and records its path."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with recorder._lock:
                    recorder.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(_PNG)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(_PNG)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.host = self.url.removeprefix("http://")
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def seen(self) -> list[str]:
        with self._lock:
            return list(self.paths)

    def wait_for(self, path: str, timeout: float = LONG_WAIT / 1000) -> None:
        deadline = time.monotonic() + timeout
        while path not in self.seen():
            if time.monotonic() > deadline:
                raise AssertionError(f"{path} never requested; got {self.seen()}")
            time.sleep(0.05)

    def barrier(self, lab: LabPage) -> str:
        """Load a control image in the page and wait for it: earlier requests are in."""
        path = f"/control-{secrets.token_hex(4)}.png"
        lab.page.evaluate(
            """(src) => { const img = new Image(); img.src = src; }""", self.url + path
        )
        self.wait_for(path)
        return path


@pytest.fixture(scope="module")
def urls_page(lab_server: LabServer, browser: Browser) -> Iterator[LabPage]:
    with shared_notebook(lab_server, browser, "e2e/urls.ipynb") as lab:
        yield lab


@pytest.fixture
def lab(request: pytest.FixtureRequest, urls_page: LabPage, lab_server: LabServer) -> LabPage:
    report_on_failure(request, lab_server, [urls_page])
    urls_page.keep_cells(2)
    return urls_page


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    rec = Recorder()
    rec.start()
    try:
        yield rec
    finally:
        rec.stop()


def show_chat(lab: LabPage, reply: str) -> Locator:
    before = lab.chats().count()
    lab.run_code(f"chat = make_chat({reply!r})\ndisplay(chat)")
    return lab.chat(before)


def test_model_images_load_only_the_one_the_user_clicks(
    lab: LabPage, recorder: Recorder, lab_server: LabServer
) -> None:
    same_origin = f"/gu-same-origin-{secrets.token_hex(6)}.png"
    r = recorder.url
    reply = (
        f"A chart: ![chart]({r}/md.png?secret=s1)\n\n"
        + f'<img src="{r}/raw.png?secret=s2" alt="raw">\n\n'
        + f'<img srcset="{r}/srcset.png 1x, {r}/srcset2.png 2x" alt="set">\n\n'
        + f'<picture><source srcset="{r}/source.png"><img src="{r}/picture.png"></picture>\n\n'
        + f'<video poster="{r}/poster.png" src="{r}/video.mp4" preload="auto"></video>\n\n'
        + f"And ![logout]({same_origin}?secret=s3) from the page's own server.\n\n"
        + "END-OF-REPLY"
    )
    chat = show_chat(lab, reply)
    send_from_ui(chat, "show me the chart")
    message = assistant(chat)
    expect(message).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    expect(message.locator(".gu-text")).to_contain_text("END-OF-REPLY")
    expect(chat.locator("textarea.gu-input")).to_have_value("")  # the kernel took the text

    first = recorder.barrier(lab)
    assert recorder.seen() == [first], "the reply made the browser fetch by itself"
    assert same_origin not in lab_server.log_tail(400)
    assert message.locator("img[src], video[src], video[poster], source[srcset]").count() == 0

    # Placeholders name the host; a click loads exactly that image.
    buttons = message.get_by_role("button", name=f"Load image from {recorder.host}", exact=True)
    expect(buttons).to_have_count(3)  # markdown, <img>, <picture>'s <img>
    expect(
        message.get_by_role("button", name=f"Load video from {recorder.host}", exact=True)
    ).to_be_visible()
    buttons.first.click()
    expect(buttons).to_have_count(2)  # the clicked one is gone
    recorder.wait_for("/md.png?secret=s1")
    second = recorder.barrier(lab)
    assert recorder.seen() == [first, "/md.png?secret=s1", second]
    loaded = message.locator(f'img[src="{r}/md.png?secret=s1"]')
    expect(loaded).to_be_visible()
    assert loaded.evaluate("(img) => img.decode().then(() => img.naturalWidth)") == 1

    # The same-origin one too only on its click (the server log shows it then).
    assert same_origin not in lab_server.log_tail(400)
    host = lab.page.evaluate("() => location.host")
    message.get_by_role("button", name=f"Load image from {host}", exact=True).click()
    deadline = time.monotonic() + LONG_WAIT / 1000
    while same_origin not in lab_server.log_tail(400):
        assert time.monotonic() < deadline, "the clicked same-origin image was never requested"
        time.sleep(0.1)
    third = recorder.barrier(lab)
    assert recorder.seen() == [first, "/md.png?secret=s1", second, third]

    # The chat remembers: a second view of it shows the allowed image at once.
    lab.run_code("display(chat)")
    again = assistant(lab.chat(lab.chats().count() - 1))
    expect(again.locator(f'img[src="{r}/md.png?secret=s1"]')).to_be_visible(timeout=LONG_WAIT)
    expect(
        again.get_by_role("button", name=f"Load image from {recorder.host}", exact=True)
    ).to_have_count(2)


def test_a_frameset_block_does_not_hide_the_rest_of_the_reply(
    lab: LabPage, recorder: Recorder
) -> None:
    reply = (
        "Before the block.\n\n"
        f'<frameset><frame src="{recorder.url}/frame.html"></frameset>\n\n'
        "AFTER-FRAMESET text is still shown."
    )
    chat = show_chat(lab, reply)
    send_from_ui(chat, "go")
    message = assistant(chat)
    expect(message).to_have_attribute("data-status", "complete", timeout=LONG_WAIT)
    text = message.locator(".gu-text")
    expect(text).to_contain_text("Before the block.")
    expect(text).to_contain_text("AFTER-FRAMESET text is still shown.")
    expect(text).to_contain_text("<frameset>")  # the block, as escaped text
    assert message.locator("frameset, frame").count() == 0
    control = recorder.barrier(lab)
    assert recorder.seen() == [control]
    assert not [line for line in lab.console if "pageerror" in line]
