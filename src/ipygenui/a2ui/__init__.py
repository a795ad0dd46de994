"""A2UI (Google's declarative agent-to-UI JSON) rendered in the chat.

- ``A2UI``: the component whose ``show_a2ui`` tool the model calls; opt in
  with ``gu.Chat(components=[gu.A2UI])``.
- ``check_message`` / ``check_messages``: a message against the spec's JSON
  schemas (``schemas/``, v0.8 and v0.9, basic catalog only).
- ``thread_surfaces``: what ``chat.surfaces()`` returns.

See ``docs/a2ui.md`` for what is supported.
"""

from __future__ import annotations

from ._thread import (
    action_event,
    action_summary,
    action_text,
    redrawn_props,
    surface_id_of,
    thread_surfaces,
)
from ._validate import A2UIError, catalog_names, check_message, check_messages
from .component import A2UI, A2UI_CALLS, A2UI_TOOL, AGENT_A2UI_TOOL, A2UIComponent

__all__ = [
    "A2UI",
    "A2UI_CALLS",
    "A2UI_TOOL",
    "AGENT_A2UI_TOOL",
    "A2UIComponent",
    "A2UIError",
    "action_event",
    "action_summary",
    "action_text",
    "catalog_names",
    "check_message",
    "check_messages",
    "redrawn_props",
    "surface_id_of",
    "thread_surfaces",
]
