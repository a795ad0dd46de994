"""Property: whatever the user does (send, approve, reject, answer, cancel, at any
moment), every request the model receives is valid for the OpenAI chat API, and
no approval-gated tool runs without an approval."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ipygenui as gu
from ipygenui._loop.history import check_openai_history, to_openai_messages
from ipygenui.models.base import ModelRequest

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
        parts = [p for m in rt.thread.messages for p in m.tool_calls if p.tool_name == "gated"]
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

    def respond(request: ModelRequest) -> gu.ScriptedReply:
        step = plan[model.request_count % len(plan)]
        if step == "text":
            return gu.ScriptedReply(text="All done here.")
        calls = []
        for kind in step:
            n = next(counter)
            if kind == "human":
                calls.append(gu.ScriptedCall("human", {"question": f"q{n}"}))
            elif kind == "unknown":
                calls.append(gu.ScriptedCall("missing", {"n": n}))
            elif kind == "bad":
                calls.append(gu.ScriptedCall("safe", '{"n": '))
            else:
                calls.append(gu.ScriptedCall(kind, {"n": n}))
        return gu.ScriptedReply(text="Working.", tool_calls=calls)

    model = gu.ScriptedModel(respond, chunk_size=5, record=True)  # every request is checked
    rt = gu.Runtime(model=model, tools=[safe, gated, human], max_steps=4)
    run: gu.Run | None = None

    def ids() -> list[str]:
        return [p.tool_call_id for m in rt.thread.messages for p in m.tool_calls]

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
        except gu.DecisionError:
            assert rt.thread.model_dump() == before, "a refused decision changed the thread"
    rt.cancel()
    await asyncio.sleep(0)

    assert not violations, violations
    for request in model.requests:
        check_openai_history(request.messages)
    check_openai_history(to_openai_messages(rt.thread))
    assert all(p.has_result for m in rt.thread.messages for p in m.tool_calls)
    assert not rt.running


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=step_plans, script=actions)
def test_any_sequence_of_decisions_keeps_history_valid(plan: list[Any], script: list) -> None:
    asyncio.run(scenario(plan, script))
