"""Patch ops: how a streamed change to a message is told to a view.

The accumulator produces them per model delta, ``MessagePatched`` carries
them, the widget forwards them to the browser in ``frame`` messages, and
``js/src/sync.js`` applies them (``PATCH_OPS`` and ``isPatchOp`` in
``js/src/protocol-wire.generated.js`` are generated from these types by
``make protocol``). Every op targets one part of one message, by index:

- ``append``: add text to a string field (``text``, ``args_text``);
- ``set``: replace a field's value;
- ``add_part``: a new part at index ``part`` (the next free one).

Ops are plain JSON dicts (a TypedDict per kind): they go on the wire as they
are, and building one costs no more than a dict literal. The constructors
are for code off the per-delta path; the accumulator writes literals typed
as these dicts, so the type checker holds them to the same shape.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from typing_extensions import TypedDict  # pydantic reads these (the wire's schema) on 3.11

__all__ = [
    "AddPartOp",
    "AppendOp",
    "PatchOp",
    "SetOp",
    "add_part_op",
    "append_op",
    "set_op",
]

PartIndex = Annotated[int, Field(ge=0)]
"""The part an op targets, by its index in the message."""


class AppendOp(TypedDict):
    op: Literal["append"]
    part: PartIndex
    field: str
    value: str


class SetOp(TypedDict):
    op: Literal["set"]
    part: PartIndex
    field: str
    value: Any
    """Any JSON value."""


class AddPartOp(TypedDict):
    op: Literal["add_part"]
    part: PartIndex
    value: dict[str, Any]
    """The part as JSON (``Part.model_dump(mode="json")``)."""


PatchOp = AppendOp | SetOp | AddPartOp


def append_op(part: int, field: str, value: str) -> AppendOp:
    return {"op": "append", "part": part, "field": field, "value": value}


def set_op(part: int, field: str, value: Any) -> SetOp:
    return {"op": "set", "part": part, "field": field, "value": value}


def add_part_op(part: int, value: dict[str, Any]) -> AddPartOp:
    return {"op": "add_part", "part": part, "value": value}
