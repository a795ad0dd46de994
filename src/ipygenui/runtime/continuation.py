"""``should_continue``: may the loop call the model again? (assistant-ui's rule).

It is the run loop's condition (``run_loop``: ``do { roundtrip } while
should_continue(message)``) and the runtime's test for resuming a run after
a decision; the limits that end a run are separate stops in ``run_loop``.
Public as ``gu.should_continue``. The module is not named after the
function: a submodule named like a public function would shadow it as an
attribute of the package once imported.
"""

from __future__ import annotations

from collections.abc import Collection

from ..messages import Message, RequiresAction, ToolCallPart


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
