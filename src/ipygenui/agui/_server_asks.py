"""A tool server's requests during a call (MCP sampling and elicitation
cards, ``runtime/_server_requests.py``) as AG-UI interrupts, and the resume
entries that answer them.

While such a card waits, the runtime's run is still alive inside the tool's
call: the emitter ends the AG-UI run with an interrupt per open card (its id
the card's) and starts the next AG-UI run of the same runtime run once every
card it named is settled. The interrupt carries what the user decides on,
the card's own validated content: for a form the server's message and
schema, for a sampling request its prompt and limits (and, at its second
step, the model's answer). Never the server's command line, which may hold
a secret.

A resume answers an elicitation with ``{"action": "accept", "content":
{...}}``, ``{"action": "decline"}`` or ``{"action": "cancel"}`` (the content
checked by the server's schema, as the notebook's form is), and a sampling
request with ``{"approved": true}`` or ``{"approved": false, "reason": ...}``,
as the card's buttons do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from ..errors import DecisionError
from ..messages import Message, Running, ToolCallPart
from ..tools.server_requests import ELICITATION, SAMPLING

ELICITATION_REASON = "mcp_elicitation"
SAMPLING_REASON = "mcp_sampling"

SAMPLING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string", "description": "Why it is declined (approved: false)."},
    },
    "required": ["approved"],
    "additionalProperties": False,
}

_SHOWN = {
    ELICITATION: ("server", "mode", "message", "schema", "url"),
    SAMPLING: (
        "server",
        "messages",
        "system_prompt",
        "max_tokens",
        "requested_max_tokens",
        "reply",
        "reply_model",
    ),
}
"""What of a card's arguments goes to a client (not ``server_command``)."""


def open_requests(message: Message | None) -> list[ToolCallPart]:
    """The cards of a running reply that wait for the user: a form not yet
    answered, a sampling prompt or answer waiting for approval (not while the
    model answers it)."""
    if message is None or not isinstance(message.status, Running):
        return []
    return [
        p
        for p in message.server_requests
        if not p.has_result and (p.approval is None or p.approval.status == "pending")
    ]


def request_interrupt(part: ToolCallPart) -> Interrupt:
    """The interrupt for an open card: its payload in ``metadata``."""
    shown = {k: part.args[k] for k in _SHOWN.get(part.tool_name, ()) if part.args.get(k)}
    server = part.args.get("server") or "the tool server"
    if part.tool_name == SAMPLING:
        reviewing = "reply" in part.args
        asks = (
            f"Send the model's answer back to {server}?"
            if reviewing
            else f"{server} asks the chat's model to answer a prompt: approve?"
        )
        schema = SAMPLING_SCHEMA
        reason = SAMPLING_REASON
    else:
        asks = f"{server} asks: {part.args.get('message', '')}"
        content = part.args.get("schema") or {"type": "object"}
        schema = {
            "type": "object",
            "properties": {
                "action": {"enum": ["accept", "decline", "cancel"]},
                "content": content,
            },
            "required": ["action"],
            "additionalProperties": False,
        }
        reason = ELICITATION_REASON
    return Interrupt(
        id=part.tool_call_id,
        reason=reason,
        message=asks,
        response_schema=schema,
        metadata={"request": shown},
    )


Check = Callable[[str, Any], None]
"""The runtime's own check of a form's answer (raises ``DecisionError``)."""


def request_answer(entry: ResumeEntry, part: ToolCallPart, check: Check) -> tuple[str, Any]:
    """What a resume entry asks of card ``part``: ``("approve", None)``,
    ``("reject", reason)`` or ``("answer", result)``; ``ValueError`` says why not."""
    name = f"interrupt {part.tool_call_id} ({part.tool_name})"
    payload = entry.payload
    if part.tool_name == SAMPLING:
        if entry.status == "cancelled":
            return "reject", "cancelled by the client"
        if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
            raise ValueError(f"resume of {name}: the payload must be {{'approved': true|false}}")
        extra = sorted(set(payload) - {"approved", "reason"})
        if extra:
            raise ValueError(f"resume of {name}: unknown payload field(s) {', '.join(extra)}")
        reason = payload.get("reason")
        if reason is not None and (payload["approved"] or not isinstance(reason, str)):
            raise ValueError(f"resume of {name}: a reason is a string, with approved: false")
        return ("approve", None) if payload["approved"] else ("reject", reason)
    if entry.status == "cancelled":
        return "answer", {"action": "cancel"}
    if not isinstance(payload, dict) or payload.get("action") not in (
        "accept",
        "decline",
        "cancel",
    ):
        raise ValueError(
            f"resume of {name}: the payload must be an object whose 'action' is "
            "'accept' (with 'content'), 'decline' or 'cancel'"
        )
    extra = sorted(set(payload) - {"action", "content"})
    if extra or ("content" in payload and payload["action"] != "accept"):
        raise ValueError(f"resume of {name}: only 'action', and 'content' to accept")
    try:
        check(part.tool_call_id, payload)  # the notebook form's own validation
    except DecisionError as exc:
        raise ValueError(f"resume of {name}: {exc}") from None
    return "answer", dict(payload)
