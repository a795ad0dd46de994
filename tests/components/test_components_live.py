"""Kernel-side rendering of Python components while props stream in."""

from __future__ import annotations

import asyncio
import base64

import pandas as pd
import pytest
from pydantic import BaseModel

import ipygenui as gu
from ipygenui.components.builtins import TableComponent
from ipygenui.components.live import ComponentHost, ComponentOutput, LiveRender
from ipygenui.components.python_component import partial_props, to_mimebundle
from ipygenui.testing import ScriptedCall, ScriptedModel


class SeriesProps(BaseModel):
    title: str
    values: list[float]


seen: list[SeriesProps] = []


@gu.component(description="A text summary of a series")
def Summary(props: SeriesProps) -> str:
    seen.append(props)
    return f"**{props.title}**: {len(props.values)} values"


async def drain() -> None:
    for _ in range(50):  # let render tasks and worker threads finish
        await asyncio.sleep(0.01)


def test_decorator_builds_a_python_component() -> None:
    assert Summary.kind == "python" and Summary.name == "Summary"
    assert Summary.props is SeriesProps and Summary.description == "A text summary of a series"
    assert Summary.spec() == {"name": "Summary", "kind": "python"}
    assert Summary(SeriesProps(title="t", values=[1])) == "**t**: 1 values"
    with pytest.raises(TypeError, match="pydantic model"):

        @gu.component
        def Bad(props: dict) -> str:  # type: ignore[type-arg]
            return ""


def test_partial_props_keep_what_arrived() -> None:
    props = partial_props(SeriesProps, {"title": "Sal"})
    assert props.title == "Sal"
    assert not hasattr(props, "values")  # not arrived: unset, not invented
    assert partial_props(SeriesProps, {"title": "a", "values": [1]}) == SeriesProps(
        title="a", values=[1]
    )


def test_mimebundles_for_common_outputs() -> None:
    assert to_mimebundle("# hi")["text/markdown"] == "# hi"
    frame = pd.DataFrame({"a": [1, 2]})
    assert "<table" in to_mimebundle(frame)["text/html"]
    assert to_mimebundle(None) == {}
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    png = base64.b64decode(to_mimebundle(fig)["image/png"])
    assert png.startswith(b"\x89PNG")
    assert not plt.get_fignums()  # closed: the inline backend will not show it again


async def test_live_render_throttles_skips_unchanged_and_ends_with_final_props() -> None:
    outputs: list[ComponentOutput] = []
    live = LiveRender(Summary, "c1", outputs.append, min_interval=60)
    args: dict = {"title": "S"}
    for i in range(20):  # many chunks arrive while the first render runs
        args["values"] = list(range(i))
        live.push(args)
    await drain()
    partial = [o for o in outputs if not o.final]
    assert len(partial) == 1  # throttled: the next partial waits for min_interval
    live.finish(SeriesProps(title="S", values=[1, 2, 3]))
    await drain()
    assert outputs[-1].final and outputs[-1].bundle == {
        "text/markdown": "**S**: 3 values",
        "text/plain": "**S**: 3 values",
    }
    assert live.done


async def test_live_render_skips_props_that_did_not_change() -> None:
    outputs: list[ComponentOutput] = []
    live = LiveRender(Summary, "c1", outputs.append, min_interval=0)
    live.push({"title": "A", "values": [1]})
    await drain()
    live.push({"title": "A", "values": [1]})
    await drain()
    assert len(outputs) == 1
    live.push({"title": "A", "values": [1, 2]})
    await drain()
    assert len(outputs) == 2 and outputs[1].seq > outputs[0].seq


@gu.component
def Exploding(props: SeriesProps) -> str:
    """Fails once all values are in."""
    if len(props.values) >= 2:
        raise ZeroDivisionError("boom")
    return "ok"


async def test_a_failing_final_render_is_an_error_output_not_a_crash() -> None:
    outputs: list[ComponentOutput] = []
    live = LiveRender(Exploding, "c1", outputs.append, min_interval=0)
    live.push({"title": "x", "values": [1, 2]})  # a partial failure is just skipped
    await drain()
    assert outputs == []
    live.finish(SeriesProps(title="x", values=[1, 2]))
    await drain()
    assert outputs[-1].final and outputs[-1].error == "Exploding failed: ZeroDivisionError: boom"


async def test_host_renders_a_python_component_through_a_run() -> None:
    model = ScriptedModel(
        [
            ScriptedCall(
                "show_component_Summary", {"title": "Sales", "values": [1, 2, 3, 4]}, id="c1"
            ),
            ScriptedCall("show_component_Summary", {"title": "Bad", "values": "x"}, id="c2"),
            "done",
        ],
        chunk_size=3,
    )
    rt = gu.Runtime(model=model, components=[Summary])
    outputs: list[ComponentOutput] = []
    host = ComponentHost(rt.components, lambda: rt.thread, outputs.append, min_interval=0)
    rt.subscribe(host.handle)
    await rt.send("chart")
    await drain()
    final = host.outputs["c1"]
    assert final.final and final.bundle is not None
    assert final.bundle["text/markdown"] == "**Sales**: 4 values"
    assert sum(1 for o in outputs if o.tool_call_id == "c1" and o.final) == 1
    bad = host.outputs["c2"]
    assert bad.final and bad.error is not None and "values" in bad.error


async def test_host_resolves_a_dataframe_table_in_the_kernel() -> None:
    frame = pd.DataFrame({"city": ["Oslo", "Lima"], "temp": [3, 19]})
    table = TableComponent(namespace={"weather": frame})
    model = ScriptedModel([ScriptedCall("show_component_Table", {"dataframe": "weather"}), "ok"])
    rt = gu.Runtime(model=model, components=[table])
    outputs: list[ComponentOutput] = []
    host = ComponentHost(rt.components, lambda: rt.thread, outputs.append)
    rt.subscribe(host.handle)
    await rt.send("show weather")
    assert len(outputs) == 1
    assert outputs[0].props is not None
    assert outputs[0].props["rows"] == [{"city": "Oslo", "temp": 3}, {"city": "Lima", "temp": 19}]
    # the model saw a confirmation, never the rows
    assert "Oslo" not in str(model.requests[-1].messages)


def test_host_ignores_components_that_need_no_kernel() -> None:
    host = ComponentHost([gu.Markdown, gu.Metric], lambda: gu.Thread(), lambda o: None)
    assert not host.active
    # a Chart may plot data by reference: the kernel resolves it
    assert ComponentHost([gu.Chart], lambda: gu.Thread(), lambda o: None).active
