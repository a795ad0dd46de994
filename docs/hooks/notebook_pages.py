"""mkdocs hook: the six notebooks of ``notebooks/`` as pages of the site.

They are copied (with the files beside them, such as the agents notebook's MCP
server script) into a git-ignored build folder and executed there by
mkdocs-jupyter, so what they write (a CSV, a gallery page) never lands in the
tracked ``notebooks/``. Provider keys are removed from the build's environment
first, so every notebook takes the offline demo model, as on Binder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / ".cache" / "docs-build"
"""The build folder: ``<BUILD>/notebooks/`` holds the copies that run."""

_KEY_SUFFIXES = ("_API_KEY",)


def _offline_environment() -> None:
    for name in list(os.environ):
        if name.endswith(_KEY_SUFFIXES):
            del os.environ[name]


def _copy_notebooks() -> list[Path]:
    target = BUILD / "notebooks"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for source in NOTEBOOKS.iterdir():
        if source.is_file() and source.suffix in (".ipynb", ".py"):
            shutil.copy2(source, target / source.name)
    return sorted(target.glob("*.ipynb"))


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns them into pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    _offline_environment()
    for notebook in _copy_notebooks():
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(BUILD),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files
