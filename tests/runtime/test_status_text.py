"""Who decided a call, as the thread's display and transcript say it (the
card says the same, js/test/tool-card/status-text.test.js)."""

from __future__ import annotations

import ipygenui as gu
from ipygenui._internal.decision_text import decision_text
from ipygenui.messages import Approval, Message, ToolCallPart
from ipygenui.runtime._transcript import thread_to_markdown
from ipygenui.testing import ScriptedModel
from runtime_helpers import call


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


def test_each_source_reads_as_a_user_understands_it() -> None:
    assert decision_text(Approval(status="approved", decided_by="user")) == "approved by you"
    edited = Approval(status="approved", decided_by="user", edited=True)
    assert decision_text(edited) == "approved by you, edited"
    assert decision_text(Approval(status="approved", decided_by="code")) == "approved from code"
    grant = Approval(status="approved", decided_by="grant")
    assert decision_text(grant) == "approved by an always-allow rule"
    no = Approval(status="rejected", decided_by="user", reason="too big")
    assert decision_text(no) == "rejected by you: too big"
    client = Approval(status="approved", decided_by="client", edited=True)
    assert decision_text(client) == "approved by the AG-UI client, edited"
    refused = Approval(status="rejected", decided_by="client", reason="keep it")
    assert decision_text(refused) == "rejected by the AG-UI client: keep it"
    assert decision_text(Approval(status="pending")) == ""
    assert decision_text(Approval(status="approved")) == ""  # an old file: no source


async def test_the_transcript_and_the_display_say_who_decided() -> None:
    rt = gu.Runtime(
        model=ScriptedModel([call("drop_table", {"name": "a"}, id="d"), "Done."]),
        tools=[drop_table],
    )
    await rt.send("drop")
    await rt.approve("d", args={"name": "b"})  # type: ignore[misc]
    markdown = thread_to_markdown(rt.thread)
    assert "→ `dropped b` (approved from code, edited)" in markdown
    html = rt.thread.messages[1]._repr_html_()
    assert "(approved from code, edited)" in html


def test_a_rejection_by_you_names_you_and_an_old_one_reads_as_before() -> None:
    def part(approval: Approval) -> Message:
        rejected = ToolCallPart(
            tool_call_id="c",
            tool_name="drop_table",
            args={"name": "u"},
            args_complete=True,
            approval=approval,
            has_result=True,
            is_error=True,
            result={"error": "The user rejected this tool call: not today"},
        )
        return Message(role="assistant", parts=[rejected])

    by_you = Approval(status="rejected", reason="not today", decided_by="user")
    assert "drop_table(name=&quot;u&quot;) rejected by you: not today" in part(by_you)._repr_html_()
    old = Approval(status="rejected", reason="not today")
    assert "drop_table(name=&quot;u&quot;) rejected: not today" in part(old)._repr_html_()
