"""``Component``: a UI component the model can show by calling a tool.

A component has a name, a pydantic model of its props, a description the
model reads, and a renderer: JavaScript (``esm``, from the Python side only,
never from the model), a built-in module of the widget bundle, or a Python
function (see ``python_component.py``). An optional ``state`` model makes it
interactable: the user's edits become its state, which the model reads.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pydantic
from pydantic import BaseModel

from ..data import (
    UnknownReference,
    as_frame,
    current_data,
    data_ref_fields,
    is_array,
    is_series,
    is_tabular,
    table_rows,
)
from ..tools import Tool, ToolArgumentsError, to_jsonable
from ..tools.component_names import props_json_schema, ui_tool_name, ui_tool_schema

if TYPE_CHECKING:
    from ..messages import Thread

__all__ = ["Component", "ComponentKind", "ComponentTool", "format_errors", "load_esm"]

ComponentKind = Literal["js", "builtin", "python"]


MAX_REF_ROWS = 1000
"""Rows of a referenced table a component (other than Table) receives."""


def ref_data(obj: Any) -> Any:
    """The data a ``DataRef`` prop stands for, as JSON for the browser."""
    if is_tabular(obj) or is_series(obj) or is_array(obj):
        frame = as_frame(obj)
        columns, rows = table_rows(frame, slice(0, MAX_REF_ROWS))
        return {"columns": columns, "rows": rows, "total_rows": len(frame)}
    return to_jsonable(obj)


def check_refs(props: BaseModel) -> None:
    """Every ``DataRef`` in ``props`` names data of the conversation (``ValueError`` if not)."""
    store = current_data()
    for name in data_ref_fields(type(props)):
        ref = getattr(props, name, None)
        if not isinstance(ref, str):
            continue
        if store is None:
            raise ValueError(f"{name}: no data can be referenced here ({ref!r})")
        if ref not in store:
            raise ValueError(f"{name}: {UnknownReference(ref, store.names())}")


def format_errors(exc: pydantic.ValidationError) -> str:
    """``field.path: message`` for each problem, joined with ``; ``."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(props)'}: {err['msg']}" for err in exc.errors()
    )


def load_esm(esm: str | Path) -> str:
    """JavaScript source from source text or a ``.js`` / ``.mjs`` file path."""
    if isinstance(esm, Path):
        return esm.read_text(encoding="utf-8")
    if not isinstance(esm, str):
        raise TypeError(f"esm must be JavaScript source or a path, got {type(esm).__name__}")
    looks_like_path = "\n" not in esm and esm.strip().endswith((".js", ".mjs"))
    if looks_like_path and "export" not in esm:
        path = Path(esm.strip()).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"esm file not found: {path}")
        return path.read_text(encoding="utf-8")
    if "export" not in esm or "render" not in esm:
        raise ValueError(
            "esm must be an ES module that exports render({ props, status, el, state, setState })"
        )
    return esm


def _model_class(value: Any, what: str) -> type[BaseModel]:
    if isinstance(value, type) and issubclass(value, BaseModel):
        return value
    raise TypeError(f"{what} must be a pydantic BaseModel subclass, got {value!r}")


class Component:
    """A component the model shows by calling its ``show_component_<name>`` tool.

    Args:
        name: letters, digits, ``_`` and ``-`` (it becomes part of a tool name).
        props: pydantic model of the props; its JSON schema is the tool's
            parameters, and the final props are validated against it.
        description: when to use the component (the model reads it).
        esm: JavaScript source, or a path to a ``.js`` file, exporting
            ``render({ props, status, el, state, setState })`` and optionally
            ``update(...)`` (same argument) for cheap re-renders while props stream.
        state: pydantic model of the user-editable state; makes the component
            interactable (its state reaches the model on the next turn).
        builtin: id of a module shipped in the widget bundle (built-ins only).
    """

    kind: ComponentKind = "js"

    def __init__(
        self,
        name: str,
        props: type[BaseModel],
        *,
        description: str = "",
        esm: str | Path | None = None,
        state: type[BaseModel] | None = None,
        builtin: str | None = None,
    ) -> None:
        ui_tool_name(name)  # raises ValueError for a name no tool may have
        self.name = name
        self.props = _model_class(props, "props")
        if builtin is None:  # the built-ins' schemas are checked by their tests
            props_json_schema(self.props)  # an object schema, or a clear error now
        self.description = description
        self.state = _model_class(state, "state") if state is not None else None
        self.builtin = builtin
        self.esm: str | None = None
        if type(self) is Component or esm is not None or builtin is not None:
            if (esm is None) == (builtin is None):
                raise ValueError(f"component {name!r} needs exactly one of esm= or builtin=")
            if esm is not None:
                self.esm = load_esm(esm)
            self.kind = "js" if esm is not None else "builtin"

    def __repr__(self) -> str:
        extra = " interactable" if self.state is not None else ""
        return f"<Component {self.name} ({self.kind}){extra}>"

    @property
    def tool_name(self) -> str:
        """``show_component_<name>``."""
        return ui_tool_name(self.name)

    @property
    def interactable(self) -> bool:
        return self.state is not None

    def tool_schema(self) -> dict[str, Any]:
        """The OpenAI tool schema (without standard parameters)."""
        return ui_tool_schema(self.name, self.props, self.description)

    def validate_props(self, props: Mapping[str, Any]) -> BaseModel:
        """Validate final props; raise ``ToolArgumentsError`` naming each failing field."""
        if not isinstance(props, Mapping):
            raise ToolArgumentsError(f"props for {self.name} must be a JSON object")
        try:
            return self.props.model_validate(dict(props))
        except pydantic.ValidationError as exc:
            raise ToolArgumentsError(
                f"invalid props for component {self.name}: {format_errors(exc)}. "
                f"Fix these fields and call {self.tool_name} again."
            ) from None

    def validate_state(self, state: Any) -> dict[str, Any]:
        """Validate a state sent by the frontend; return it as JSON data."""
        if self.state is None:
            raise ValueError(f"component {self.name} is not interactable (it has no state model)")
        if not isinstance(state, Mapping):
            raise ValueError(f"state for {self.name} must be a JSON object")
        try:
            return self.state.model_validate(dict(state)).model_dump(mode="json")
        except pydantic.ValidationError as exc:
            raise ValueError(
                f"invalid state for component {self.name}: {format_errors(exc)}"
            ) from None

    def check(self, props: BaseModel) -> None:
        """Kernel-side checks beyond the props model (raise ``ValueError`` to fail the call)."""

    def check_in_thread(self, props: BaseModel, thread: Thread) -> None:
        """Checks of validated ``props`` against the thread the call is made in
        (raise ``ToolArgumentsError`` to fail the call); by default none."""

    def resolve(self, props: BaseModel) -> dict[str, Any] | None:
        """Extra props computed in the kernel (data the model never sees), or None.

        By default each ``DataRef`` field's reference becomes its data: a
        table's ``columns`` and ``rows`` (the first ``MAX_REF_ROWS``, with
        ``total_rows``), anything else its JSON form.
        """
        fields = data_ref_fields(type(props))
        if not fields:
            return None
        store = current_data()
        resolved: dict[str, Any] = {}
        for name in fields:
            ref = getattr(props, name, None)
            if isinstance(ref, str) and store is not None:
                resolved[name] = ref_data(store[ref])
        return resolved or None

    def spec(self) -> dict[str, Any]:
        """What the frontend needs to render it (sent once per widget)."""
        spec: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.esm is not None:
            spec["esm"] = self.esm
        if self.builtin is not None:
            spec["builtin"] = self.builtin
        if self.state is not None:
            spec["state_schema"] = self.state.model_json_schema()
        return spec

    def as_tool(self) -> ComponentTool:
        """The UI tool the model calls to show this component."""
        return ComponentTool(self)


class ComponentTool(Tool):
    """A component's ``show_component_<Name>`` tool.

    Running it validates the final props (a failure names the field, so the
    model can call again), runs the component's kernel-side checks, and
    answers "Component <Name> was rendered".
    """

    def __init__(self, component: Component) -> None:
        super().__init__(
            component.tool_name,
            component.tool_schema()["function"]["description"],
            component.props,
            self._execute,
            component=component.name,
            pass_model=True,
        )
        self.spec = component
        self.parameters_schema = props_json_schema(component.props)

    thread: Thread | None = None
    """The thread a step's copy runs in (``in_thread``), for ``check_in_thread``."""

    def in_thread(self, thread: Thread) -> ComponentTool:
        """This tool for one step of ``thread``: its component's
        ``check_in_thread`` sees the thread (the tool itself when it has none)."""
        if type(self.spec).check_in_thread is Component.check_in_thread:
            return self
        bound = copy.copy(self)
        bound.thread = thread
        return bound

    def validate(self, args: Mapping[str, Any]) -> BaseModel:
        props = self.spec.validate_props(args)
        if self.thread is not None:
            self.spec.check_in_thread(props, self.thread)
        return props

    async def _execute(self, props: BaseModel) -> str:
        try:
            check_refs(props)
            self.spec.check(props)
        except ValueError as exc:
            raise ToolArgumentsError(
                f"invalid props for component {self.spec.name}: {exc}. "
                f"Fix this and call {self.name} again."
            ) from None
        return f"Component {self.spec.name} was rendered"
