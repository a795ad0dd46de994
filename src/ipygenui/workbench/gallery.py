"""``gallery_html``: a registry's components as a static HTML page, for a design review.

The page is a chat showing the workbench's gallery thread
(``workbench/export.py``'s ``gallery_thread``: one reply per component, each from its
sample props), exported as a notebook's HTML export embeds a chat: the widget
state in the page, the Jupyter widget manager and anywidget loaded from a
CDN, so it opens in a browser with no kernel.

Every script the page loads is pinned: an exact npm version (the one
``js/package.json`` installs) and its Subresource Integrity hash, the two
``<script>`` tags' own and, through require.js's ``onNodeCreated``, anywidget's
module that require.js loads; a script require.js would load with no pin gets
a hash nothing matches, so it does not run. ``tests/workbench`` checks each
hash against the file in ``js/node_modules``.
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

_CDN = "https://cdn.jsdelivr.net/npm/"
REQUIRE_JS_URL = _CDN + "requirejs@2.3.8/require.js"
EMBED_JS_URL = _CDN + "@jupyter-widgets/html-manager@1.0.15/dist/embed-amd.js"
ANYWIDGET_JS_URL = _CDN + "anywidget@0.11.0/dist/index.js"
"""anywidget's frontend module, pinned to ``js/package.json``'s version (which
reads the state every anywidget the package allows saves)."""

INTEGRITY = {
    REQUIRE_JS_URL: "sha384-gzoQyNpzaOK+Aes9TTuBq/ZgYdleZUDN3sFwxyLRbRytLEWofprkKj2F7z3a6nTu",
    EMBED_JS_URL: "sha384-/x/n24gdFNkRW3aFeWPOJ5tgVI0ZmBOBu6UKswtJLAm6SIAzWBZUdrLEr5A9yXvL",
    ANYWIDGET_JS_URL: "sha384-eUKNi99kVW7N7VQ0GtQ1I+YaoVYA6vDMwCcnx6itIeZ6IRWD1bUtVRb8/Z5QnZm3",
}
"""Each script's sha384, of the file npm installs at that version."""

_UNPINNED = "sha384-" + "A" * 64
"""A well-formed hash no file has: a script without a pin is refused, not run."""

_PINNED_MODULES = """require.config({{
  paths: {{ anywidget: {anywidget_path} }},
  onNodeCreated: function (node, config, name, url) {{
    const pins = {pins};
    node.setAttribute("crossorigin", "anonymous");
    node.setAttribute("integrity", pins[url] || {unpinned});
  }},
}});"""

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
<script src="{require_js}" integrity="{require_sri}" crossorigin="anonymous"></script>
<script>
{pinned_modules}
</script>
<script src="{embed_js}" integrity="{embed_sri}" crossorigin="anonymous"></script>
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
    as a notebook exported to HTML does, each script pinned by its hash.
    """
    from ipywidgets.embed import (
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
        require_sri=INTEGRITY[REQUIRE_JS_URL],
        pinned_modules=_PINNED_MODULES.format(
            anywidget_path=json.dumps(ANYWIDGET_JS_URL.removesuffix(".js")),  # require.js adds it
            pins=json.dumps({ANYWIDGET_JS_URL: INTEGRITY[ANYWIDGET_JS_URL]}),
            unpinned=json.dumps(_UNPINNED),
        ),
        embed_js=EMBED_JS_URL,
        embed_sri=INTEGRITY[EMBED_JS_URL],
        state=escape_script(json.dumps(data["manager_state"])),
        views=views,
    )
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page
