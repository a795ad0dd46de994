"""What the runtime's parts reach it by (``Host``), handed to each when it is made.

A part never holds the runtime: it gets the thread shown, the views, and
the two save points, and whatever else its job needs on its own. Every
changed message goes out and is saved through one call, ``Host.commit``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..messages import Message, Thread
from ._loop.run_events import RunEvents

__all__ = ["Host"]


@dataclass(frozen=True)
class Host:
    """``thread`` gives the thread shown (exact even while a reply streams);
    ``events`` tells the views; ``save`` saves the thread shown (a failure
    is reported, never raised; saves close together during a run are
    coalesced: ``persistence.autosave``)."""

    thread: Callable[[], Thread]
    events: RunEvents
    save: Callable[[], None]

    def commit(self, message: Message) -> None:
        """Tell the views ``message`` changed, then save: after every step,
        result and decision."""
        self.events.replace(message)
        self.save()
