"""The registry workbench: preview components without a model, replay their streaming.

- ``Workbench`` (``widget.py``): the widget (imported on first use, so the
  headless modules here load no widget code).
- ``_preview``: sample props (examples, defaults, generated, edge cases) and
  the validation error the model would get.
- ``_replay``: the partial states of props streamed in chunks, from the
  kernel's own partial-JSON parser.
- ``export`` (``gu.tool_schemas``, the gallery's thread), ``gallery``
  (``gu.gallery_html``), ``cost`` (``gu.registry_cost``), ``evaluate``
  (``gu.evaluate``): imported from where they live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._preview import Sample, check_props, samples_for
from ._replay import ReplayState, chunk_text, replay_states

if TYPE_CHECKING:
    from .widget import Workbench as Workbench

__all__ = [
    "ReplayState",
    "Sample",
    "Workbench",
    "check_props",
    "chunk_text",
    "replay_states",
    "samples_for",
]


def __getattr__(name: str) -> Any:
    if name == "Workbench":
        from .widget import Workbench

        return Workbench
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
