"""The widget's built frontend files (``static/``, built from ``js/`` by esbuild).

A Chat's anywidget ``_esm`` is ``loader.js``, a few lines; ``widget.js`` and
``widget.css`` (the bundle) are the state of one model per kernel that every
Chat references (``_bundle.py``), so a notebook's saved widget state holds
them once, not once per chat. The code highlighter is a quarter of the script
and few chats show code, so it is a file of its own, ``highlight.js``, that
the browser asks for when a code block first shows (a ``load_module``
message, see ``js/src/markdown/highlighter.js``).
"""

from __future__ import annotations

import functools
import pathlib

STATIC = pathlib.Path(__file__).resolve().parent.parent / "static"

LOADER = STATIC / "loader.js"
"""Each Chat's own ES module: it imports the bundle from the shared model."""

BUNDLE_FILES = ("widget.js", "widget.css")
"""The bundle's script and stylesheet in ``static/``."""


def bundle_sources() -> tuple[str, str]:
    """``widget.js`` and ``widget.css``; ``OSError`` naming the missing file."""
    return _built(BUNDLE_FILES[0], "bundle"), _built(BUNDLE_FILES[1], "stylesheet")


def _built(file: str, what: str) -> str:
    path = STATIC / file
    try:
        return path.read_text("utf-8")
    except OSError as exc:
        raise OSError(
            f"the widget's {what} is missing ({path}): build the frontend with "
            "`npm run build` in js/ (pip install -e . does it)"
        ) from exc


LAZY_MODULES = {"highlight": "highlight.js"}
"""Modules the browser may ask for by name, and their files in ``static/``."""


@functools.cache
def lazy_module_source(name: str) -> str:
    """The ES module source of lazy module ``name``; ``OSError`` naming the
    missing file (a checkout whose JS was not built)."""
    return _built(LAZY_MODULES[name], f"{name} module")
