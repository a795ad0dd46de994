"""One widget model per message: the durable, saved state of the thread.

Each message lives in its own small model so a message boundary (a new
message, a step's end) resends that message only, not the whole thread.
The model uses ipywidgets' base ``WidgetModel``: no view, no JS of its own,
and html-manager (static export) and saved widget state know it already.
"""

from __future__ import annotations

from typing import Any

import ipywidgets
from traitlets import Dict, Int


class MessageModel(ipywidgets.Widget):
    """A synced snapshot of one message.

    ``rev`` is the frame sequence number the snapshot already includes: the
    frontend replays only newer frames on top of it.
    """

    message = Dict().tag(sync=True)
    rev = Int(0).tag(sync=True)

    def set_snapshot(self, message: dict[str, Any], rev: int) -> None:
        """Replace the snapshot: one update message on the wire."""
        with self.hold_sync():
            self.message = message
            self.rev = rev

    def __repr__(self) -> str:  # the default serializes every trait
        return f"MessageModel(id={self.message.get('id')!r}, rev={self.rev})"
