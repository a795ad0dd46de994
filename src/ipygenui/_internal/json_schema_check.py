"""Validation of tool arguments against a raw JSON schema (a tool server's own).

``jsonschema`` does it when installed (it comes with the ``mcp`` extra);
without it only the basics are checked: an object, its required keys, and the
JSON type of each declared property. The tool's server validates again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["SchemaProblem", "schema_checker"]

Checker = Callable[[Mapping[str, Any]], list[str]]
"""Arguments in, one text per problem out (empty: valid)."""


class SchemaProblem(ValueError):
    """The schema itself is unusable (not JSON, not an object schema, invalid)."""


_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_checker(schema: Mapping[str, Any]) -> Checker:
    """A checker for ``schema``; ``SchemaProblem`` when the schema is unusable."""
    try:
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SchemaProblem(f"not JSON ({exc})") from None
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise SchemaProblem("an arguments schema must describe an object")
    try:
        from jsonschema import validators
    except ImportError:
        return _basic_checker(dict(schema))
    validator_class = validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except Exception as exc:  # jsonschema's SchemaError: say what is wrong, briefly
        raise SchemaProblem(f"invalid JSON schema: {getattr(exc, 'message', exc)}") from None
    validator = validator_class(schema)

    def check(args: Mapping[str, Any]) -> list[str]:
        errors = sorted(validator.iter_errors(dict(args)), key=lambda e: list(e.absolute_path))
        return [f"{_where(e.absolute_path)}: {e.message}" for e in errors]

    return check


def _where(path: Any) -> str:
    return ".".join(str(p) for p in path) or "(arguments)"


def _basic_checker(schema: dict[str, Any]) -> Checker:
    properties = schema.get("properties") or {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]

    def check(args: Mapping[str, Any]) -> list[str]:
        problems = [f"{name}: Field required" for name in required if name not in args]
        for name, value in args.items():
            spec = properties.get(name)
            kind = spec.get("type") if isinstance(spec, dict) else None
            kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
            known = [k for k in kinds if k in _JSON_TYPES]
            if known and not any(_JSON_TYPES[k](value) for k in known):
                problems.append(f"{name}: {value!r} is not of type {' or '.join(known)}")
        if schema.get("additionalProperties") is False:
            problems += [f"{n}: unexpected argument" for n in args if n not in properties]
        return problems

    return check
