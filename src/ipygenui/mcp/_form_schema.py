"""An MCP elicitation's ``requestedSchema``, checked, and the user's answer
checked against it, for ``ipygenui.mcp``.

MCP restricts the schema to a flat object of primitive fields: strings
(``minLength`` / ``maxLength``, a ``format`` of email, uri, date, date-time,
an ``enum`` or titled ``oneOf`` choice), numbers and integers (``minimum`` /
``maximum``), booleans, and arrays of enum strings (a multi-select). Anything
else (a nested object, a ``$ref``, a ``pattern``: a server's regex never
runs here) is refused with the reason, before the user is asked.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_FIELDS", "check_content", "check_form_schema"]

MAX_FIELDS = 50
MAX_TEXT = 2_000
"""At most this many fields, and characters of any title, description or choice."""

_COMMON = {"type", "title", "description", "default"}
_KEYS = {
    "string": _COMMON | {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}
_FORMATS = {"email", "uri", "date", "date-time"}


def check_form_schema(schema: Any) -> str | None:
    """Why ``schema`` is no MCP form (None when it is one)."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return "the requested schema must be an object schema ({'type': 'object', ...})"
    extra = set(schema) - {"type", "properties", "required", "$schema", "title", "description"}
    if extra:
        return f"the requested schema has keys a form cannot hold: {', '.join(sorted(extra))}"
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping) or not properties:
        return "the requested schema has no fields (properties)"
    if len(properties) > MAX_FIELDS:
        return f"the requested schema has {len(properties)} fields, over {MAX_FIELDS}"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(name in properties for name in required):
        return "the schema's 'required' must list some of its fields"
    for name, field in properties.items():
        why = _field_problem(field)
        if why is not None:
            return f"field {str(name)[:80]!r}: {why}"
    return None


def _field_problem(field: Any) -> str | None:
    if not isinstance(field, Mapping):
        return "not a schema"
    kind = field.get("type")
    if kind not in _KEYS:
        return f"type {kind!r} is not a primitive (string, number, integer, boolean, enum array)"
    extra = set(field) - _KEYS[kind]
    if extra:
        return f"keys a form field cannot hold: {', '.join(sorted(map(str, extra)))}"
    for key in ("title", "description"):
        if key in field and (not isinstance(field[key], str) or len(field[key]) > MAX_TEXT):
            return f"{key} must be a string of at most {MAX_TEXT:,} characters"
    if kind == "string":
        if field.get("format", "email") not in _FORMATS:
            return f"format {field['format']!r} is not one of {', '.join(sorted(_FORMATS))}"
        if "enum" in field and _choices(field["enum"]) is None:
            return "enum must be a list of strings"
        if "oneOf" in field and _titled(field["oneOf"]) is None:
            return "oneOf must be a list of {'const': str, 'title': str}"
    if kind == "array":
        items = field.get("items")
        if not isinstance(items, Mapping):
            return "a multi-select needs items with an enum or anyOf"
        if "enum" in items:
            ok = items.get("type", "string") == "string" and _choices(items["enum"]) is not None
        else:
            ok = _titled(items.get("anyOf")) is not None
        if not ok or set(items) - {"type", "enum", "anyOf"}:
            return "a multi-select's items must be string choices (enum, or anyOf of const/title)"
    for key in ("minLength", "maxLength", "minItems", "maxItems"):
        if key in field and (isinstance(field[key], bool) or not isinstance(field[key], int)):
            return f"{key} must be an integer"
    for key in ("minimum", "maximum"):
        value = field.get(key, 0)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            return f"{key} must be a finite number"
    return None


def _choices(values: Any) -> list[str] | None:
    ok = isinstance(values, list) and values and all(isinstance(v, str) for v in values)
    return values if ok and all(len(v) <= MAX_TEXT for v in values) else None


def _titled(options: Any) -> list[str] | None:
    if not isinstance(options, list) or not options:
        return None
    if not all(isinstance(o, Mapping) and isinstance(o.get("const"), str) for o in options):
        return None
    return [o["const"] for o in options]


def field_choices(field: Mapping[str, Any]) -> list[str] | None:
    """The values a choice field (or a multi-select's items) allows."""
    source = field.get("items", field) if field.get("type") == "array" else field
    if "enum" in source:
        return list(source["enum"])
    options = source.get("oneOf", source.get("anyOf"))
    return _titled(options) if options is not None else None


def check_content(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` checked against the form ``schema``: raises ``ValueError``
    naming the field and why; returns the fields the schema has."""
    properties: Mapping[str, Any] = schema["properties"]
    unknown = set(content) - set(properties)
    if unknown:
        raise ValueError(f"the form has no field {sorted(unknown)[0]!r}")
    for name in schema.get("required", []):
        if content.get(name) in (None, ""):
            raise ValueError(f"{name!r} is required")
    out: dict[str, Any] = {}
    for name, value in content.items():
        if value is None:
            continue
        why = _value_problem(properties[name], value)
        if why is not None:
            raise ValueError(f"{name!r} {why}")
        out[name] = value
    return out


def _value_problem(field: Mapping[str, Any], value: Any) -> str | None:
    kind = field["type"]
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind in ("number", "integer"):
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or (kind == "integer" and value != int(value)):
            return f"must be {'an integer' if kind == 'integer' else 'a number'}"
        if "minimum" in field and value < field["minimum"]:
            return f"must be at least {field['minimum']}"
        if "maximum" in field and value > field["maximum"]:
            return f"must be at most {field['maximum']}"
        return None
    choices = field_choices(field)
    if kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "must be a list of choices"
        bad = [v for v in value if choices is not None and v not in choices]
        if bad:
            return f"has {bad[0]!r}, not one of its choices"
        if len(value) < field.get("minItems", 0) or len(value) > field.get("maxItems", len(value)):
            return "has too few or too many choices"
        return None
    if not isinstance(value, str):
        return "must be text"
    if choices is not None and value not in choices:
        return f"must be one of {', '.join(choices)}"
    if len(value) < field.get("minLength", 0) or len(value) > field.get("maxLength", len(value)):
        return "is too short or too long"
    return _format_problem(field.get("format"), value)


def _format_problem(fmt: Any, value: str) -> str | None:
    if fmt == "email" and (value.count("@") != 1 or not all(value.split("@"))):
        return "must be an email address"
    if fmt == "uri" and "://" not in value:
        return "must be a URI"
    try:
        if fmt == "date":
            datetime.date.fromisoformat(value)
        elif fmt == "date-time":
            datetime.datetime.fromisoformat(value)
    except ValueError:
        return f"must be a {fmt} (ISO 8601)"
    return None
