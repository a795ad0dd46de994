"""``gallery_html``: a registry's components as a static HTML page, for a design review.

The page is a chat showing the workbench's gallery thread
(``workbench/export.py``'s ``gallery_thread``: one reply per component, each from its
sample props), exported as a notebook's HTML export embeds a chat: the widget
state in the page, the Jupyter widget manager and anywidget loaded from a
CDN, so it opens in a browser with no kernel.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from pathlib import Path

from ..components.component import Component
from ..widget.chat import Chat
from .export import gallery_thread

__all__ = ["gallery_html"]

REQUIRE_JS_URL = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js"
"""The require.js a notebook's HTML export loads (nbconvert's default), with no
integrity pin, so a page can be served from a mirror of the same file."""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ margin: 0 auto; max-width: 900px; padding: 16px; }}
/* a page to look at: no kernel answers a message typed here */
.gu-chat .gu-composer {{ display: none; }}
@media (prefers-color-scheme: dark) {{
  /* JupyterLab Dark's theme variables, which the chat's colours follow */
  :root {{
    --jp-layout-color0: #111111; --jp-layout-color1: #212121; --jp-layout-color2: #424242;
    --jp-ui-font-color1: rgba(255, 255, 255, 0.87);
    --jp-content-font-color1: rgba(255, 255, 255, 1);
    --jp-border-color2: #424242; --jp-brand-color1: #42a5f5;
    --jp-ui-inverse-font-color1: rgba(0, 0, 0, 0.8);
  }}
  body {{ background: #111111; color: rgba(255, 255, 255, 0.87); }}
}}
</style>
</head>
<body>
<script src="{require_js}"></script>
<script src="{embed_js}" crossorigin="anonymous"></script>
<script type="application/vnd.jupyter.widget-state+json">
{state}
</script>
{views}
</body>
</html>
"""


def gallery_html(
    components: Sequence[Component],
    path: str | os.PathLike[str] | None = None,
    *,
    title: str = "ipygenui component gallery",
    height: str = "auto",
) -> str:
    """A static HTML page previewing every component (no kernel needed to view it).

    Returns the HTML, and writes it to ``path`` when given. The page embeds
    the chat's widget state and loads the Jupyter widget manager from a CDN,
    as a notebook exported to HTML does.
    """
    from ipywidgets.embed import (
        DEFAULT_EMBED_REQUIREJS_URL,
        dependency_state,
        embed_data,
        escape_script,
    )

    chat = Chat(
        model="demo", components=list(components), thread=gallery_thread(components), height=height
    )
    try:
        # only the gallery's chat and what it needs, not every widget in the kernel
        state = dependency_state([chat], drop_defaults=False)
        data = embed_data([chat], drop_defaults=False, state=state)
    finally:
        chat.close()
    views = "\n".join(
        '<script type="application/vnd.jupyter.widget-view+json">\n'
        f"{escape_script(json.dumps(spec))}\n</script>"
        for spec in data["view_specs"]
    )
    page = _PAGE.format(
        title=html.escape(title),
        require_js=REQUIRE_JS_URL,
        embed_js=DEFAULT_EMBED_REQUIREJS_URL,
        state=escape_script(json.dumps(data["manager_state"])),
        views=views,
    )
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page
