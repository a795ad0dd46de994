"""A real JupyterLab server and a Playwright page that drives it.

`LabServer` starts ``jupyter lab`` from the current interpreter's environment on a
free loopback port, with every settings/workspace/runtime directory in a temp
folder so it never touches the user's own Jupyter setup. `LabPage` wraps one
browser page showing one notebook and offers the few actions the end-to-end
tests need: run all cells, run a new cell and read its output, find the chat
widget, switch themes.
"""

from __future__ import annotations

import contextlib
import http.server
import importlib.metadata
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page

REPO = Path(__file__).resolve().parents[2]

# Debian's Chromium; GU_CHROMIUM (set by `make e2e CHROMIUM=...`) points elsewhere.
CHROMIUM = os.environ.get("GU_CHROMIUM") or "/usr/bin/chromium"
# The closed network refuses Chromium's background connections; Chromium will
# not start as root with its sandbox on, so the sandbox is off.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]

# JupyterLab settings that keep the page quiet: no news/update toasts.
_QUIET_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def require_chromium() -> str:
    """Return the Debian Chromium path, or fail with the command that installs it."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(
            f"{CHROMIUM} not found: the end-to-end tests drive Debian's Chromium. "
            "Install it with `apt-get install chromium` (or set GU_CHROMIUM to a Chromium)."
        )
    return CHROMIUM


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(handler: Any) -> Iterator[str]:
    """An HTTP server of ``handler`` (a ``BaseHTTPRequestHandler`` class or
    factory) on a free loopback port, in a thread: its base URL (no slash)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def jupyter_env(base: Path) -> dict[str, str]:
    """The environment for a Jupyter process (server, nbconvert) and its kernels.

    Every config/data/runtime directory lives under ``base``, the kernel imports
    the source tree when ipygenui is not installed, and OPENAI_API_KEY is
    removed so notebooks take the offline model.
    """
    env = dict(os.environ)
    for name, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("IPYTHONDIR", "ipython"),
    ):
        path = base / sub
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    for rel, value in _QUIET_SETTINGS.items():
        path = base / "settings" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    try:
        importlib.metadata.distribution("ipygenui")
    except importlib.metadata.PackageNotFoundError:
        # Not installed yet: let the kernel import the source tree (after
        # any PYTHONPATH given, so a patched copy can be tested).
        paths = [env.get("PYTHONPATH", ""), str(REPO / "src")]
        env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    env.pop("OPENAI_API_KEY", None)  # the notebooks must take the offline path
    return env


class LabServer:
    """One ``jupyter lab`` process serving a temp copy of the notebooks."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.root = base / "root"
        self.log_path = base / "jupyter.log"
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def populate(self) -> None:
        """Copy the repo's notebooks to the server root, e2e notebooks under ``e2e/``."""
        self.root.mkdir(parents=True, exist_ok=True)
        for src, dest in ((REPO / "notebooks", self.root), (REPO / "tests/e2e/notebooks", None)):
            if not src.is_dir():
                continue
            target = dest if dest is not None else self.root / "e2e"
            shutil.copytree(src, target, dirs_exist_ok=True)

    def _env(self) -> dict[str, str]:
        return jupyter_env(self.base)

    def start(self, timeout: float = 90.0) -> None:
        """Start the server and wait until ``/api/status`` answers."""
        self.populate()
        cmd = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--LabApp.expose_app_in_browser=True",
            # Notebook 7's pages (``/notebooks/...``) on the same server, driven the same way
            "--JupyterNotebookApp.expose_app_in_browser=True",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        log = self.log_path.open("wb")
        # own process group: teardown can reach kernels the server failed to stop
        self._proc = subprocess.Popen(
            cmd,
            cwd=self.base,
            env=self._env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited early:\n{self.log_tail()}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                self.api("GET", "/api/status")
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer in {timeout:.0f}s:\n{self.log_tail()}")

    def api(self, method: str, path: str) -> Any:
        """Call the server's REST API; returns the decoded JSON body (or None)."""
        req = urllib.request.Request(
            self.url + path,
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Stop every running kernel, so one test's runs never load the next."""
        for kernel in self.api("GET", "/api/kernels"):
            with contextlib.suppress(urllib.error.HTTPError):
                self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self) -> None:
        """Stop the server and its kernels."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(OSError, urllib.error.URLError):
            self.shutdown_kernels()
        with contextlib.suppress(OSError, urllib.error.URLError):
            self.api("POST", "/api/shutdown")
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        # anything left in the group (a kernel that ignored shutdown) goes too
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def log_tail(self, lines: int = 80) -> str:
        if not self.log_path.exists():
            return "(no log)"
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])


# JS run in the page: a prelude of helpers, then one function per action.
_PRELUDE = """
const app = window.jupyterapp;
const findPanel = (path) => {
  if (!app) return null;
  for (const w of Array.from(app.shell.widgets('main'))) {
    if (w.context && w.context.path === path && w.content && w.content.model) return w;
  }
  return null;
};
const activate = (path) => {
  const panel = findPanel(path);
  app.shell.activateById(panel.id);
  return panel;
};
const join = (v) => (Array.isArray(v) ? v.join('') : v);
const readOutputs = (cell) => {
  let text = '';
  const errors = [];
  for (const out of cell.outputs.toJSON()) {
    if (out.output_type === 'stream') text += join(out.text);
    else if (out.output_type === 'error') errors.push(out.ename + ': ' + out.evalue);
    else if (out.data && out.data['text/plain'] !== undefined) text += join(out.data['text/plain']);
  }
  return {text, errors};
};
"""


def _js(signature: str, body: str) -> str:
    return f"{signature} => {{{_PRELUDE}{body}}}"


_READY_JS = _js(
    "(path)",
    """
  const panel = findPanel(path);
  if (!panel || !panel.context.isReady) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  return !!kernel && kernel.status === 'idle' && kernel.connectionStatus === 'connected';
""",
)

_RUN_ALL_JS = _js(
    "async (path)",
    """
  const panel = activate(path);
  await app.commands.execute('notebook:run-all-cells');
  const code = Array.from(panel.content.model.cells).filter((c) => c.type === 'code');
  return code.flatMap((cell) => readOutputs(cell).errors);
""",
)

_RUN_CODE_JS = _js(
    "async ([path, source])",
    """
  const nb = activate(path).content;
  const index = nb.model.cells.length;
  nb.model.sharedModel.insertCell(index, {cell_type: 'code', source});
  nb.activeCellIndex = index;
  nb.deselectAll();
  await app.commands.execute('notebook:run-cell');
  return readOutputs(nb.model.cells.get(index));
""",
)


PAGES_KEY = pytest.StashKey[tuple["LabServer", list["LabPage"]]]()


def report_on_failure(
    request: pytest.FixtureRequest, server: LabServer, pages: list[LabPage]
) -> None:
    """Have a failing test's report carry the server log and these pages' consoles."""
    request.node.stash[PAGES_KEY] = (server, pages)


class CellError(AssertionError):
    """A notebook cell raised in the kernel."""


class LabPage:
    """One browser page showing one notebook in JupyterLab."""

    _counter = 0

    def __init__(self, server: LabServer, browser: Browser) -> None:
        self.server = server
        self.context: BrowserContext = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.console: list[str] = []
        self.page.on("console", lambda msg: self.console.append(f"{msg.type}: {msg.text}"))
        self.page.on("pageerror", lambda err: self.console.append(f"pageerror: {err}"))
        LabPage._counter += 1
        # a fresh workspace per page: nothing restored from an earlier test
        self.workspace = f"e2e{LabPage._counter}"
        self.path = ""

    def close(self) -> None:
        self.context.close()

    def open(self, path: str, timeout: float = 60.0) -> None:
        """Open the notebook at ``path`` (relative to the server root) and wait for its kernel."""
        self.path = path
        url = (
            f"{self.server.url}/lab/workspaces/{self.workspace}/tree/{path}"
            f"?token={self.server.token}"
        )
        self.page.goto(url)
        self.wait_ready(timeout)

    def reload(self, timeout: float = 60.0) -> None:
        """Reload the browser page and wait for the notebook, its kernel and its chat.

        Now and then JupyterLab's widget manager draws a saved output before it
        has the kernel's models: the output reads "model not found" for good
        (its renderer tries again only before the manager says it restored).
        The chat never ran then, so the page is reloaded once more.
        """
        self.page.reload()
        self.wait_ready(timeout)
        if self.lost_widget_models(1, timeout):
            self.page.reload()
            self.wait_ready(timeout)

    def lost_widget_models(self, chats: int, timeout: float = 60.0) -> bool:
        """Whether an output reads JupyterLab's "model not found" before ``chats``
        chats show (False once they show, or when neither happened in time)."""
        lost = self.page.locator(
            ".jp-OutputArea-output", has_text="Error displaying widget: model not found"
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.chats().count() >= chats:
                return False
            if lost.count():
                return True
            self.page.wait_for_timeout(250)
        return False

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the notebook is open and its kernel idle, accepting any dialog."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.dismiss_dialogs()
            if self.page.evaluate(_READY_JS, self.path):
                return
            self.page.wait_for_timeout(200)
        raise TimeoutError(f"notebook {self.path} not ready after {timeout:.0f}s")

    def dismiss_dialogs(self) -> None:
        """Accept any modal dialog (e.g. a kernel picker) that would block clicks."""
        for button in self.page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").all():
            with contextlib.suppress(Exception):
                button.click(timeout=2000)

    def run_all(self) -> None:
        """Run every cell and wait until the last one finished; a cell error fails."""
        errors = self.page.evaluate(_RUN_ALL_JS, self.path)
        if errors:
            raise CellError(f"cells of {self.path} raised: {errors}")

    def run_code(self, source: str) -> str:
        """Append a code cell with ``source``, run it, return its text output."""
        result = self.page.evaluate(_RUN_CODE_JS, [self.path, source])
        if result["errors"]:
            raise CellError(f"cell {source!r} raised: {result['errors']}")
        return str(result["text"])

    def keep_cells(self, count: int) -> None:
        """Delete every cell after the first ``count`` (their widget views go too)."""
        self.page.evaluate(
            _js(
                "([path, count])",
                """
  const model = findPanel(path).content.model;
  if (model.cells.length > count) model.sharedModel.deleteCellRange(count, model.cells.length);
""",
            ),
            [self.path, count],
        )

    def cell_count(self) -> int:
        """How many cells the notebook has now."""
        count: int = self.page.evaluate(
            _js("(path)", "return findPanel(path).content.model.cells.length;"), self.path
        )
        return count

    def run_json(self, expression: str) -> Any:
        """Evaluate ``expression`` in the kernel and return it decoded from JSON."""
        out = self.run_code(f"import json as _j\nprint(_j.dumps({expression}))")
        return json.loads(out)

    def chats(self) -> Locator:
        """Every chat widget rendered in the notebook's output areas."""
        return self.page.locator(".jp-OutputArea-output .gu-chat")

    def chat(self, index: int = 0) -> Locator:
        """The ``index``-th chat widget, waited for until visible."""
        widget = self.chats().nth(index)
        widget.wait_for(state="visible", timeout=30_000)
        return widget

    def command(self, name: str, args: dict[str, Any] | None = None) -> None:
        """Execute a JupyterLab command (e.g. ``docmanager:save``) and wait for it."""
        self.page.evaluate(
            "async ([name, args]) => { await window.jupyterapp.commands.execute(name, args); }",
            [name, args or {}],
        )

    def set_theme(self, theme: str) -> None:
        """Switch JupyterLab's theme ('JupyterLab Light' / 'JupyterLab Dark')."""
        self.command("apputils:change-theme", {"theme": theme})
        self.page.wait_for_function(
            "(theme) => document.body.dataset.jpThemeName === theme", arg=theme
        )
        # JupyterLab covers the page with its splash while the theme's CSS loads:
        # a screenshot taken before it goes shows the spinner over the widget
        self.page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=30_000)


@contextlib.contextmanager
def shared_notebook(server: LabServer, browser: Browser, path: str) -> Iterator[LabPage]:
    """A page on ``path`` with all its cells run, for a module's tests to share.

    One kernel per module instead of one per test (~10 s each); on exit the
    page closes and every kernel stops.
    """
    lab = LabPage(server, browser)
    try:
        lab.open(path)
        lab.run_all()
        yield lab
    finally:
        lab.close()
        server.shutdown_kernels()
