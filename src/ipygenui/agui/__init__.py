"""AG-UI: the protocol's events out of every run, served over HTTP, and
external agents driven over it (types from the ``ag-ui-protocol`` package).

- ``_emitter.py``: thread events -> AG-UI events (``AGUIEmitter``);
  ``_sequence.py``: the protocol's ordering rules, also applied to agents'
  streams; ``_convert.py``: thread messages and tools as AG-UI's.
- ``server.py``: ``Runtime.ag_ui_app()``, the ASGI app; ``_http_guard.py``:
  the checks every request passes (token, Host, Origin, JSON, size).
- ``runtime_link.py``: what ``Runtime``'s AG-UI methods call (one emitter
  per runtime, attached through its public events).
- ``client.py``: ``AGUIAgent``, an external agent as a step source;
  ``_sse_reader.py`` (its bounded event stream) and ``_state_limits.py`` (the
  shared state it may send).

Importing this package imports ``ag_ui``; the runtime does so only when AG-UI
is used (``Runtime.subscribe_agui``, ``agui_events``, ``ag_ui_app`` or an
``AGUIAgent``), so a chat that never speaks AG-UI does not pay for it.
"""

from __future__ import annotations

from ._convert import step_message_id, to_agui_messages, to_agui_tools
from ._emitter import AGUIEmitter, AGUIListener
from ._sequence import SequenceChecker, SequenceError, check_sequence
from .client import AGUIAgent
from .server import AGUIApp

__all__ = [
    "AGUIAgent",
    "AGUIApp",
    "AGUIEmitter",
    "AGUIListener",
    "SequenceChecker",
    "SequenceError",
    "check_sequence",
    "step_message_id",
    "to_agui_messages",
    "to_agui_tools",
]
