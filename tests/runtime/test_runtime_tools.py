"""The tool loop through gu.Runtime + ScriptedModel: parallel calls, approvals,
human tools, errors that reach the model, limits, decisions."""

from __future__ import annotations

import asyncio

import pytest

import ipygenui as gu
from ipygenui.events import RunChanged
from ipygenui.messages import Complete, Incomplete, RequiresAction
from ipygenui.testing import ScriptedModel, ScriptedReply
from runtime_helpers import assert_valid, call, tool_messages

RAN: list[tuple[str, dict]] = []


@gu.tool
def get_weather(city: str) -> dict:
    """Weather for a city."""
    RAN.append(("get_weather", {"city": city}))
    return {"city": city, "sky": "sunny"}


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    RAN.append(("drop_table", {"name": name}))
    return f"dropped {name}"


@gu.tool(human=True)
def ask_user(question: str) -> str:
    """Ask the user."""
    raise AssertionError("a human tool's body never runs")


@pytest.fixture(autouse=True)
def _reset() -> None:
    RAN.clear()


def runtime(script: list, **kwargs) -> tuple[gu.Runtime, ScriptedModel]:
    model = ScriptedModel(script)
    tools = kwargs.pop("tools", [get_weather, drop_table, ask_user])
    return gu.Runtime(model=model, tools=tools, **kwargs), model


async def test_tool_result_reaches_the_model_and_standard_params_are_stripped() -> None:
    args = {
        "_status_message": "looking up Paris",
        "_completion_status_message": "looked",
        "city": "Paris",
    }
    rt, model = runtime([call("get_weather", args, id="c1"), "Sunny in Paris."])
    message = await rt.send("weather?")
    assert message.status == Complete(reason="stop")
    part = message.tool_call("c1")
    assert part is not None
    assert part.args == {"city": "Paris"} and part.args_complete
    assert part.status_message == "looking up Paris" and part.completion_status_message == "looked"
    assert part.result == {"city": "Paris", "sky": "sunny"} and not part.is_error
    assert message.text == "Sunny in Paris."
    assert len(message.metadata["steps"]) == 2
    assert tool_messages(model.requests[1]) == {"c1": {"city": "Paris", "sky": "sunny"}}
    # tools sent to the model carry the standard parameters, required
    params = model.requests[0].tools[0]["function"]["parameters"]
    assert params["required"][:2] == ["_status_message", "_completion_status_message"]
    assert_valid(model)


async def test_parallel_async_calls_run_concurrently() -> None:
    ping_seen, pong_seen = asyncio.Event(), asyncio.Event()

    @gu.tool
    async def ping() -> str:
        ping_seen.set()
        await pong_seen.wait()  # deadlocks unless pong runs at the same time
        return "ping"

    @gu.tool
    async def pong() -> str:
        pong_seen.set()
        await ping_seen.wait()
        return "pong"

    rt, model = runtime([[call("ping", id="a"), call("pong", id="b")], "done"], tools=[ping, pong])
    message = await asyncio.wait_for(rt.send("go"), 10)
    assert [p.result for p in message.tool_calls] == ["ping", "pong"]
    assert tool_messages(model.requests[1]) == {"a": "ping", "b": "pong"}


async def test_two_parallel_calls_one_needs_approval() -> None:
    rt, model = runtime(
        [
            [
                call("get_weather", {"city": "Oslo"}, id="w"),
                call("drop_table", {"name": "t"}, id="d"),
            ],
            "ok",
        ]
    )
    phases: list[str] = []
    rt.subscribe(lambda e: phases.append(e.phase) if isinstance(e, RunChanged) else None)
    message = await rt.send("do both")
    assert message.status == RequiresAction()
    assert rt.phase == "waiting" and phases[-1] == "waiting"
    weather, drop = message.tool_call("w"), message.tool_call("d")
    assert weather is not None and drop is not None
    assert weather.has_result and not drop.has_result
    assert drop.approval is not None and drop.approval.status == "pending"
    assert RAN == [("get_weather", {"city": "Oslo"})]  # the gated call did not run
    assert len(model.requests) == 1

    run = rt.approve("d")
    assert run is not None
    final = await run
    assert final is message and final.status == Complete(reason="stop")
    assert RAN.count(("drop_table", {"name": "t"})) == 1
    assert tool_messages(model.requests[1]) == {
        "w": {"city": "Oslo", "sky": "sunny"},
        "d": "dropped t",
    }
    assert_valid(model)
    with pytest.raises(gu.errors.DecisionError, match="already approved"):
        rt.approve("d")
    assert RAN.count(("drop_table", {"name": "t"})) == 1


async def test_reject_with_reason_reaches_the_model() -> None:
    rt, model = runtime([call("drop_table", {"name": "users"}, id="d"), "Understood."])
    await rt.send("drop users")
    final = await rt.reject("d", reason="that table is important")  # type: ignore[misc]
    part = final.tool_call("d")
    assert part is not None and part.is_error and part.approval.status == "rejected"  # type: ignore[union-attr]
    content = tool_messages(model.requests[1])["d"]
    assert "rejected" in content["error"] and "that table is important" in content["error"]
    assert RAN == []
    assert final.status == Complete(reason="stop")
    assert_valid(model)


async def test_human_tool_waits_until_answered() -> None:
    rt, model = runtime([call("ask_user", {"question": "colour?"}, id="h"), "Blue it is."])
    message = await rt.send("pick a colour")
    assert message.status == RequiresAction()
    part = message.tool_call("h")
    assert part is not None and not part.has_result and part.approval is None
    run = rt.add_tool_result("h", "blue")
    assert run is not None
    final = await run
    assert final.text == "Blue it is."
    assert tool_messages(model.requests[1]) == {"h": "blue"}
    with pytest.raises(gu.errors.DecisionError, match="already has a result"):
        rt.add_tool_result("h", "red")


async def test_tool_that_raises_becomes_an_error_result_and_the_loop_goes_on() -> None:
    @gu.tool
    def broken(x: int) -> int:
        raise ZeroDivisionError("no luck")

    rt, model = runtime([call("broken", {"x": 1}, id="b"), "It failed, sorry."], tools=[broken])
    message = await rt.send("try")
    part = message.tool_call("b")
    assert part is not None and part.is_error
    assert "ZeroDivisionError" in part.result["error"] and "no luck" in part.result["error"]
    assert message.status == Complete(reason="stop")
    assert "no luck" in tool_messages(model.requests[1])["b"]["error"]


async def test_unknown_tool_invalid_args_and_bad_json_are_errors_the_model_reads() -> None:
    script = [
        [
            call("nope", {}, id="u"),
            call("get_weather", {"town": "X"}, id="v"),
            call("get_weather", '{"city": ', id="j"),
            call("get_weather", "[1]", id="a"),
        ],
        "Let me fix that.",
    ]
    rt, model = runtime(script)
    message = await rt.send("go")
    errors = {p.tool_call_id: p.result["error"] for p in message.tool_calls}
    assert all(p.is_error for p in message.tool_calls)
    assert "Unknown tool 'nope'" in errors["u"] and "get_weather" in errors["u"]
    assert "city" in errors["v"]
    assert "not valid JSON" in errors["j"]
    assert "JSON object" in errors["a"]
    assert RAN == []
    assert message.status == Complete(reason="stop")
    sent = tool_messages(model.requests[1])
    assert set(sent) == {"u", "v", "j", "a"}
    assert_valid(model)  # bad argument text is sent as {} so the request stays valid


async def test_max_steps_ends_the_run_incomplete() -> None:
    counter = iter(range(100))

    def respond(request):
        return call("get_weather", {"city": f"c{next(counter)}"})

    model = ScriptedModel(respond)
    rt = gu.Runtime(model=model, tools=[get_weather], max_steps=3)
    message = await rt.send("loop")
    assert isinstance(message.status, Incomplete) and message.status.reason == "other"
    assert "max_steps" in (message.status.error or "")
    assert len(model.requests) == 3 and len(RAN) == 3
    assert all(p.has_result for p in message.tool_calls)


async def test_identical_call_limit_stops_the_run() -> None:
    model = ScriptedModel(default=call("get_weather", {"city": "Paris"}))
    rt = gu.Runtime(model=model, tools=[get_weather])
    message = await rt.send("loop")
    assert isinstance(message.status, Incomplete) and message.status.reason == "other"
    assert "same arguments" in (message.status.error or "")
    assert RAN == [("get_weather", {"city": "Paris"})] * 3
    last = message.tool_calls[-1]
    assert last.is_error and "limit is 3" in last.result["error"]
    assert len(model.requests) == 4


async def test_approve_with_edited_args_is_validated_again() -> None:
    rt, model = runtime([call("drop_table", {"name": "prod"}, id="d"), "Done."])
    message = await rt.send("drop")
    with pytest.raises(gu.errors.DecisionError, match="edited arguments rejected"):
        rt.approve("d", args={"name": 42, "extra": 1})
    part = message.tool_call("d")
    assert part is not None and part.approval.status == "pending" and part.args == {"name": "prod"}  # type: ignore[union-attr]
    final = await rt.approve("d", args={"name": "staging"})  # type: ignore[misc]
    assert RAN == [("drop_table", {"name": "staging"})]
    assert final.tool_call("d").args == {"name": "staging"}  # type: ignore[union-attr]
    assert_valid(model)
    sent = model.requests[1].messages
    assert any(
        tc["function"]["arguments"] == '{"name": "staging"}'
        for m in sent
        for tc in m.get("tool_calls", [])
    )


async def test_always_approve_then_revoke() -> None:
    rt, _ = runtime(
        [
            call("drop_table", {"name": "a"}, id="d1"),
            "one",
            call("drop_table", {"name": "b"}, id="d2"),
            "two",
            call("drop_table", {"name": "c"}, id="d3"),
            "three",
        ]
    )
    await rt.send("1")
    await rt.approve("d1", always=True)  # type: ignore[misc]
    assert rt.always_allowed == {"drop_table"}
    second = await rt.send("2")
    assert second.status == Complete(reason="stop")
    assert second.tool_call("d2").approval.status == "approved"  # type: ignore[union-attr]
    assert RAN == [("drop_table", {"name": "a"}), ("drop_table", {"name": "b"})]
    rt.revoke_always("drop_table")
    third = await rt.send("3")
    assert third.status == RequiresAction() and len(RAN) == 2


async def test_approval_rule_depends_on_arguments() -> None:
    @gu.tool(requires_approval=lambda args: args["amount"] > 100)
    def pay(amount: int) -> str:
        return f"paid {amount}"

    rt, _ = runtime(
        [[call("pay", {"amount": 5}, id="small"), call("pay", {"amount": 500}, id="big")], "ok"],
        tools=[pay],
    )
    message = await rt.send("pay")
    assert message.tool_call("small").result == "paid 5"  # type: ignore[union-attr]
    assert message.tool_call("big").approval.status == "pending"  # type: ignore[union-attr]


async def test_bad_decisions_raise_and_change_nothing() -> None:
    rt, _ = runtime(
        [
            [call("get_weather", {"city": "A"}, id="w"), call("drop_table", {"name": "t"}, id="d")],
            "x",
        ]
    )
    message = await rt.send("go")
    before = message.model_dump()
    with pytest.raises(gu.errors.DecisionError, match="no tool call"):
        rt.approve("missing")
    with pytest.raises(gu.errors.DecisionError, match="needs no approval"):
        rt.approve("w")
    with pytest.raises(gu.errors.DecisionError, match="no tool call"):
        rt.reject("missing")
    with pytest.raises(gu.errors.DecisionError, match="already has a result"):
        rt.add_tool_result("w", 1)
    assert message.model_dump() == before
    await rt.reject("d")  # type: ignore[misc]
    with pytest.raises(gu.errors.DecisionError, match="already rejected"):
        rt.reject("d")
    with pytest.raises(gu.errors.DecisionError, match="already rejected"):
        rt.approve("d")
    assert RAN == [("get_weather", {"city": "A"})]


async def test_sending_while_calls_wait_answers_them_so_history_stays_valid() -> None:
    rt, model = runtime([call("drop_table", {"name": "t"}, id="d"), "fine"])
    first = await rt.send("drop")
    await rt.send("never mind")
    assert isinstance(first.status, Incomplete) and first.status.reason == "cancelled"
    part = first.tool_call("d")
    assert part is not None and part.is_error and part.approval.status == "rejected"  # type: ignore[union-attr]
    assert_valid(model)
    assert RAN == []
    with pytest.raises(gu.errors.DecisionError):
        rt.approve("d")


async def test_length_finish_answers_truncated_calls() -> None:
    reply = ScriptedReply(tool_calls=[call("get_weather", '{"city": "Os', id="t")], finish="length")
    rt, model = runtime([reply, "next"])
    message = await rt.send("x")
    assert message.status == Incomplete(reason="length")
    assert message.tool_call("t").has_result and RAN == []  # type: ignore[union-attr]
    await rt.send("again")
    assert_valid(model)
