"""Messages the frontend sends to the kernel, validated before use.

Everything a browser sends is untrusted: it may be malformed, unknown, late
(a second click on a call already decided) or from an old version of the
frontend. :func:`parse_client_message` turns a raw comm payload into one of
the typed messages below or raises :class:`ProtocolError` with a sentence a
user can read; the widget answers such errors, it never raises them.

Limits never strand a call: a tool_call id has no length limit of its own
(the kernel put it in the thread, the runtime looks it up there and refuses
an unknown one), only the message text has one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

MAX_TEXT = 1_000_000
"""Longest message text accepted from the browser (characters): about 250,000
tokens, beyond the context of the models we know, so a longer paste is a
mistake, refused with a clear error (the view keeps the text in the box)."""

MAX_REF = 64
"""Longest ``ref`` a view may tag a send with (it is echoed back)."""

ToolCallId = Annotated[str, Field(min_length=1)]
Ref = Annotated[str, Field(max_length=MAX_REF)]


class ProtocolError(ValueError):
    """A frontend message that cannot be acted on."""


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SendMsg(_Msg):
    type: Literal["send"]
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    ref: Ref | None = None
    """The view's tag for this send: the answer (``accepted`` or ``error``)
    carries it, so the view that sent it clears its box only once taken."""


class ApproveMsg(_Msg):
    type: Literal["approve"]
    tool_call_id: ToolCallId
    args: dict[str, JsonValue] | None = None
    """Arguments edited by the user before approving (None: as the model wrote them)."""


class AlwaysMsg(_Msg):
    """Approve, and approve this tool without asking for the rest of the chat."""

    type: Literal["always"]
    tool_call_id: ToolCallId
    args: dict[str, JsonValue] | None = None


class RejectMsg(_Msg):
    type: Literal["reject"]
    tool_call_id: ToolCallId
    reason: Annotated[str, Field(max_length=MAX_TEXT)] | None = None


class ToolResultMsg(_Msg):
    """The user's answer to a human tool."""

    type: Literal["tool_result"]
    tool_call_id: ToolCallId
    result: JsonValue


class CancelMsg(_Msg):
    type: Literal["cancel"]


class RetryMsg(_Msg):
    type: Literal["retry"]


class SuggestionMsg(_Msg):
    type: Literal["suggestion"]
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]


class HelloMsg(_Msg):
    """A view asks for the live state (it opened, maybe mid-stream)."""

    type: Literal["hello"]


ClientMessage = Annotated[
    SendMsg
    | ApproveMsg
    | AlwaysMsg
    | RejectMsg
    | ToolResultMsg
    | CancelMsg
    | RetryMsg
    | SuggestionMsg
    | HelloMsg,
    Field(discriminator="type"),
]

_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)

KNOWN_TYPES = (
    "send",
    "approve",
    "always",
    "reject",
    "tool_result",
    "cancel",
    "retry",
    "suggestion",
    "hello",
)


def parse_client_message(content: Any) -> ClientMessage:
    """Validate a raw frontend payload; raise :class:`ProtocolError` if it is bad."""
    if not isinstance(content, dict):
        raise ProtocolError("message from the browser is not an object")
    kind = content.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_TYPES:
        raise ProtocolError(f"unknown message type {str(kind)[:40]!r} from the browser")
    text = content.get("text")
    if kind in ("send", "suggestion") and isinstance(text, str) and len(text) > MAX_TEXT:
        raise ProtocolError(
            f"message too long: {len(text):,} characters, the chat takes at most "
            f"{MAX_TEXT:,}; shorten it"
        )
    try:
        return _adapter.validate_python(content)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or 'message'}: {err['msg']}"
            for err in exc.errors(include_url=False)[:3]
        )
        raise ProtocolError(f"invalid {kind!r} message: {problems}") from None
