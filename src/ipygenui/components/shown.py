"""The components a thread has shown, read back as typed Python objects.

A component shown by ``show_component_<Name>`` is identified by its call's id;
later successful ``update_component_<id>`` calls change some of its props
(the naming rules are in ``tools/component_names.py``). Effective props = the first
call's props, then each update's props in order. This is the only place
they are merged: the widget sends the browser those of updated components
(:func:`updated_props`, the ``component_props`` trait) and it renders them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pydantic
from pydantic import BaseModel

from ..data import data_ref_fields
from ..messages import Message, Thread, ToolCallPart
from ..tools.component_names import component_id_of, component_name_of, update_of
from .component import Component

__all__ = ["ShownComponent", "effective_props", "shown_components", "updated_props"]


@dataclass(frozen=True)
class ShownComponent:
    """A component the agent showed, with props validated against its model.

    ``props`` is the props model instance (None when the final props did not
    validate: then ``error`` says why); ``state`` the user's state as a state
    model instance (or None when the user has not changed it).
    """

    name: str
    id: str
    tool_call_id: str
    message_id: str
    props: BaseModel | None
    state: BaseModel | None
    raw_props: dict[str, Any]
    error: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    """Props that reference data (``DataRef`` fields, e.g. Table's ``data``):
    field name -> the object the reference names in the conversation."""


def _ui_calls(thread: Thread | Iterable[Message]) -> Iterator[tuple[Message, ToolCallPart]]:
    messages = thread.messages if isinstance(thread, Thread) else thread
    for message in messages:
        for part in message.tool_calls:
            yield message, part


def _merged(thread: Thread | Iterable[Message]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    props: dict[str, dict[str, Any]] = {}
    updated: set[str] = set()
    for _message, part in _ui_calls(thread):
        if component_name_of(part.tool_name) is not None:
            component_id = component_id_of(part.tool_call_id)
            props[component_id] = dict(part.args)
            updated.discard(component_id)
            continue
        target_id = update_of(part.tool_name)
        if target_id in props and part.has_result and not part.is_error:
            props[target_id].update(part.args)
            updated.add(target_id)
    return props, updated


def effective_props(thread: Thread | Iterable[Message]) -> dict[str, dict[str, Any]]:
    """Component id -> its current props (first call merged with successful updates)."""
    return _merged(thread)[0]


def updated_props(thread: Thread | Iterable[Message]) -> dict[str, dict[str, Any]]:
    """Component id -> its effective props, for the components a successful
    update changed; any other component's props are its call's own arguments
    (which the browser parses as they stream)."""
    props, updated = _merged(thread)
    return {component_id: props[component_id] for component_id in updated}


def _referenced(props: BaseModel | None, data: Mapping[str, Any] | None) -> dict[str, Any]:
    if props is None or data is None:
        return {}
    found: dict[str, Any] = {}
    for name in data_ref_fields(type(props)):
        ref = getattr(props, name, None)
        if isinstance(ref, str) and ref in data:
            found[name] = data[ref]
    return found


def _as_map(components: Any) -> dict[str, Component]:
    if isinstance(components, Mapping):
        return dict(components)
    listed = getattr(components, "components", None)  # a Registry
    items = listed() if callable(listed) else components
    return {c.name: c for c in items if isinstance(c, Component)}


def shown_components(
    thread: Thread | Iterable[Message],
    components: Any,
    *,
    include_failed: bool = False,
    data: Mapping[str, Any] | None = None,
) -> list[ShownComponent]:
    """Components shown so far, oldest first, resolved against ``components``
    (a list, a name -> component mapping, or a ``Registry``).

    Calls whose arguments are still streaming are left out, and so are calls
    that failed validation unless ``include_failed``. ``data``: the
    conversation's data store; each shown component's ``data`` maps its
    reference fields to the objects they name there.
    """
    registry = _as_map(components)
    messages = list(thread.messages if isinstance(thread, Thread) else thread)
    current = effective_props(messages)
    out: list[ShownComponent] = []
    for message, part in _ui_calls(messages):
        name = component_name_of(part.tool_name)
        if name is None or not part.args_complete:
            continue
        component_id = component_id_of(part.tool_call_id)
        raw = current.get(component_id, dict(part.args))
        spec = registry.get(name)
        props: BaseModel | None = None
        state: BaseModel | None = None
        error: str | None = None
        if spec is None:
            error = f"component {name!r} is not registered"
        else:
            try:
                props = spec.props.model_validate(raw)
            except pydantic.ValidationError as exc:
                error = str(exc)
            if spec.state is not None and part.component_state is not None:
                try:
                    state = spec.state.model_validate(part.component_state)
                except pydantic.ValidationError as exc:
                    error = error or str(exc)
        if part.is_error and error is None:
            error = str(part.result)
        if error is not None and not include_failed:
            continue
        out.append(
            ShownComponent(
                name=name,
                id=component_id,
                tool_call_id=part.tool_call_id,
                message_id=message.id,
                props=props,
                state=state,
                raw_props=raw,
                error=error,
                data=_referenced(props, data),
            )
        )
    return out
