"""The user's decisions on tool calls: approve, reject, answer, trust.

Each function checks that the decision fits the thread's state first and
raises ``DecisionError`` before changing anything, so a bad click or a
stale notebook cell loses nothing. Resuming the loop is the runtime's job.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from ...errors import DecisionError
from ...messages import (
    Approval,
    Complete,
    DecidedBy,
    Incomplete,
    Message,
    ParsedArgs,
    RequiresAction,
    Running,
    Thread,
    ToolCallPart,
)
from ...tools import Tool, ToolArgumentsError, to_jsonable
from .accumulator import clean_arguments
from .agent_interrupts import is_agent_gated
from .ending import Answer, end_message
from .tool_runner import show_validated

ALWAYS_ALLOWED_KEY = "always_approved"
"""Thread metadata key: the tools always allowed for the rest of the chat
(its old name, kept so thread files saved before still load)."""


def always_allowed_tools(thread: Thread) -> frozenset[str]:
    """The tools always allowed in ``thread`` (``approve(..., always=True)``)."""
    return frozenset(thread.metadata.get(ALWAYS_ALLOWED_KEY, ()))


def set_always_allowed(thread: Thread, names: Collection[str]) -> None:
    thread.metadata[ALWAYS_ALLOWED_KEY] = sorted(names)


NOT_RUN_FROM_FILE = "Not run: the saved thread left this call open."


def distrust_loaded(
    thread: Thread, tools: Mapping[str, Tool], restore_always_allowed: bool
) -> None:
    """A thread read from a file is untrusted input: it grants nothing.

    Its standing "always allow" grants are dropped unless the caller opts in
    with ``restore_always_allowed``. In the last reply, every call that has no
    result yet waits for the user again (an "approved" or "rejected" there was
    never acted on, or was written by hand), shown with the arguments it
    would run with: those parsed from its ``args_text``, the text the tool
    phase validates. An open call in an earlier reply is answered "not run".
    A reply saved mid-run is left to the runtime, which ends it cancelled.
    """
    if not restore_always_allowed:
        thread.metadata.pop(ALWAYS_ALLOWED_KEY, None)
    last = thread.last_assistant
    for message in thread.messages:
        open_calls = [p for p in message.tool_calls if not p.has_result]
        if not open_calls or isinstance(message.status, Running):
            continue
        if message is not last:
            status = message.status
            if not isinstance(status, Complete | Incomplete):
                status = Incomplete(reason="cancelled", error=NOT_RUN_FROM_FILE)
            end_message(message, status, _answer_not_run)
            continue
        for part in open_calls:
            tool = tools.get(part.tool_name)
            # parsed here once (JSON-safe), then kept on the part for the tool phase
            raw = part.parsed_args.value  # None for bad JSON: the tool phase answers it
            part.args = clean_arguments(raw, tool.declared if tool else None)[0]
            part.args_complete = True
            if part.approval is not None:  # the file's note is not kept: the tool's is
                note = tool.approval_note if tool else None
                part.approval = Approval(status="pending", note=note)
        message.status = RequiresAction()


def _answer_not_run(part: ToolCallPart, result: Any, is_error: bool) -> None:
    part.result = {"error": NOT_RUN_FROM_FILE}
    part.has_result = True
    part.is_error = True


def find_call(thread: Thread, tool_call_id: str) -> tuple[Message, ToolCallPart]:
    found = thread.find_tool_call(tool_call_id)
    if found is None:
        raise DecisionError(f"no tool call with id {tool_call_id!r} in this thread")
    return found


def pending_approval(thread: Thread, tool_call_id: str) -> tuple[Message, ToolCallPart]:
    message, part = find_call(thread, tool_call_id)
    if part.approval is None:
        raise DecisionError(f"tool call {tool_call_id} ({part.tool_name}) needs no approval")
    if part.approval.status != "pending" or part.has_result:
        raise DecisionError(
            f"tool call {tool_call_id} ({part.tool_name}) is not waiting for approval: "
            f"it was already {part.approval.status}"
        )
    return message, part


def approve_call(
    thread: Thread,
    tools: Mapping[str, Tool],
    tool_call_id: str,
    args: dict[str, Any] | None,
    always: bool,
    by: DecidedBy = "code",
) -> Message:
    """Approve a pending call; returns its message.

    Edited ``args`` are validated first and stored in their validated form:
    what runs is exactly what the call then shows. The user approved them
    explicitly, so they run whatever the tool's approval rule says of them.
    A call an agent paused on takes them as they are: the agent validates
    its own tool's arguments.
    """
    message, part = pending_approval(thread, tool_call_id)
    shown = part.args
    if args is not None and is_agent_gated(message, part, tools):
        text = json.dumps(args)
        part.args, part.args_text = args, text
        part.record_parsed_args(ParsedArgs(text, args))
    elif args is not None:
        tool = tools.get(part.tool_name)
        if tool is None:
            raise DecisionError(f"tool {part.tool_name!r} is not registered here")
        try:
            show_validated(part, tool.validate(args))  # changes the part only on success
        except ToolArgumentsError as exc:
            raise DecisionError(f"edited arguments rejected: {exc}") from None
        except Exception as exc:  # valid, but with no JSON form to show and store
            raise DecisionError(f"edited arguments rejected: {exc}") from None
    part.approval = Approval(status="approved", decided_by=by, edited=part.args != shown)
    if always:
        set_always_allowed(thread, always_allowed_tools(thread) | {part.tool_name})
    return message


def reject_call(
    thread: Thread,
    tool_call_id: str,
    reason: str | None,
    answer: Answer,
    by: DecidedBy = "code",
) -> Message:
    """Reject a pending call: it is answered with an error that gives the reason."""
    message, part = pending_approval(thread, tool_call_id)
    part.approval = Approval(status="rejected", reason=reason, decided_by=by)
    text = "The user rejected this tool call" + (f": {reason}" if reason else ".")
    answer(part, {"error": text}, True)
    return message


def may_answer(
    part: ToolCallPart,
    tools: Mapping[str, Tool],
    *,
    by_agent: bool = False,
    client_tools: Collection[str] = (),
) -> str | None:
    """Whether a result from outside the kernel may answer ``part``: None if
    it may, else why not (the text a refusal shows).

    The one rule for every answer that is not the kernel's own (``add_tool_result``,
    so the widget's ``tool_result`` message and an AG-UI client's tool message,
    and an agent's ``TOOL_CALL_RESULT``): only a human tool's call is answered
    from outside; an agent (``by_agent``) may also answer a call to a tool
    of its own, one not in ``tools``, and an AG-UI client a call to one of the
    tools it declared (``client_tools``, none of them in ``tools``). A call
    waiting for the user's approval is decided by approve / reject only, and a
    call to one of ``tools`` runs in the kernel: an answer from outside would
    skip the gate, or fake what ran.
    """
    call = f"tool call {part.tool_call_id} ({part.tool_name})"
    if part.approval is not None and part.approval.status == "pending":
        return f"{call} waits for the user's approval: approve or reject it"
    tool = tools.get(part.tool_name)
    if tool is not None and tool.human:
        return None
    if tool is not None:
        return f"{call} is run by the kernel, not answered"
    if by_agent:
        return None  # the agent's own tool, run on its side
    if part.tool_name in client_tools:
        return None  # the client's own tool, run on its side
    return f"{call} calls no tool of this chat: only a human tool's call is answered"


def answer_call(
    thread: Thread,
    tools: Mapping[str, Tool],
    tool_call_id: str,
    result: Any,
    is_error: bool,
    *,
    executing: Collection[str],
    streaming: Message | None,
    answer: Answer,
    client_tools: Collection[str] = (),
) -> Message:
    """Answer a human tool's call with ``result`` (``may_answer`` with the
    chat's ``tools``, and the answering client's ``client_tools``), unless it
    has a result, is running (its id in ``executing``) or still streams (in
    ``streaming``, the run's message)."""
    message, part = find_call(thread, tool_call_id)
    if part.has_result:
        raise DecisionError(f"tool call {tool_call_id} ({part.tool_name}) already has a result")
    if tool_call_id in executing:
        raise DecisionError(f"tool call {tool_call_id} ({part.tool_name}) is running")
    if message is streaming and not part.args_complete:
        raise DecisionError(f"tool call {tool_call_id} is still streaming")
    refused = may_answer(part, tools, client_tools=client_tools)
    if refused is not None:
        raise DecisionError(refused)
    try:
        value = to_jsonable(result)
    except Exception as exc:
        raise DecisionError(f"result is not JSON-serializable: {exc}") from None
    answer(part, value, is_error)
    return message
