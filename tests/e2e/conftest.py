"""Fixtures for the browser tests: one JupyterLab server and one Chromium per session."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from .harness import (
    CHROMIUM_ARGS,
    PAGES_KEY,
    REPO,
    LabPage,
    LabServer,
    report_on_failure,
    require_chromium,
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On a failed e2e test, attach the server log and the browser console."""
    report = yield
    if report.failed and PAGES_KEY in item.stash:
        server, pages = item.stash[PAGES_KEY]
        report.sections.append(("jupyter server log (tail)", server.log_tail()))
        for lab in pages:
            console = "\n".join(lab.console[-60:])
            report.sections.append((f"browser console {lab.path}", console))
    return report


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``docs/screenshots/`` with UPDATE_SCREENSHOTS=1, else a temp dir.

    A plain test run then leaves the tracked images alone.
    """
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        out = REPO / "docs" / "screenshots"
        out.mkdir(parents=True, exist_ok=True)
        return out
    return Path(tmp_path_factory.mktemp("screenshots"))


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A real JupyterLab server over a temp copy of ``notebooks/`` (+ ``e2e/``)."""
    server = LabServer(Path(tmp_path_factory.mktemp("jupyterlab")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's headless Chromium, shared by every test."""
    executable = require_chromium()
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def open_lab(
    request: pytest.FixtureRequest, lab_server: LabServer, browser: Browser
) -> Iterator[Callable[[str], LabPage]]:
    """Open a notebook in a fresh browser page: ``lab = open_lab("e2e/x.ipynb")``.

    On failure the server log and the page's console are printed; afterwards
    the pages close and every kernel stops.
    """
    pages: list[LabPage] = []
    report_on_failure(request, lab_server, pages)

    def _open(path: str) -> LabPage:
        lab = LabPage(lab_server, browser)
        pages.append(lab)
        lab.open(path)
        return lab

    yield _open
    for lab in pages:
        lab.close()
    lab_server.shutdown_kernels()
