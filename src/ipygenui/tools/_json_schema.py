"""Validation of tool arguments against a raw JSON schema (a tool server's own).

``jsonschema`` does it when installed (it comes with the ``mcp`` extra);
without it only the basics are checked: an object, its required keys, and the
JSON type of each declared property. The tool's server validates again.

A schema is untrusted (an MCP server writes it) and it is checked on the
kernel's event loop, so two things it could do are taken away:

- Fetching: a ``$ref`` resolves only inside the schema itself (and the JSON
  Schema specifications jsonschema ships); any other is never retrieved, and a
  call whose arguments reach it gets the problem as its error.
- Backtracking: ``pattern`` and ``patternProperties`` run on RE2
  (``google-re2``, in the ``mcp`` extra), whose matching time is linear in the
  text, so a pattern like ``^(a+)+$`` cannot freeze the loop. A pattern RE2
  cannot run (backreferences, lookaround) makes the schema unusable rather
  than falling back to Python's backtracking ``re``; so does a schema with
  patterns when ``google-re2`` is missing, and one combining
  ``unevaluatedProperties`` with ``patternProperties`` (jsonschema matches
  those with ``re``, out of reach of a keyword override).

Whatever fails while checking (a ``$ref`` that does not resolve, a schema
that recurses forever) is a problem in the list, never an exception.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._internal.install_hint import install_hint

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

_DATA_KEYWORDS = frozenset({"const", "default", "enum", "examples"})
"""Keywords whose values are data, not schemas: no patterns in there."""


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
    _check_patterns(schema)
    validator = _safe_class(validator_class)(schema, registry=_local_registry())

    def check(args: Mapping[str, Any]) -> list[str]:
        try:
            errors = sorted(validator.iter_errors(dict(args)), key=lambda e: list(e.absolute_path))
        except Exception as exc:  # the schema failed, not the arguments: the model reads why
            return [f"(schema): the tool's schema cannot be checked: {_failure(exc)}"]
        return [f"{_where(e.absolute_path)}: {e.message}" for e in errors]

    return check


def _where(path: Any) -> str:
    return ".".join(str(p) for p in path) or "(arguments)"


def _failure(exc: Exception) -> str:
    from referencing.exceptions import Unresolvable

    if isinstance(exc, Unresolvable):
        return (
            f"its $ref {exc.ref!r} does not resolve inside the schema "
            "(references to other documents are never fetched)"
        )
    if isinstance(exc, RecursionError):
        return "its references loop forever"
    return f"{type(exc).__name__}: {exc}"


# --- no remote references -------------------------------------------------------------


def _local_registry() -> Any:
    """A registry that retrieves nothing: a ``$ref`` elsewhere is unresolvable."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class

    return Registry(retrieve=refuse)  # type: ignore[call-arg]  # an attrs class


# --- patterns on RE2 ------------------------------------------------------------------


class _UnsafePattern(Exception):
    """A pattern RE2 cannot run: it is not checked with a backtracking engine instead."""


def _schema_nodes(node: Any) -> Iterator[Mapping[str, Any]]:
    """Every object in a schema that may be a (sub)schema, data keywords left out."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            yield item
            stack.extend(v for k, v in item.items() if k not in _DATA_KEYWORDS)
        elif isinstance(item, list):
            stack.extend(item)


def _check_patterns(schema: Mapping[str, Any]) -> None:
    """Refuse a schema whose patterns cannot be matched in linear time."""
    patterns: list[str] = []
    unevaluated = pattern_properties = False
    for node in _schema_nodes(schema):
        if isinstance(node.get("pattern"), str):
            patterns.append(node["pattern"])
        if isinstance(node.get("patternProperties"), Mapping):
            pattern_properties = True
            patterns.extend(k for k in node["patternProperties"] if isinstance(k, str))
        unevaluated = unevaluated or "unevaluatedProperties" in node
    if not patterns:
        return
    if unevaluated and pattern_properties:
        raise SchemaProblem(
            "it combines unevaluatedProperties with patternProperties, which cannot be "
            "checked without a backtracking regex engine"
        )
    try:
        import re2  # noqa: F401
    except ImportError:
        raise SchemaProblem(
            "its patterns are checked only with google-re2 (a regex engine that cannot "
            f"be made to hang): {install_hint('mcp')}"
        ) from None
    for pattern in patterns:
        try:
            _linear(pattern)
        except _UnsafePattern as exc:
            raise SchemaProblem(str(exc)) from None


@functools.lru_cache(maxsize=1024)
def _linear(pattern: str) -> Any:
    """``pattern`` compiled by RE2; ``_UnsafePattern`` when RE2 cannot run it."""
    import re2

    options = re2.Options()
    options.log_errors = False  # the error is ours to report, not stderr's
    options.never_capture = True
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        why = exc.args[0] if exc.args else str(exc)
        if isinstance(why, bytes):  # the binding's messages are bytes
            why = why.decode(errors="replace")
        raise _UnsafePattern(
            f"its pattern {pattern[:200]!r} cannot run on a linear-time regex engine "
            f"({why}; backreferences and lookaround are not supported)"
        ) from None


def _search(pattern: str, text: str) -> bool:
    return _linear(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(base: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """jsonschema's ``additionalProperties``, its ``patternProperties`` matched by RE2."""

    def additional(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        patterns = schema.get("patternProperties")
        if not patterns or not validator.is_type(instance, "object"):
            yield from base(validator, allowed, instance, schema)  # no regex involved
            return
        properties = schema.get("properties", {})
        extras = [
            key
            for key in instance
            if key not in properties and not any(_search(p, key) for p in patterns)
        ]
        if validator.is_type(allowed, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], allowed, path=extra)
        elif not allowed and extras:
            names = ", ".join(repr(extra) for extra in sorted(extras))
            regexes = ", ".join(repr(p) for p in sorted(patterns))
            verb = "does" if len(extras) == 1 else "do"
            yield ValidationError(f"{names} {verb} not match any of the regexes: {regexes}")

    return additional


@functools.cache
def _safe_class(base: Any) -> Any:
    """``base`` (a jsonschema validator class) with its regex keywords on RE2."""
    from jsonschema import validators

    keywords: dict[str, Callable[..., Iterator[Any]]] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties(base.VALIDATORS["additionalProperties"]),
    }
    return validators.extend(base, {k: v for k, v in keywords.items() if k in base.VALIDATORS})


# --- without jsonschema ---------------------------------------------------------------


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
