"""Wait for an event, at most some seconds, on any event loop.

Not ``asyncio.wait_for(event.wait(), seconds)``: since Python 3.12 its
timeout checks the deadline against ``loop.time()`` and then calls
``loop.call_at(deadline)``. A browser kernel's loop (Pyodide's ``WebLoop``)
turns that into ``call_later(deadline - time())`` and raises "Can't schedule
in the past" when its clock moved past a near deadline between the two reads:
a paced replay's frame a millisecond away failed a notebook's run that way.
``asyncio.wait`` schedules with ``call_later`` and a delay that is never
negative here, which every loop accepts.
"""

from __future__ import annotations

import asyncio


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait until ``event`` is set or ``seconds`` passed; whether it is set."""
    if event.is_set() or seconds <= 0:
        return event.is_set()
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({waiter}, timeout=seconds)
    finally:
        if not waiter.done():  # timed out, or the caller was cancelled meanwhile
            waiter.cancel()
    return event.is_set()
