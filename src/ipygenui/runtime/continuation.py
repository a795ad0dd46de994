"""``should_continue``: may the loop call the model again? (assistant-ui's rule).

``goes_on`` is the one decision built on it: whether a run goes on with a
message without the user. The run loop asks it after each tool phase
(``run_loop``: ``do { roundtrip } while goes_on(message)``) and the runtime
after each decision (``approve``, ``reject``, ``add_tool_result``: a run
resumes only when ``goes_on``); the limits that end a run are separate stops
in ``run_loop``. ``should_continue`` is public as ``gu.should_continue``. The
module is not named after the function: a submodule named like a public
function would shadow it as an attribute of the package once imported.
"""

from __future__ import annotations

from collections.abc import Collection

from ..messages import Message, RequiresAction, ToolCallPart
from ._loop.agent_interrupts import is_agent_gated, resumed_by_agent
from ._loop.toolset import Toolset


def _approval_pending(part: ToolCallPart) -> bool:
    return not part.has_result and part.approval is not None and part.approval.status == "pending"


def should_continue(message: Message, human_tool_names: Collection[str] = ()) -> bool:
    """True when the loop may go on with ``message`` without the user.

    Continue only when the message requires action for tool calls, no call
    waits on an undecided approval, and every call has a result, an approval
    decision, or is not a human tool (a non-human call without a result is
    one the loop itself runs next). Pure: reads ``message``, changes nothing.
    """
    status = message.status
    if not isinstance(status, RequiresAction) or status.reason != "tool-calls":
        return False
    calls = message.tool_calls
    if any(_approval_pending(part) for part in calls):
        return False
    return all(
        part.has_result or part.approval is not None or part.tool_name not in human_tool_names
        for part in calls
    )


def goes_on(message: Message, human_tool_names: Collection[str], tools: Toolset) -> bool:
    """Whether a run goes on with ``message`` without the user (``tools``: the
    step's toolset): ``should_continue``, and the loop has something to do.

    That is a call its tool phase takes next (one of the kernel's tools,
    approved or never asked: it runs, or asks for approval; or a call of no
    tool: it fails), or, no call left open, the next model step. A human
    tool's call with an approval decision (which the rule lets through) and a
    call to a tool an AG-UI client declared still wait for their answer; an
    approved call of an agent's own is answered by the agent's next run.
    Right after a tool phase no call is left for it to take, so there this is
    ``should_continue`` and no call left open. Pure, as ``should_continue``.
    """
    if not should_continue(message, human_tool_names):
        return False
    open_calls = [part for part in message.tool_calls if not part.has_result]
    if any(_taken_by_the_tool_phase(message, part, tools) for part in open_calls):
        return True
    chat_tools = tools.all()
    return all(resumed_by_agent(message, part, chat_tools) for part in open_calls)


def _taken_by_the_tool_phase(message: Message, part: ToolCallPart, tools: Toolset) -> bool:
    """Whether the tool phase does something with ``part`` without the user
    (as ``ToolRunner._prepare`` decides)."""
    tool = tools.get(part.tool_name)
    if tool is None:  # answered "unknown tool", unless the agent paused on it
        return not is_agent_gated(message, part, tools.all())
    if tool.human:
        return False
    return part.approval is None or part.approval.status == "approved"
