"""The widget's code, once per kernel: a model every Chat references.

A Chat's own ``_esm`` is a small loader (``static/loader.js``). The bundle
(``static/widget.js`` and ``widget.css``, ~170 KB) is the state of one plain
widget model (``@jupyter-widgets/base``'s ``WidgetModel``: no view, known to
every widget manager, including the static HTML one), which each Chat names in
its ``_bundle`` trait. A notebook's saved widget state then holds the bundle
once, however many chats it shows, and a page evaluates it once.
"""

from __future__ import annotations

from ipywidgets import Widget
from traitlets import Unicode

from .._internal.browser_writes import ignore_browser_writes
from .static_files import bundle_sources


class Bundle(Widget):
    """The widget bundle as a widget model's state (read by ``loader.js``)."""

    esm = Unicode("").tag(sync=True)
    """The ES module source of ``static/widget.js``."""
    css = Unicode("").tag(sync=True)
    """The stylesheet ``static/widget.css``."""
    error = Unicode("").tag(sync=True)
    """Why the bundle is missing ("" when it is there): the loader shows it."""


ignore_browser_writes(Bundle)  # the code every Chat on the page runs: the kernel's alone

_shared: Bundle | None = None


def shared_bundle() -> Bundle:
    """The kernel's bundle model; a new one when the last was closed
    (``Widget.close_all()``), so a Chat never names a model its page lost."""
    global _shared
    if _shared is None or _shared.comm is None:
        try:
            esm, css = bundle_sources()
        except OSError as exc:
            _shared = Bundle(error=str(exc))
        else:
            _shared = Bundle(esm=esm, css=css)
    return _shared
