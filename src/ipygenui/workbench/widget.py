"""``gu.Workbench``: a registry's components previewed and replayed without a model.

It lists each component (description, props schema, samples from
``_preview.py``) and each tool (description, schema). The browser renders a
preview with the chat's own component slot (``js/src/components/slot.js``),
so it looks as it would in a chat; edits of the props come back here to be
validated as the runtime would, and a replay's partial states come from the
kernel's parser (``_replay.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import anywidget
from traitlets import Dict, List

from .._internal.browser_writes import ignore_browser_writes, ignore_browser_writes_of
from .._internal.json_depth import json_depth
from ..components.component import Component
from ..components.live import ComponentOutput
from ..components.python_component import PythonComponent, partial_props
from ..tools import Tool, as_tool
from ..tools.component_names import props_json_schema
from ..widget.static_files import STATIC
from ._preview import check_props, samples_for
from ._protocol import (
    CheckPropsMsg,
    ReplayMsg,
    props_checked_message,
    read_request,
    replay_states_message,
)
from ._replay import chunk_text, replay_states
from .cost import registry_cost

__all__ = ["MAX_PROPS_DEPTH", "Workbench"]


MAX_PROPS_DEPTH = 64
"""Props nesting arrays and objects deeper than this are refused before they
are parsed (a clear error, never a RecursionError); a component's props need
a few levels."""


def _parse(text: str) -> tuple[Any, str | None]:
    if json_depth(text) > MAX_PROPS_DEPTH:
        return None, (
            f"the props are refused: nested more than {MAX_PROPS_DEPTH} levels deep "
            f"(limit {MAX_PROPS_DEPTH})"
        )
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"the props are not JSON: {exc}"


PREVIEW_CALL = "wb-preview-{}"
"""The tool-call id a component's preview stands for (``js/src/workbench/index.js``)."""


def _cost_view(components: Iterable[Component], tools: list[Tool], model: Any) -> dict[str, Any]:
    rows = registry_cost(components, tools, model)
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    keep = ("kind", "tokens", "chars", "estimated", "tokenizer")
    return {
        "entries": {
            r["name"]: {k: r[k] for k in keep} for r in records if r["kind"] != "system prompt"
        },
        "total": dict(registry_cost(components, tools, model, total=True)),
    }


def _evaluation_view(result: Any) -> dict[str, Any]:
    records = result.to_dict("records") if hasattr(result, "to_dict") else list(result)
    columns = [
        c
        for c in (
            "prompt",
            "expected",
            "called",
            "valid",
            "correct",
            "input_tokens",
            "output_tokens",
            "seconds",
        )
        if any(c in r for r in records)
    ]
    rows = [{c: _cell(r.get(c)) for c in columns} for r in records]
    counts: dict[str, int] = {}
    for r in records:
        counts[str(r.get("called"))] = counts.get(str(r.get("called")), 0) + 1
    accuracy = getattr(result, "accuracy", None)
    return {
        "table": {"title": f"{len(rows)} prompts", "columns": columns, "rows": rows},
        "chart": {
            "kind": "bar",
            "title": "Calls per tool or component",
            "x": list(counts),
            "series": [{"name": "prompts", "values": list(counts.values())}],
        },
        "accuracy": accuracy if isinstance(accuracy, float) else None,
    }


def _cell(value: Any) -> Any:
    """A table cell as JSON (pandas' missing values become None)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return None if value != value else round(value, 3)  # NaN is missing
    return str(value)


class Workbench(anywidget.AnyWidget):
    """Preview every component of a registry, and replay how its props stream.

    >>> gu.Workbench(components=[gu.Table, gu.Chart, Weather], tools=[get_weather])

    Samples are generated from each props model (its ``examples`` first; the
    random ones need the ``workbench`` extra, for polyfactory).
    """

    _esm = STATIC / "workbench.js"
    _css = STATIC / "workbench.css"

    component_specs: List[dict[str, Any]] = List().tag(sync=True)
    """What the browser needs to render each component (as a Chat's)."""
    components: List[dict[str, Any]] = List().tag(sync=True)
    """Per component: name, description, props schema and samples."""
    tools: List[dict[str, Any]] = List().tag(sync=True)
    """Per tool: name, description and parameters schema."""
    cost: Dict[str, Any] = Dict().tag(sync=True)
    """What each entry adds to every request: ``{"entries": {name: row}, "total": {...}}``."""
    evaluation: Dict[str, Any] = Dict().tag(sync=True)
    """An evaluation's table and chart props (``show_evaluation``); {} before one."""
    component_outputs = Dict().tag(sync=True)  # read by the chat's component context
    component_props = Dict().tag(sync=True)

    def __init__(
        self,
        components: Iterable[Component] = (),
        tools: Iterable[Tool | Callable[..., Any]] = (),
        model: Any = None,
        **kwargs: Any,
    ) -> None:
        self._components: dict[str, Component] = {}
        for component in components:
            if not isinstance(component, Component):
                raise TypeError(f"not a component: {component!r}")
            self._components[component.name] = component
        tool_list = [as_tool(t) for t in tools]
        super().__init__(
            component_specs=[c.spec() for c in self._components.values()],
            components=[self._entry(c) for c in self._components.values()],
            tools=[
                {"name": t.name, "description": t.description, "schema": t.parameters_schema}
                for t in tool_list
            ],
            cost=_cost_view(self._components.values(), tool_list, model),
            **kwargs,
        )
        ignore_browser_writes_of(self)
        self.on_msg(self._on_msg)

    def show_evaluation(self, result: Any) -> None:
        """Show ``gu.evaluate(...)``'s result: its rows as a table, the calls per
        tool or component as a bar chart, and the accuracy when it has one."""
        self.evaluation = _evaluation_view(result)

    @staticmethod
    def _entry(component: Component) -> dict[str, Any]:
        return {
            "name": component.name,
            "tool_name": component.tool_name,
            "description": component.description,
            "schema": props_json_schema(component.props),
            "samples": [s.as_json() for s in samples_for(component)],
        }

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        request = read_request(content)
        if request is None or request.name not in self._components:
            return  # nothing a workbench asked for: it changes nothing
        self.send(self.answer(request))

    def _render_in_kernel(self, component: PythonComponent, props: dict[str, Any]) -> None:
        """A Python component's preview: its function's output, as a chat's kernel sends it."""
        call = PREVIEW_CALL.format(component.name)
        seq = int(self.component_outputs.get(call, {}).get("seq", 0)) + 1
        bundle, error = None, None
        try:
            bundle = component.render_bundle(partial_props(component.props, props))
        except Exception as exc:  # the user's function failed: the preview says why
            error = f"{component.name} failed: {type(exc).__name__}: {exc}"
        output = ComponentOutput(call, component.name, bundle, error=error, final=True, seq=seq)
        self.component_outputs = {**self.component_outputs, call: output.to_json()}

    def answer(self, request: CheckPropsMsg | ReplayMsg) -> dict[str, Any]:
        """The reply to one browser request (also what the tests call)."""
        component = self._components[request.name]
        props, error = _parse(request.text)
        if isinstance(request, CheckPropsMsg):
            if error is None:
                error = check_props(component, props)
                if isinstance(component, PythonComponent) and isinstance(props, dict):
                    self._render_in_kernel(component, props)
            return props_checked_message(request.ref, request.name, props, error)
        if error is not None:
            return replay_states_message(request.ref, request.name, [], error)
        text = json.dumps(props, ensure_ascii=False)
        states = replay_states(chunk_text(text, request.chunk_chars))
        return replay_states_message(
            request.ref, request.name, [s.as_json() for s in states], check_props(component, props)
        )


ignore_browser_writes(Workbench)  # the registry and its previews are the kernel's
