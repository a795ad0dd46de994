"""Property: whatever the user does (send, approve, reject, answer, cancel, edit,
regenerate, switch branches or threads, at any moment), every request the model receives
is valid for the OpenAI chat API, no approval-gated tool runs without an
approval, and the thread (every branch of it) saves and loads."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ipygenui as gu
from ipygenui.models.base import ModelRequest
from ipygenui.models.history import check_openai_history, to_openai_messages
from ipygenui.persistence import decode_thread, encode_thread
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply

KINDS = ("safe", "gated", "human", "unknown", "bad")
step_plans = st.lists(
    st.one_of(st.just("text"), st.lists(st.sampled_from(KINDS), min_size=1, max_size=3)),
    min_size=1,
    max_size=5,
)
actions = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "send",
                "approve",
                "approve_edit",
                "approve_always",
                "reject",
                "answer",
                "cancel",
                "tick",
                "wait",
                "revoke",
                "retry",
                "edit",
                "regenerate",
                "switch",
                "thread",
            ]
        ),
        st.integers(0, 7),
    ),
    max_size=25,
)


async def scenario(plan: list[Any], script: list[tuple[str, int]]) -> None:
    counter = itertools.count()
    ran: list[int] = []
    violations: list[str] = []
    rt: gu.Runtime

    @gu.tool
    def safe(n: int) -> int:
        return n

    @gu.tool(requires_approval=True)
    def gated(n: int) -> int:
        # an edit may have stashed it meanwhile, or another thread is shown
        every = [m for t in rt._store.threads.values() for m in t.all_messages()]
        parts = [p for m in every for p in m.tool_calls if p.tool_name == "gated"]
        mine = [p for p in parts if p.args.get("n") == n]
        if not mine or any(p.approval is None or p.approval.status != "approved" for p in mine):
            violations.append(f"gated({n}) ran without approval")
        if n in ran:
            violations.append(f"gated({n}) ran twice")
        ran.append(n)
        return n

    @gu.tool(human=True)
    def human(question: str) -> str:
        raise AssertionError("never called")

    def respond(request: ModelRequest) -> ScriptedReply:
        step = plan[model.request_count % len(plan)]
        if step == "text":
            return ScriptedReply(text="All done here.")
        calls = []
        for kind in step:
            n = next(counter)
            if kind == "human":
                calls.append(ScriptedCall("human", {"question": f"q{n}"}))
            elif kind == "unknown":
                calls.append(ScriptedCall("missing", {"n": n}))
            elif kind == "bad":
                calls.append(ScriptedCall("safe", '{"n": '))
            else:
                calls.append(ScriptedCall(kind, {"n": n}))
        return ScriptedReply(text="Working.", tool_calls=calls)

    model = ScriptedModel(respond, chunk_size=5, record=True)  # every request is checked
    rt = gu.Runtime(model=model, tools=[safe, gated, human], max_steps=4)
    run: gu.Run | None = None

    def ids() -> list[str]:
        return [p.tool_call_id for m in rt.thread.messages for p in m.tool_calls]

    def pick(role: str | None, k: int) -> str:
        """The id of a message on the active branch (of ``role``), or an unknown one."""
        found = [m.id for m in rt.thread.messages if role is None or m.role == role]
        return found[k % len(found)] if found else "msg_unknown"

    for action, k in script:
        known = ids()
        target = known[k % len(known)] if known else "none"
        before = rt.thread.model_dump()
        try:
            if action == "send":
                run = rt.send(f"message {k}")
            elif action == "approve":
                run = rt.approve(target) or run
            elif action == "approve_edit":
                run = rt.approve(target, args={"n": 1000 + k}) or run
            elif action == "approve_always":
                run = rt.approve(target, always=True) or run
            elif action == "reject":
                run = rt.reject(target, reason=f"no {k}") or run
            elif action == "answer":
                run = rt.add_tool_result(target, f"answer {k}") or run
            elif action == "cancel":
                rt.cancel()
            elif action == "tick":
                for _ in range(k + 1):
                    await asyncio.sleep(0)
            elif action == "wait" and run is not None:
                await asyncio.wait_for(run, 10)
            elif action == "revoke":
                rt.revoke_always("gated")
            elif action == "retry" and rt.thread.messages:
                run = rt.retry()
            elif action == "edit":  # now and then a reply's id: refused
                run = rt.edit(pick("user" if k % 4 else None, k), f"edited {k}")
            elif action == "regenerate":
                run = rt.regenerate(pick("assistant", k) if k % 3 else None)
            elif action == "switch":
                target_id = pick(None, k)
                count = rt.thread.branch_position(target_id).count if rt.thread.messages else 1
                rt.switch_branch(target_id, k % (count + 1))  # now and then out of range
            elif action == "thread":  # a new thread, or back to one (a reply may wait there)
                known_threads = [t.id for t in rt.threads]
                if k % 3 == 0:
                    rt.new_thread()
                else:
                    rt.switch_thread(known_threads[k % len(known_threads)])
        except (gu.errors.DecisionError, gu.errors.BranchError):
            assert rt.thread.model_dump() == before, "a refused action changed the thread"
    rt.cancel()
    await asyncio.sleep(0)

    assert not violations, violations
    for request in model.requests:
        check_openai_history(request.messages)
    check_openai_history(to_openai_messages(rt.thread))
    assert all(p.has_result for m in rt.thread.all_messages() for p in m.tool_calls)
    assert not rt.running
    assert decode_thread(encode_thread(rt.thread), "t.json") == rt.thread
    for summary in rt.threads:  # the others may wait for the user: still valid
        rt.switch_thread(summary.id)
        check_openai_history(to_openai_messages(rt.thread))
        assert decode_thread(encode_thread(rt.thread), "t.json") == rt.thread


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=step_plans, script=actions)
def test_any_sequence_of_decisions_keeps_history_valid(plan: list[Any], script: list) -> None:
    asyncio.run(scenario(plan, script))
