"""AG-UI interrupts out, and the ``resume`` that answers them read back in.

A run that waits for the user ends with ``outcome: interrupt``, one
interrupt per waiting call, its id the call's id (``interrupt_for``):
``tool_call`` for a call waiting for approval, whose ``responseSchema`` says
what a resume entry carries (``{"approved": true}``, with ``editedArgs`` to
replace the arguments, or ``{"approved": false, "reason": "..."}``), and
``input_required`` for a human tool's call, whose payload is its answer.

``read_resume`` turns a request's ``resume`` entries into the decisions they
ask for, checking every entry before any is applied, so a malformed or stale
resume is refused whole (``BadResume``) and changes nothing: each entry
names an open interrupt, once; together with the input's tool messages they
answer every open interrupt (AG-UI allows no partial resume); a payload has
exactly the fields above; edited arguments pass the tool's validation.

The server answers a ``BadResume`` with a stream that opens with ``RUN_ERROR``
(its ``code`` and message), as AG-UI's interrupt rules let a producer reject
an input before the run starts: the request was well formed, the resume is
what does not fit.

A tool server's request card waiting inside a running call is an open
interrupt too, answered by the entries ``_server_asks.py`` reads.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from ..messages import Message, Thread, ToolCallPart
from ..tools import Tool
from ._server_asks import Check, open_requests, request_answer

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {
            "type": "object",
            "description": "The arguments to run with instead, whole (validated again).",
        },
        "reason": {"type": "string", "description": "Why it is rejected (approved: false)."},
    },
    "required": ["approved"],
    "additionalProperties": False,
}
"""What a resume entry's payload carries for an approval (AG-UI's
approve-with-edits pattern, plus the reason a rejection gives the model)."""

NOT_OPEN = "INTERRUPT_NOT_OPEN"
INVALID = "RESUME_INVALID"
INCOMPLETE = "RESUME_INCOMPLETE"
ARGS_REJECTED = "RESUME_ARGS_REJECTED"
"""The ``RUN_ERROR`` codes of a refused resume (AG-UI leaves codes open)."""


class BadResume(Exception):
    """A resume refused whole: ``code`` for a program, ``message`` for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


CANCELLED = "cancelled by the client"
"""The reason a ``cancelled`` resume entry rejects a call with."""


def interrupt_for(part: ToolCallPart) -> Interrupt:
    """The interrupt a run ends with for a call that waits for the user."""
    call = f"{part.tool_name}({part.args_text.strip() or '{}'})"
    if part.approval is not None:
        return Interrupt(
            id=part.tool_call_id,
            reason="tool_call",
            message=f"Approve {call}?",
            tool_call_id=part.tool_call_id,
            response_schema=APPROVAL_SCHEMA,
        )
    return Interrupt(
        id=part.tool_call_id,
        reason="input_required",
        message=f"{call} waits for an answer: resume with it as the payload",
        tool_call_id=part.tool_call_id,
    )


@dataclass(frozen=True)
class Approve:
    tool_call_id: str
    args: dict[str, Any] | None


@dataclass(frozen=True)
class Reject:
    tool_call_id: str
    reason: str | None


@dataclass(frozen=True)
class Answer:
    tool_call_id: str
    result: Any


Decision = Approve | Reject | Answer


def open_interrupts(thread: Thread, chat_tools: Collection[str]) -> dict[str, ToolCallPart]:
    """The calls the last run's interrupts name that nothing has settled yet:
    those of the last assistant message with no result that wait for approval,
    or for an answer to one of ``chat_tools`` (a call to a tool the AG-UI
    client declared is its own, answered by its tool message, no interrupt),
    and the tool servers' cards waiting in a running reply."""
    last: Message | None = thread.last_assistant
    asks = {p.tool_call_id: p for p in open_requests(last)}
    return asks | {
        p.tool_call_id: p
        for p in (last.tool_calls if last is not None else ())
        if not p.has_result
        and p.args_complete
        and (
            (p.approval is not None and p.approval.status == "pending")
            or (p.approval is None and p.tool_name in chat_tools)
        )
    }


def read_resume(
    entries: Sequence[ResumeEntry],
    waiting: Mapping[str, ToolCallPart],
    answered: Collection[str],
    human: Collection[str],
    tools: Mapping[str, Tool],
    check: Check = lambda call, answer: None,
) -> list[Decision]:
    """The decisions ``entries`` ask for; ``BadResume`` names the first problem.

    ``answered``: the calls the same input answers with tool messages (their
    entries only acknowledge the answer); ``human``: the human tools, whose
    calls a payload may answer (another's is answered by a tool message);
    ``check``: the runtime's check of an answer to a tool server's form.
    """
    seen: set[str] = set()
    decisions: list[Decision] = []
    for entry in entries:
        name = entry.interrupt_id
        if name in seen:
            raise BadResume(INVALID, f"resume answers interrupt {name} twice")
        seen.add(name)
        part = waiting.get(name)
        if part is None:
            raise BadResume(NOT_OPEN, _stale(name, waiting))
        if name in answered:
            continue  # a human tool's answer came as a tool message
        if part.synthetic:
            decisions.append(_server_ask(entry, part, check))
        elif part.approval is not None:
            decisions.append(_approval(entry, part, tools))
        elif part.tool_name not in human:
            raise BadResume(
                INVALID, f"interrupt {name} ({part.tool_name}): answer it with a tool message"
            )
        elif entry.status == "cancelled":
            decisions.append(Answer(name, f"The user gave no answer: {CANCELLED}."))
        elif entry.payload is None:
            raise BadResume(
                INVALID, f"resume of interrupt {name}: the payload is the answer, none sent"
            )
        else:
            decisions.append(Answer(name, entry.payload))
    missing = [call for call in waiting if call not in seen and call not in answered]
    if missing:
        raise BadResume(
            INCOMPLETE,
            "resume must answer every open interrupt (AG-UI has no partial resume); "
            f"not answered: {', '.join(missing)}",
        )
    return decisions


def _server_ask(entry: ResumeEntry, part: ToolCallPart, check: Check) -> Decision:
    try:
        verb, value = request_answer(entry, part, check)
    except ValueError as exc:
        raise BadResume(INVALID, str(exc)) from None
    if verb == "approve":
        return Approve(part.tool_call_id, None)
    if verb == "reject":
        return Reject(part.tool_call_id, value)
    return Answer(part.tool_call_id, value)


def _stale(name: str, waiting: Mapping[str, ToolCallPart]) -> str:
    open_ones = ", ".join(waiting) or "none"
    return (
        f"resume names interrupt {name}, which is not open (decided already, or never "
        f"raised); the open interrupts: {open_ones}"
    )


def _approval(entry: ResumeEntry, part: ToolCallPart, tools: Mapping[str, Tool]) -> Decision:
    call = f"interrupt {part.tool_call_id} ({part.tool_name})"
    if entry.status == "cancelled":
        return Reject(part.tool_call_id, CANCELLED)
    payload = entry.payload
    if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
        raise BadResume(
            INVALID,
            f"resume of {call}: the payload must be an object with a boolean 'approved' "
            '(e.g. {"approved": true}), got ' + _shown(payload),
        )
    extra = sorted(set(payload) - set(APPROVAL_SCHEMA["properties"]))
    if extra:
        raise BadResume(
            INVALID,
            f"resume of {call}: unknown payload field(s) {', '.join(extra)}; "
            "allowed: approved, editedArgs, reason",
        )
    edited, reason = payload.get("editedArgs"), payload.get("reason")
    if not payload["approved"]:
        if edited is not None:
            raise BadResume(INVALID, f"resume of {call}: editedArgs come only with approved: true")
        if reason is not None and not isinstance(reason, str):
            raise BadResume(INVALID, f"resume of {call}: reason must be a string")
        return Reject(part.tool_call_id, reason or None)
    if reason is not None:
        raise BadResume(INVALID, f"resume of {call}: a reason comes only with approved: false")
    if edited is None:
        return Approve(part.tool_call_id, None)
    if not isinstance(edited, dict):
        raise BadResume(INVALID, f"resume of {call}: editedArgs must be an object of arguments")
    tool = tools.get(part.tool_name)
    if tool is None:
        raise BadResume(
            NOT_OPEN, f"resume of {call}: tool {part.tool_name!r} is not registered here"
        )
    try:
        tool.validate(edited)
    except Exception as exc:  # ToolArgumentsError names each problem
        raise BadResume(
            ARGS_REJECTED, f"resume of {call}: edited arguments rejected: {exc}"
        ) from None
    return Approve(part.tool_call_id, edited)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
