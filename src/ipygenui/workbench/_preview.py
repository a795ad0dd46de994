"""Sample props for a component preview, and the error the model would get.

Samples come in this order: the props model's own ``examples`` (its JSON
schema's, or the hand-written ones of a built-in), props from the model's
defaults with the required fields generated, props generated at random
(``polyfactory``, seeded, so a preview is the same each time), then edge
cases made from the first valid sample: every list empty, every string
long, every optional field left out. An edge case that fails validation is
kept with its error: that is what the model would be told.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..components.component import Component
from ..data import data_ref_fields
from ..tools import Tool, ToolArgumentsError
from ._examples import BUILTIN_EXAMPLES

__all__ = ["Sample", "check_props", "samples_for"]

GENERATION_TRIES = 30
"""Seeds tried for a random sample before giving up on one that validates."""

LONG_STRING_CHARS = 400
"""Length of each string in the "long strings" edge case."""

_LONG_WORDS = "a long value that keeps going "


@dataclass(frozen=True)
class Sample:
    """One set of props to preview: where it came from, and its validation error."""

    label: str
    props: dict[str, Any]
    error: str | None = None
    """What the runtime would answer the model (``None``: the props are valid)."""

    def as_json(self) -> dict[str, Any]:
        return {"label": self.label, "props": self.props, "error": self.error}


_TOOLS: weakref.WeakKeyDictionary[Component, Tool] = weakref.WeakKeyDictionary()
"""Each component's tool, made once (making one builds its JSON schema)."""


def check_props(component: Component, props: Any) -> str | None:
    """The error the model would get for ``props`` (the runtime's own text), or None."""
    tool = _TOOLS.get(component)
    if tool is None:
        tool = _TOOLS[component] = component.as_tool()
    try:
        tool.validate(props)
    except ToolArgumentsError as exc:
        return str(exc)
    return None


def _model_examples(model: type[BaseModel]) -> list[dict[str, Any]]:
    examples = model.model_json_schema().get("examples") or []
    return [dict(e) for e in examples if isinstance(e, Mapping)]


def _factory(model: type[BaseModel], *, use_defaults: bool) -> Any:
    try:  # an optional dependency: the workbench extra
        factories = importlib.import_module("polyfactory.factories.pydantic_factory")
    except ImportError:
        return None
    return factories.ModelFactory.create_factory(
        model, __use_defaults__=use_defaults, __allow_none_optionals__=not use_defaults
    )


def _generated(component: Component, *, use_defaults: bool) -> dict[str, Any] | None:
    """The first seeded build of the props model that validates, or None."""
    factory = _factory(component.props, use_defaults=use_defaults)
    if factory is None:
        return None
    refs = data_ref_fields(component.props)  # a preview has no conversation data to name
    for seed in range(GENERATION_TRIES):
        factory.seed_random(seed)
        try:
            built = factory.build(factory_use_construct=True)
        except Exception:  # a model polyfactory cannot build (a custom type): no sample
            return None
        props = built.model_dump(mode="json", exclude_unset=False)
        for name in refs:
            props[name] = None
        if check_props(component, props) is None:
            return props
    return None


def _lengthen(value: Any) -> Any:
    if isinstance(value, str):
        return (_LONG_WORDS * (LONG_STRING_CHARS // len(_LONG_WORDS) + 1))[:LONG_STRING_CHARS]
    if isinstance(value, list):
        return [_lengthen(v) for v in value]
    if isinstance(value, dict):
        return {k: _lengthen(v) for k, v in value.items()}
    return value


def _edge_cases(component: Component, base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    fields = component.props.model_fields
    cases: list[tuple[str, dict[str, Any]]] = []
    lists = [k for k, v in base.items() if isinstance(v, list) and v]
    if lists:
        cases.append(("empty lists", {**base, **{k: [] for k in lists}}))
    if any(isinstance(v, str | list | dict) for v in base.values()):
        long = {k: v if k in ("kind", "type") else _lengthen(v) for k, v in base.items()}
        # a string a Literal or a URL rule constrains stays as it was
        long = {
            k: v if check_props(component, {**base, k: v}) is None else base[k]
            for k, v in long.items()
        }
        cases.append(("long strings", long))
    optional = [k for k in base if k in fields and not fields[k].is_required()]
    if optional:
        cases.append(
            ("missing optional fields", {k: v for k, v in base.items() if k not in optional})
        )
    return cases


def samples_for(component: Component) -> list[Sample]:
    """The samples a workbench previews for ``component`` (see the module doc)."""
    found: list[tuple[str, dict[str, Any]]] = []
    examples = _model_examples(component.props)
    if not examples and component.builtin is not None:
        examples = BUILTIN_EXAMPLES.get(component.builtin, [])
    found += [
        (f"example {i + 1}" if len(examples) > 1 else "example", e) for i, e in enumerate(examples)
    ]
    for label, use_defaults in (("defaults", True), ("generated", False)):
        props = _generated(component, use_defaults=use_defaults)
        if props is not None and all(props != p for _, p in found):
            found.append((label, props))
    samples = [Sample(label, props, check_props(component, props)) for label, props in found]
    base = next((s.props for s in samples if s.error is None), None)
    if base is not None:
        samples += [
            Sample(label, props, check_props(component, props))
            for label, props in _edge_cases(component, base)
        ]
    return samples
