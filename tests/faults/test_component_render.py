"""Faults: a Python component's render function misbehaving in the kernel.

- it calls ``sys.exit`` (argparse on bad input does) or raises
  ``KeyboardInterrupt``: an error output, never a dead kernel loop;
- renders hang forever: later renders still run (each render has a thread
  of its own, so no worker pool is used up, and the lock that keeps pyplot
  renders apart is waited for a few seconds at most).
"""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.components import python_component
from ipygenui.components.live import ComponentOutput, LiveRender


class Props(BaseModel):
    title: str


@gu.component
def Exits(props: Props) -> str:
    """Ends the process, as argparse does on bad input."""
    sys.exit(2)


@gu.component
def Interrupted(props: Props) -> str:
    """Raises KeyboardInterrupt."""
    raise KeyboardInterrupt


@pytest.mark.parametrize(("component", "kind"), [(Exits, "SystemExit"), (Interrupted, "Keyb")])
async def test_a_render_that_ends_the_process_is_an_error_output(component, kind) -> None:
    outputs: list[ComponentOutput] = []
    live = LiveRender(component, "c1", outputs.append, min_interval=0)
    live.finish(Props(title="x"))
    for _ in range(200):
        if outputs:
            break
        await asyncio.sleep(0.01)
    assert outputs and outputs[-1].final and kind in (outputs[-1].error or "")


RELEASE = threading.Event()


@gu.component
def Hangs(props: Props) -> str:
    """Blocks until the test ends."""
    RELEASE.wait(30)
    return "late"


@gu.component
def Quick(props: Props) -> str:
    """Returns at once."""
    return f"**{props.title}**"


async def test_hung_renders_do_not_block_later_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(python_component, "RENDER_WAIT", 0.2)
    renders = [LiveRender(Hangs, f"h{i}", lambda _: None, min_interval=0) for i in range(40)]
    try:
        for live in renders:  # more than any default worker pool
            live.finish(Props(title="h"))
        await asyncio.sleep(0.05)
        outputs: list[ComponentOutput] = []
        quick = LiveRender(Quick, "q", outputs.append, min_interval=0)
        quick.finish(Props(title="quick"))
        for _ in range(500):
            if outputs:
                break
            await asyncio.sleep(0.01)
        assert outputs and outputs[-1].error is None and outputs[-1].final
    finally:
        RELEASE.set()
