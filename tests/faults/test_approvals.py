"""Faults tried against approvals.

- An approval rule fooled by raw JSON: ``"dry_run": "false"`` (also "no", "off",
  "0", 0) validates to ``False``; the rule must see that and ask for approval.
- What the user approves is what runs: the stored arguments of a gated call are
  the validated ones; edited arguments are validated, stored validated, and run.
- A rule that raises still gates; a single-model tool's rule sees its fields.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.messages import Complete, RequiresAction
from ipygenui.testing import ScriptedModel
from runtime_helpers import assert_valid, call

DEPLOYS: list[tuple[str, Any]] = []
RULE_SAW: list[dict[str, Any]] = []


def _risky(args: dict[str, Any]) -> bool:
    RULE_SAW.append(dict(args))
    return not args.get("dry_run", True)


@gu.tool(requires_approval=_risky)
def deploy(env: str, dry_run: bool = True) -> str:
    """Deploy to an environment."""
    DEPLOYS.append((env, dry_run))
    return f"deployed {env} (dry run: {dry_run})"


class Transfer(BaseModel):
    amount: int
    confirm: bool = False


@pytest.fixture(autouse=True)
def _reset() -> None:
    DEPLOYS.clear()
    RULE_SAW.clear()


def _runtime(script: list[Any], tools: list[Any] | None = None) -> tuple[gu.Runtime, Any]:
    model = ScriptedModel(script)
    return gu.Runtime(model=model, tools=tools or [deploy]), model


def _sent_arguments(model: Any, tool_call_id: str) -> dict[str, Any]:
    """The arguments of ``tool_call_id`` in the last history the model received."""
    for entry in model.requests[-1].messages:
        for tc in entry.get("tool_calls") or []:
            if tc["id"] == tool_call_id:
                return dict(json.loads(tc["function"]["arguments"]))
    raise AssertionError(f"{tool_call_id} not in the history")


# --- the rule sees validated arguments ------------------------------------------


@pytest.mark.parametrize("raw", ["false", "no", "off", "0", 0, "False", "n"])
async def test_a_falsy_string_for_a_bool_cannot_skip_approval(raw: Any) -> None:
    rt, model = _runtime([call("deploy", {"env": "prod", "dry_run": raw}, id="d"), "Deployed."])
    message = await rt.send("deploy to prod")
    part = message.tool_call("d")
    assert part is not None
    assert message.status == RequiresAction()
    assert part.approval is not None and part.approval.status == "pending"
    assert DEPLOYS == []
    assert RULE_SAW == [{"env": "prod", "dry_run": False}]
    assert type(RULE_SAW[0]["dry_run"]) is bool
    # the user sees and approves exactly what will run
    assert part.args == {"env": "prod", "dry_run": False}
    assert json.loads(part.args_text) == {"env": "prod", "dry_run": False}

    final = await rt.approve("d")  # type: ignore[misc]
    assert final.status == Complete(reason="stop")
    assert DEPLOYS == [("prod", False)] and type(DEPLOYS[0][1]) is bool
    assert _sent_arguments(model, "d") == {"env": "prod", "dry_run": False}
    assert_valid(model)


@pytest.mark.parametrize("raw", ["true", "yes", "on", "1", 1])
async def test_a_truthy_string_runs_without_asking(raw: Any) -> None:
    rt, _ = _runtime([call("deploy", {"env": "dev", "dry_run": raw}, id="d"), "ok"])
    message = await rt.send("dry run")
    assert message.status == Complete(reason="stop")
    assert DEPLOYS == [("dev", True)]
    assert RULE_SAW == [{"env": "dev", "dry_run": True}]


async def test_the_rule_sees_defaults_the_function_gets() -> None:
    seen: list[dict[str, Any]] = []

    @gu.tool(requires_approval=lambda a: seen.append(dict(a)) or a["limit"] > 10)
    def fetch(url: str, limit: int = 50) -> str:
        return url

    rt, _ = _runtime([call("fetch", {"url": "u"}, id="f"), "ok"], tools=[fetch])
    message = await rt.send("go")
    assert seen == [{"url": "u", "limit": 50}]
    assert message.status == RequiresAction()


async def test_edited_arguments_are_validated_stored_validated_and_run() -> None:
    rt, model = _runtime([call("deploy", {"env": "prod", "dry_run": "off"}, id="d"), "ok"])
    message = await rt.send("deploy")
    with pytest.raises(gu.errors.DecisionError, match="edited arguments rejected"):
        rt.approve("d", args={"env": "prod", "dry_run": "maybe"})
    part = message.tool_call("d")
    assert part is not None and part.approval is not None
    assert part.approval.status == "pending" and DEPLOYS == []

    final = await rt.approve("d", args={"env": "staging", "dry_run": "no"})  # type: ignore[misc]
    assert final.status == Complete(reason="stop")
    assert DEPLOYS == [("staging", False)]
    assert part.args == {"env": "staging", "dry_run": False}
    assert json.loads(part.args_text) == {"env": "staging", "dry_run": False}
    assert _sent_arguments(model, "d") == {"env": "staging", "dry_run": False}


async def test_edited_arguments_the_rule_would_not_gate_still_run_as_approved() -> None:
    rt, _ = _runtime([call("deploy", {"env": "prod", "dry_run": False}, id="d"), "ok"])
    await rt.send("deploy")
    final = await rt.approve("d", args={"env": "prod"})  # type: ignore[misc]
    assert final.status == Complete(reason="stop")
    assert DEPLOYS == [("prod", True)]
    part = final.tool_call("d")
    assert part is not None and part.args == {"env": "prod", "dry_run": True}


async def test_a_rule_that_raises_on_the_validated_arguments_gates() -> None:
    def broken(args: dict[str, Any]) -> bool:
        raise KeyError("no such key")

    @gu.tool(requires_approval=broken)
    def wipe(path: str) -> str:
        DEPLOYS.append(("wipe", path))
        return "wiped"

    rt, _ = _runtime([call("wipe", {"path": "/"}, id="w"), "ok"], tools=[wipe])
    message = await rt.send("wipe")
    assert message.status == RequiresAction() and DEPLOYS == []


async def test_a_single_model_tool_rule_sees_its_validated_fields() -> None:
    seen: list[dict[str, Any]] = []

    def rule(a: dict[str, Any]) -> bool:
        seen.append(dict(a))
        return a["amount"] > 100

    @gu.tool(requires_approval=rule)
    def transfer(order: Transfer) -> str:
        DEPLOYS.append(("transfer", order.amount))
        return "sent"

    rt, _ = _runtime([call("transfer", {"amount": "500"}, id="t"), "ok"], tools=[transfer])
    message = await rt.send("pay")
    assert seen == [{"amount": 500, "confirm": False}]
    assert message.status == RequiresAction() and DEPLOYS == []
