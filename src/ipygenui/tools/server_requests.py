"""What a tool source may ask the chat in the middle of one of its calls
(an MCP server's sampling and elicitation), and who it asks.

The source builds a ``ServerRequest`` and awaits ``RequestAnswerer.ask``; the
runtime hands every source that takes one (``answer_requests_with``) its
answerer, which shows the request as a card in the reply whose call runs
(``ipygenui/runtime/_server_requests.py``). The source imports nothing of the
runtime: this module is all the two share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "ELICITATION",
    "MAX_OPEN_REQUESTS_PER_CALL",
    "SAMPLING",
    "RequestAnswerer",
    "ServerRequest",
]

SAMPLING = "mcp_sampling"
ELICITATION = "mcp_elicitation"
MAX_OPEN_REQUESTS_PER_CALL = 4
"""Request cards one call may have open at once: one more is refused to its
server (with an error naming the limit) and gets no card."""
"""The two kinds of request, and the tool names of their cards in a thread."""


@dataclass
class ServerRequest:
    """What a tool source asks the chat (built by the source, answered by the runtime)."""

    kind: str
    """``SAMPLING`` or ``ELICITATION``."""
    args: dict[str, Any]
    """What the card shows (JSON): the server, its message, schema, prompt."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Sampling: the prompt in OpenAI chat form, system prompt first."""
    max_tokens: int = 0
    """Sampling: the limit the answer is held to (the server's, capped)."""
    validate: Callable[[Any], Any] | None = None
    """Elicitation: the submitted content -> the content to send (raises
    ``ValueError`` with the reason when it does not fit the schema)."""
    refused: str | None = None
    """Why the request is refused before anyone is asked: shown on the card,
    and the source tells the server."""


class RequestAnswerer(Protocol):
    """Who answers a source's requests (the runtime's ``ServerRequests``)."""

    async def ask(self, tool_name: str, request: ServerRequest) -> dict[str, Any]:
        """Show ``request`` in the reply whose ``tool_name`` call runs; the answer."""
        ...
