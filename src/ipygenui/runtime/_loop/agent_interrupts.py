"""An external agent's own approval-gated calls: asked, decided, resumed.

An agent (``gu.AGUIAgent``) may end a run paused on a call of its own tool,
waiting for the user's approval (AG-UI's interrupt). The call is then
shown as every gated call is (``approval`` pending, the agent's question as
the card's note, marked as the agent's) and decided only by ``approve`` / ``reject``. The agent
runs its own tool, so the kernel never does: the tool phase holds the call,
and the next model step sends the decision back as the run's ``resume``;
the result the agent then reports answers the call.

A user who moves on instead (a new message while the card waits) ends the
reply, the call answered as not run; AG-UI lets no run start with an
interrupt left open, so the next run resumes it as ``cancelled``
(``abandoned``) and the agent hears that the user gave no decision.

Which calls are the agent's is kept on the message (metadata, saved with
the thread), so a decision taken after a reload or a kernel restart still
resumes the agent. A file is untrusted, but this mark only ever holds a
call back: a call to one of the chat's own tools is run by the kernel
behind its gate whatever the mark says.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ...messages import Approval, Message, ToolCallPart
from ...models.agent import AgentDecision, AgentRequest
from ...tools import Tool

AGENT_INTERRUPTS = "agent_interrupts"
"""Message metadata key: tool call id -> the agent's interrupt id, until resumed."""
MAX_PROMPT_CHARS = 1000
"""Of the agent's question, what the card shows."""
NO_RESULT = "The agent resumed its run but sent no result for this call."

Answer = Callable[[ToolCallPart, Any, bool], None]


def _marks(message: Message) -> dict[str, str]:
    marks = message.metadata.get(AGENT_INTERRUPTS)
    return marks if isinstance(marks, dict) else {}


def is_agent_gated(message: Message, part: ToolCallPart, tools: Mapping[str, Tool]) -> bool:
    """Whether ``part`` is a call the agent paused on for the user (not one of ``tools``)."""
    return part.tool_name not in tools and part.tool_call_id in _marks(message)


def resumed_by_agent(message: Message, part: ToolCallPart, tools: Mapping[str, Tool]) -> bool:
    """An approved call of the agent's: its result comes with the next step."""
    approval = part.approval
    return (
        not part.has_result
        and approval is not None
        and approval.status == "approved"
        and is_agent_gated(message, part, tools)
    )


def ask_user(
    message: Message,
    request: AgentRequest,
    calls: list[ToolCallPart],
    always_allowed: Collection[str],
) -> None:
    """The calls the agent's run paused on wait for the user's approval (or
    are approved at once by the user's standing grant for their tool)."""
    if not request.interrupts:
        return
    marks = message.metadata.setdefault(AGENT_INTERRUPTS, {})
    for index, interrupt in request.interrupts.items():
        part = calls[index]
        prompt = (interrupt.prompt or "").strip()
        if len(prompt) > MAX_PROMPT_CHARS:
            prompt = prompt[:MAX_PROMPT_CHARS] + "…"
        part.args_complete = True
        if part.tool_name in always_allowed:
            part.approval = Approval(
                status="approved", reason="always allowed in this chat", decided_by="grant"
            )
        else:  # the agent's words, marked as its own: shown, never obeyed
            note = f"The agent asks: {prompt}" if prompt else None
            part.approval = Approval(status="pending", note=note)
        marks[part.tool_call_id] = interrupt.interrupt_id


def decisions(message: Message, tools: Mapping[str, Tool]) -> list[AgentDecision]:
    """The user's decisions on the agent's paused calls, for the next run's ``resume``."""
    out: list[AgentDecision] = []
    marks = _marks(message)
    for part in message.tool_calls:
        approval = part.approval
        if approval is None or approval.status == "pending":
            continue
        if not is_agent_gated(message, part, tools):
            continue
        approved = approval.status == "approved"
        if approved and part.has_result:
            continue  # answered already (a cancelled run): nothing to resume
        interrupt_id = marks[part.tool_call_id]
        args = part.args if approved and approval.edited else None
        out.append(AgentDecision(interrupt_id, part.tool_call_id, approved, approval.reason, args))
    return out


def abandoned(earlier: Sequence[Message], tools: Mapping[str, Tool]) -> list[AgentDecision]:
    """The interrupts earlier replies left open (the user sent a new message
    instead of deciding, or the run stopped before resuming them): each is
    resumed as cancelled by the next run."""
    out: list[AgentDecision] = []
    for message in earlier:
        marks = _marks(message)
        for part in message.tool_calls:
            if part.tool_call_id in marks and is_agent_gated(message, part, tools):
                interrupt_id = marks[part.tool_call_id]
                out.append(AgentDecision(interrupt_id, part.tool_call_id, False, cancelled=True))
    return out


def settle(message: Message, request: AgentRequest, answer: Answer) -> None:
    """After the run that carried ``resume``: the approved calls get the
    results the agent reported (or say none came), and none is sent again."""
    if not request.resume:
        return
    cancelled = {d.tool_call_id for d in request.resume if d.cancelled}
    for earlier in request.messages if cancelled else ():  # an earlier reply's interrupts
        if earlier is not message:
            _unmark(earlier, cancelled)
    marks = _marks(message)
    by_id = {part.tool_call_id: part for part in message.tool_calls}
    for decision in request.resume:
        if decision.cancelled:
            continue  # answered already, as not run, when its reply ended
        marks.pop(decision.tool_call_id, None)
        part = by_id.get(decision.tool_call_id)
        if part is None or part.has_result:
            continue  # a rejected call keeps the rejection it was answered with
        result, is_error = request.resumed_results.get(
            decision.tool_call_id, ({"error": NO_RESULT}, True)
        )
        answer(part, result, is_error)
    if not marks:
        message.metadata.pop(AGENT_INTERRUPTS, None)


def _unmark(message: Message, calls: Collection[str]) -> None:
    marks = _marks(message)
    for call in calls:
        marks.pop(call, None)
    if not marks:
        message.metadata.pop(AGENT_INTERRUPTS, None)
