"""AG-UI: the protocol's events out of every run, served over HTTP, and
external agents driven over it (types from the ``ag-ui-protocol`` package).

Importing this module imports ``ag_ui``; the runtime does so only when AG-UI
is used (``Runtime.subscribe_agui``, ``agui_events``, ``ag_ui_app`` or an
``AGUIAgent``), so a chat that never speaks AG-UI does not pay for it.
"""

from __future__ import annotations

from ._agui.client import AGUIAgent
from ._agui.convert import to_agui_messages, to_agui_tools
from ._agui.emitter import AGUIEmitter, AGUIListener, part_message_id
from ._agui.sequence import SequenceChecker, SequenceError, check_sequence

__all__ = [
    "AGUIAgent",
    "AGUIEmitter",
    "AGUIListener",
    "SequenceChecker",
    "SequenceError",
    "check_sequence",
    "part_message_id",
    "to_agui_messages",
    "to_agui_tools",
]
