"""The state an AG-UI client sends (``RunAgentInput.state``), as the run's state.

The AG-UI state of a served run is the runtime's shared state
(``Runtime.agent_state``) with, under ``"components"``, the user states of the
components shown (see ``AGUIEmitter``). A client keeps the state its events
built and sends it back with every input, as the protocol has it: that state
becomes ``Runtime.agent_state`` before the run starts, so the run's first
STATE_SNAPSHOT is the client's state again, not ours over it. Its
``"components"`` is left out: those are the user's, set in the notebook.

The client is untrusted: its state must be a JSON object within the limits an
agent's is (``_state_limits.py``: 1 MB as compact JSON, 64 levels), else the
input is refused (422) and nothing changes.
"""

from __future__ import annotations

from typing import Any

from ._http_guard import Refused
from ._state_limits import StateLimitError, StateLimits

COMPONENTS_KEY = "components"
"""Where the AG-UI state carries the shown components' user states."""


def client_state(state: Any, limits: StateLimits | None = None) -> dict[str, Any] | None:
    """The shared state ``state`` asks for (None: the client sent none)."""
    if state is None:
        return None
    if not isinstance(state, dict):
        raise Refused(
            422,
            f"state: a {type(state).__name__}, but the runtime's state is a JSON object "
            "(send {} for an empty one)",
        )
    try:
        (limits or StateLimits()).check(state, "state: a state")
    except StateLimitError as exc:
        raise Refused(422, f"{exc}; the runtime's state is left as it was") from None
    return {k: v for k, v in state.items() if k != COMPONENTS_KEY}
