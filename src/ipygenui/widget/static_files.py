"""The widget's built frontend files (``static/``, built from ``js/`` by esbuild).

``widget.js`` and ``widget.css`` go with every Chat's comm_open (anywidget's
``_esm`` and ``_css``) and are saved with the notebook's widget state. The
code highlighter is a quarter of the script and few chats show code, so it is
a file of its own, ``highlight.js``, that the browser asks for when a code
block first shows (a ``load_module`` message, see ``js/src/highlighter.js``).
"""

from __future__ import annotations

import functools
import pathlib

STATIC = pathlib.Path(__file__).resolve().parent.parent / "static"

LAZY_MODULES = {"highlight": "highlight.js"}
"""Modules the browser may ask for by name, and their files in ``static/``."""


@functools.cache
def lazy_module_source(name: str) -> str:
    """The ES module source of lazy module ``name``; ``OSError`` naming the
    missing file (a checkout whose JS was not built)."""
    path = STATIC / LAZY_MODULES[name]
    try:
        return path.read_text("utf-8")
    except OSError as exc:
        raise OSError(
            f"the widget's {name} module is missing ({path}): build the frontend with "
            "`npm run build` in js/ (pip install -e . does it)"
        ) from exc
