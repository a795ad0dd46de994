"""Resource faults: what a long chat leaves behind in the kernel.

Faults tried:
- 50 turns on the offline demo model: the model must not keep every request
  (each holds the whole history, so keeping all of them grows quadratically);
- the same on a ScriptedModel, the test double most code is exercised with;
- recording asked for (``record=True``): every request is kept, in order.

Memory over 1,000 turns is measured in benchmarks/bench_memory.py, not here.
"""

from __future__ import annotations

import ipygenui as gu
from ipygenui.models.scripted import KEPT_REQUESTS
from ipygenui.testing import ScriptedModel

TURNS = 50


async def _chat(model: ScriptedModel, turns: int = TURNS) -> gu.Runtime:
    rt = gu.Runtime(model=model, suggestions=False)  # one request a turn, counted
    for n in range(turns):
        await rt.send(f"turn {n}")
    return rt


async def test_the_demo_model_keeps_only_the_last_requests() -> None:
    model = gu.DemoModel(delay=0)
    await _chat(model)
    assert len(model.requests) == KEPT_REQUESTS < TURNS
    assert model.request_count == TURNS
    # the newest are the ones kept: the last request saw the last turn
    assert model.requests[-1].messages[-1] == {"role": "user", "content": f"turn {TURNS - 1}"}


async def test_a_scripted_model_keeps_only_the_last_requests_by_default() -> None:
    model = ScriptedModel(default="ok")
    await _chat(model)
    assert len(model.requests) == KEPT_REQUESTS
    assert model.request_count == TURNS


async def test_record_keeps_every_request_in_order() -> None:
    model = ScriptedModel(default="ok", record=True)
    await _chat(model)
    assert len(model.requests) == model.request_count == TURNS
    firsts = [r.messages[-1]["content"] for r in model.requests]
    assert firsts == [f"turn {n}" for n in range(TURNS)]
