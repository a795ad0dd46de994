"""mkdocs hook: the seven notebooks of ``notebooks/`` as pages of the site.

They are copied (with the files beside them, such as the agents notebook's MCP
server script) into a git-ignored build folder and executed there, so what
they write (a CSV, a gallery page) never lands in the tracked ``notebooks/``;
mkdocs-jupyter then renders the executed copies. Provider keys are removed
from the build's environment first, so every notebook takes the offline demo
model, as on Binder.

They run all at once, a kernel each (nbclient, which stores the widgets'
state in the notebook, as the live widgets on the pages need): most of a
notebook's time is the demo model streaming, so six at once take about as
long as the slowest. A cell that fails fails the build. With
``DOCS_NOTEBOOK_CACHE=true`` (while writing pages) an executed copy newer
than its notebook is reused.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import nbformat
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / ".cache" / "docs-build"
"""The build folder: ``<BUILD>/notebooks/`` holds the copies that run."""

_KEY_SUFFIXES = ("_API_KEY",)
CELL_TIMEOUT = 300
"""Seconds one cell may take (the agents notebook starts servers)."""


def _offline_environment() -> None:
    for name in list(os.environ):
        if name.endswith(_KEY_SUFFIXES):
            del os.environ[name]


def _reusable(copy: Path) -> bool:
    source = NOTEBOOKS / copy.name
    cached = os.environ.get("DOCS_NOTEBOOK_CACHE", "").lower() in ("1", "true", "yes")
    return cached and copy.is_file() and copy.stat().st_mtime > source.stat().st_mtime


def _copy_notebooks() -> list[Path]:
    """Copy the notebooks (the files beside them, the cassettes); return the ones to execute."""
    target = BUILD / "notebooks"
    target.mkdir(parents=True, exist_ok=True)
    stale = []
    cassettes = NOTEBOOKS / "cassettes"  # the recordings 07_replay answers from
    if cassettes.is_dir():
        shutil.copytree(cassettes, target / "cassettes", dirs_exist_ok=True)
    for source in sorted(NOTEBOOKS.iterdir()):
        if not source.is_file() or source.suffix not in (".ipynb", ".py"):
            continue
        copy = target / source.name
        if source.suffix == ".ipynb" and _reusable(copy):
            continue
        shutil.copy2(source, copy)
        if source.suffix == ".ipynb":
            stale.append(copy)
    return stale


async def _execute(path: Path) -> float:
    from nbclient import NotebookClient

    started = time.perf_counter()
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    await client.async_execute()
    nbformat.write(notebook, path)
    os.utime(path)  # newer than its source: reusable with DOCS_NOTEBOOK_CACHE
    return time.perf_counter() - started


async def _execute_all(paths: list[Path]) -> dict[str, float]:
    results = await asyncio.gather(*(_execute(p) for p in paths), return_exceptions=True)
    failed = [
        f"{p.name}: {r}"
        for p, r in zip(paths, results, strict=True)
        if isinstance(r, BaseException)
    ]
    if failed:
        raise PluginError("a notebook failed to run:\n" + "\n".join(failed))
    return {p.name: r for p, r in zip(paths, results, strict=True) if isinstance(r, float)}


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns them into pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    _offline_environment()
    stale = _copy_notebooks()
    if stale:
        started = time.perf_counter()
        seconds = asyncio.run(_execute_all(stale))
        each = ", ".join(f"{name} {s:.0f} s" for name, s in seconds.items())
        print(f"Ran {len(stale)} notebooks in {time.perf_counter() - started:.0f} s ({each})")
    for notebook in sorted((BUILD / "notebooks").glob("*.ipynb")):
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(BUILD),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files
