"""Faults tried against the size of tool results.

- A tool result of 20 MB (text, and a list of rows as JSON): the model gets the
  first ``max_result_chars`` characters and a notice of how much was left out;
  the thread keeps the whole result. A result within the budget is sent whole;
  ``max_result_chars=None`` sends everything; a bad budget is refused; ``Chat``
  takes the budget as ``Runtime`` does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.testing import ScriptedModel
from runtime_helpers import assert_valid, call

BIG = 20_000_000


def _big_runtime(result: Any, **kwargs: Any) -> tuple[gu.Runtime, ScriptedModel]:
    @gu.tool
    def dump() -> Any:
        return result

    model = ScriptedModel([call("dump", id="d"), "ok"])
    return gu.Runtime(model=model, tools=[dump], **kwargs), model


def _sent_content(model: ScriptedModel) -> str:
    for entry in model.requests[-1].messages:
        if entry["role"] == "tool" and entry["tool_call_id"] == "d":
            return str(entry["content"])
    raise AssertionError("no tool message for d")


async def test_a_huge_result_reaches_the_model_truncated_with_a_notice() -> None:
    rt, model = _big_runtime("x" * BIG)
    message = await rt.send("dump")
    part = message.tool_call("d")
    assert part is not None and len(part.result) == BIG  # the kernel keeps all of it
    sent = _sent_content(model)
    assert sent.startswith("x" * 20_000) and not sent.startswith("x" * 20_001)
    assert sent.endswith("[… 19,980,000 more characters not shown]")
    assert_valid(model)


async def test_a_structured_result_is_truncated_in_its_json_text() -> None:
    rows = [{"id": i, "name": f"row {i}"} for i in range(5_000)]
    rt, model = _big_runtime(rows, max_result_chars=1_000)
    message = await rt.send("dump")
    part = message.tool_call("d")
    assert part is not None and part.result == rows
    sent = _sent_content(model)
    head, notice = sent.split("\n[… ", 1)
    assert len(head) == 1_000
    full = json.dumps(rows)
    assert full.startswith(head)
    assert notice == f"{len(full) - 1_000:,} more characters not shown]"


async def test_a_result_within_the_budget_is_sent_whole() -> None:
    rt, model = _big_runtime("y" * 100, max_result_chars=100)
    await rt.send("dump")
    assert _sent_content(model) == "y" * 100


async def test_no_budget_sends_everything() -> None:
    rt, model = _big_runtime("z" * 50_000, max_result_chars=None)
    await rt.send("dump")
    assert _sent_content(model) == "z" * 50_000


@pytest.mark.parametrize("bad", [0, -5, "100", 1.5])
def test_a_bad_budget_is_refused(bad: Any) -> None:
    with pytest.raises(
        (TypeError, ValueError), match=r"max_result_chars=\.\.\.\) must be a positive int"
    ):
        gu.Runtime(model=ScriptedModel([]), max_result_chars=bad)


def test_chat_takes_the_budget() -> None:
    chat = gu.Chat(model=ScriptedModel([]), max_result_chars=500)
    try:
        assert chat.runtime.max_result_chars == 500
    finally:
        chat.close()
