"""The shipped A2UI schemas (``schemas/``) compiled into plain Python checks.

Each schema is compiled once (lazily, cached) into closures that answer
"valid or not" in one pass over a message, in time linear in its size, with
the verdict of a JSON Schema 2020-12 validator (``jsonschema``, which
``_validate.py`` imports only to word the errors of a message found invalid).

Only the keywords the shipped files use are known (``KEYWORDS``); any other
makes the compile fail, so a schema update cannot be checked half-way
unnoticed. ``$ref`` resolves among the shipped files alone, by their ``$id``
(relative references against it); nothing is fetched. ``format`` is an
annotation, as it is for ``jsonschema`` without a format checker.

A ``oneOf`` whose branches each pin one property to a distinct string (the
catalog's ``anyComponent`` on ``"component"``, ``anyFunction`` on ``"call"``)
is checked against the one branch the instance names: every other branch
fails on that property, so the verdict is the same as trying them all.
"""

from __future__ import annotations

import functools
import json
import numbers
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

__all__ = [
    "IGNORED",
    "KEYWORDS",
    "SCHEMA_FILES",
    "SchemaCompileError",
    "component_check",
    "load_schema",
    "message_check",
    "schema_check",
]


class _All:
    """Every property name: what a passing ``additionalProperties`` or
    ``unevaluatedProperties`` evaluates."""

    def __contains__(self, name: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "ALL"


ALL = _All()
Evaluated = frozenset[str] | _All
NOTHING: frozenset[str] = frozenset()


Check = Callable[[Any], bool]
Annotated = Callable[[Any], Evaluated | None]
"""A check that also returns, on success, the property names it evaluated
(what ``unevaluatedProperties`` reads); ``None`` when the instance fails."""

SCHEMA_FILES = (
    "v0_9/server_to_client.json",
    "v0_9/common_types.json",
    "v0_9/basic_catalog.json",
    "v0_9/client_to_server.json",
    "v0_8/server_to_client_with_standard_catalog.json",
    "v0_8/client_to_server.json",
)
V09_BASE = "https://a2ui.org/specification/v0_9/"
V09_MESSAGES = V09_BASE + "server_to_client.json"
BASIC_CATALOG = V09_BASE + "catalogs/basic/catalog.json"
V08_MESSAGES = "v0_8/server_to_client_with_standard_catalog.json"
"""The v0.8 file has no ``$id``: it is known by its name here (it has no ``$ref``)."""
CATALOG_ALIAS = V09_BASE + "catalog.json"
"""What ``server_to_client.json`` and ``common_types.json`` call the catalog in
use (``catalog.json#/$defs/anyComponent``): the basic catalog, the one we render."""

KEYWORDS = frozenset(
    {
        "type", "$ref", "properties", "required", "additionalProperties",
        "unevaluatedProperties", "const", "enum", "allOf", "anyOf", "oneOf", "not",
        "if", "then", "items", "minItems", "minimum", "pattern", "minProperties",
        "maxProperties",
    }
)  # fmt: skip
"""The keywords checked: exactly those the shipped files use."""
IGNORED = frozenset(
    {"$schema", "$id", "$defs", "title", "description", "default", "format", "discriminator"}
    | {"catalogId", "components", "functions"}
)
"""Annotations and containers, never checked: ``format`` (an annotation in
2020-12 by default), ``discriminator`` (OpenAPI's, unknown to 2020-12 so
ignored), and the catalog's own fields (its id, and the ``components`` and
``functions`` its ``$ref`` point into, as ``$defs``)."""


class SchemaCompileError(ValueError):
    """A shipped schema uses something this compiler does not check."""


def _union(a: Evaluated, b: Evaluated) -> Evaluated:
    if isinstance(a, _All) or isinstance(b, _All):
        return ALL
    return a | b if b else a


# --- JSON's types and equality, as JSON Schema reads them ---------------------------


def _is_number(x: Any) -> bool:
    return type(x) in (int, float) or (isinstance(x, numbers.Number) and not isinstance(x, bool))


def _is_integer(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())  # 1.0 is one in 2020-12


TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": _is_integer,
}


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``, lists and objects by content."""
    if a is b:
        return True
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, Sequence) and isinstance(b, Sequence):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, Sequence | Mapping) or isinstance(b, Sequence | Mapping):
        return False
    return bool(a == b)


# --- loading and resolving ------------------------------------------------------------


def load_schema(name: str) -> dict[str, Any]:
    """A shipped schema file, parsed afresh (``name`` as in ``SCHEMA_FILES``)."""
    text = resources.files(__package__ or "ipygenui.a2ui").joinpath("schemas", name)
    data: dict[str, Any] = json.loads(text.read_text("utf-8"))
    return data


class _Schemas:
    """The shipped files by URI, and each ``$ref`` resolved to its target."""

    def __init__(self) -> None:
        self.documents: dict[str, Any] = {}
        for name in SCHEMA_FILES:
            document = load_schema(name)
            self.documents[document.get("$id", name)] = document
        self.documents[CATALOG_ALIAS] = self.documents[BASIC_CATALOG]

    def resolve(self, base: str, ref: str) -> tuple[Any, str]:
        """The schema ``ref`` names from a schema in the document ``base``, and its document."""
        uri, fragment = urldefrag(urljoin(base, ref))
        if uri not in self.documents:
            raise SchemaCompileError(f"$ref {ref!r} (from {base}) names no shipped schema")
        target = self.documents[uri]
        if fragment and not fragment.startswith("/"):
            raise SchemaCompileError(f"$ref {ref!r}: only JSON Pointer fragments are supported")
        for step in fragment.split("/")[1:]:
            step = unquote(step).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and step in target:
                target = target[step]
            elif isinstance(target, list) and step.isdigit() and int(step) < len(target):
                target = target[int(step)]
            else:
                raise SchemaCompileError(f"$ref {ref!r} (from {base}) points at nothing")
        return target, uri


# --- the compiler ---------------------------------------------------------------------


class _Compiler:
    """Compiles schemas to checks, each schema object once per mode.

    Two modes: a plain check (valid or not), and an annotated one for the
    schemas beside an ``unevaluatedProperties`` (same location), which also
    returns the property names they evaluated. Most of those evaluate a
    fixed set (``_static_keys``), so even they compile to a plain check.
    """

    def __init__(self, schemas: _Schemas) -> None:
        self.schemas = schemas
        self.checks: dict[int, Check] = {}
        self.annotated_checks: dict[int, Annotated] = {}
        self.statics: dict[int, Evaluated | None] = {}

    # A $ref may come back to a schema being compiled (FunctionCall's args hold
    # DynamicValues, which hold FunctionCalls): the cache holds a stand-in that
    # calls the real check once it exists.
    def check(self, schema: Any, base: str) -> Check:
        key = id(schema)
        if key not in self.checks:
            done: list[Check] = []
            self.checks[key] = lambda x: done[0](x)
            compiled = self._compile(schema, base)
            done.append(compiled)
            self.checks[key] = compiled
        return self.checks[key]

    def annotated(self, schema: Any, base: str) -> Annotated:
        key = id(schema)
        if key not in self.annotated_checks:
            done: list[Annotated] = []
            self.annotated_checks[key] = lambda x: done[0](x)
            compiled = self._compile_annotated(schema, base)
            done.append(compiled)
            self.annotated_checks[key] = compiled
        return self.annotated_checks[key]

    # --- plain checks ---

    def _compile(self, schema: Any, base: str) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        self._known(schema, base)
        parts = self._parts(schema, base)
        if "unevaluatedProperties" in schema:
            parts.append(self._unevaluated(schema, base))
        return _all_of(parts)

    def _parts(self, schema: dict[str, Any], base: str) -> list[Check]:
        """Checks for every keyword but ``unevaluatedProperties``, the type's first."""
        parts: list[Check] = []
        if "type" in schema:
            parts.append(_type_check(schema["type"]))
        if "properties" in schema or "additionalProperties" in schema:
            parts.append(self._properties(schema, base))
        if "required" in schema:
            parts.append(_required(tuple(schema["required"])))
        if "const" in schema:
            parts.append(_const(schema["const"]))
        if "enum" in schema:
            parts.append(_enum(schema["enum"]))
        if "minItems" in schema:
            least = schema["minItems"]
            parts.append(lambda x: not isinstance(x, list) or len(x) >= least)
        if "items" in schema:
            parts.append(_items(self.check(schema["items"], base)))
        if "minimum" in schema:
            floor = schema["minimum"]
            parts.append(lambda x: not _is_number(x) or x >= floor)
        if "pattern" in schema:
            search = re.compile(schema["pattern"]).search  # re.search, as jsonschema's pattern
            parts.append(lambda x: not isinstance(x, str) or search(x) is not None)
        if "minProperties" in schema:
            fewest = schema["minProperties"]
            parts.append(lambda x: not isinstance(x, dict) or len(x) >= fewest)
        if "maxProperties" in schema:
            most = schema["maxProperties"]
            parts.append(lambda x: not isinstance(x, dict) or len(x) <= most)
        if "$ref" in schema:
            parts.append(self._ref(schema, base))
        for sub in schema.get("allOf", ()):
            parts.append(self.check(sub, base))
        if "anyOf" in schema:
            branches = tuple(self.check(sub, base) for sub in schema["anyOf"])
            parts.append(lambda x: any(branch(x) for branch in branches))
        if "oneOf" in schema:
            parts.append(self._one_of(schema["oneOf"], base))
        if "not" in schema:
            negated = self.check(schema["not"], base)
            parts.append(lambda x: not negated(x))
        if "if" in schema:
            condition = self.check(schema["if"], base)
            then = self.check(schema.get("then", True), base)
            parts.append(lambda x: not condition(x) or then(x))
        return parts

    def _ref(self, schema: dict[str, Any], base: str) -> Check:
        target, where = self.schemas.resolve(base, schema["$ref"])
        return self.check(target, where)

    def _properties(self, schema: dict[str, Any], base: str) -> Check:
        named = {k: self.check(v, base) for k, v in schema.get("properties", {}).items()}
        other = schema.get("additionalProperties", True)
        extra = None if other is True else self.check(other, base)
        get = named.get

        def properties(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for key, value in x.items():
                check = get(key, extra)
                if check is not None and not check(value):
                    return False
            return True

        return properties

    def _one_of(self, branches: list[Any], base: str) -> Check:
        dispatch = self._dispatch(branches, base)
        if dispatch is not None:
            name, table = dispatch
            by_value = {value: self.check(sub, where) for value, (sub, where) in table.items()}
            pick = by_value.get

            def named(x: Any) -> bool:
                if isinstance(x, dict):
                    value = x.get(name)
                    if isinstance(value, str):
                        check = pick(value)
                        return check is not None and check(x)
                return False

            return named
        checks = tuple(self.check(sub, base) for sub in branches)

        def exactly_one(x: Any) -> bool:
            passed = 0
            for check in checks:
                if check(x):
                    passed += 1
                    if passed > 1:
                        return False
            return passed == 1

        return exactly_one

    def _dispatch(self, branches: list[Any], base: str) -> tuple[str, dict[str, Any]] | None:
        """The property every branch pins to its own string, and the branch
        (schema, document) for each string; ``None`` when there is none."""
        pins = []
        for sub in branches:
            is_object, pinned = self._pins(sub, base)
            if not is_object:
                return None
            pins.append(pinned)
        for name in pins[0] if pins else ():
            values = [p.get(name) for p in pins]
            if all(isinstance(v, str) for v in values) and len(set(values)) == len(values):
                return name, {str(v): (sub, base) for v, sub in zip(values, branches, strict=True)}
        return None

    def _pins(self, schema: Any, base: str) -> tuple[bool, dict[str, Any]]:
        """Whether passing ``schema`` needs an object, and the properties it
        then needs present with one ``const`` value (through ``$ref`` and ``allOf``)."""
        if not isinstance(schema, dict):
            return False, {}
        is_object = schema.get("type") in ("object", ["object"])
        pinned: dict[str, Any] = {}
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if isinstance(properties.get(name), dict) and "const" in properties[name]:
                pinned[name] = properties[name]["const"]
        inner = [(sub, base) for sub in schema.get("allOf", ())]
        if "$ref" in schema:
            inner.append(self.schemas.resolve(base, schema["$ref"]))
        for sub, where in inner:
            sub_object, sub_pinned = self._pins(sub, where)
            is_object = is_object or sub_object
            pinned.update(sub_pinned)
        return is_object, pinned

    # --- unevaluatedProperties ---

    def _unevaluated(self, schema: dict[str, Any], base: str) -> Check:
        """``unevaluatedProperties``: the keys none of the schema's other
        keywords evaluated (in it and in its passing in-place subschemas)."""
        rest = self.check(schema["unevaluatedProperties"], base)
        keys = self._static_keys(schema, base, own_unevaluated=False)
        if keys is not None:
            if isinstance(keys, _All):
                return lambda x: True
            if schema["unevaluatedProperties"] is False:
                return lambda x: not isinstance(x, dict) or keys.issuperset(x)
            return lambda x: (
                not isinstance(x, dict) or all(rest(v) for k, v in x.items() if k not in keys)
            )
        evaluated = self._annotated_parts(schema, base)

        def unevaluated(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            seen = evaluated(x)
            return seen is not None and all(rest(v) for k, v in x.items() if k not in seen)

        return unevaluated

    def _static_keys(
        self, schema: Any, base: str, own_unevaluated: bool = True
    ) -> Evaluated | None:
        """The property names ``schema`` evaluates whenever it passes, if that
        set does not depend on the instance; else ``None``."""
        if not isinstance(schema, dict):
            return NOTHING
        key = id(schema)
        if own_unevaluated and key in self.statics:
            return self.statics[key]
        if own_unevaluated:
            self.statics[key] = None  # a $ref back to here: not fixed
        keys: Evaluated | None = frozenset(schema.get("properties", ()))
        if "additionalProperties" in schema or (
            own_unevaluated and "unevaluatedProperties" in schema
        ):
            keys = ALL  # passing, it evaluated every remaining key
        inner = [(sub, base) for sub in schema.get("allOf", ())]
        if "$ref" in schema:
            inner.append(self.schemas.resolve(base, schema["$ref"]))
        for sub, where in inner:
            found = self._static_keys(sub, where)
            keys = None if found is None or keys is None else _union(keys, found)
        for word in ("anyOf", "oneOf"):
            if word in schema and keys is not None:
                found_all = {self._static_keys(sub, base) for sub in schema[word]}
                found = found_all.pop() if len(found_all) == 1 else None
                keys = None if found is None else _union(keys, found)
        if "if" in schema and keys is not None:
            condition = self._static_keys(schema["if"], base)
            then = self._static_keys(schema.get("then", True), base)
            keys = keys if condition == NOTHING and then == NOTHING else None
        if own_unevaluated:
            self.statics[key] = keys
        return keys

    def _compile_annotated(self, schema: Any, base: str) -> Annotated:
        if not isinstance(schema, dict):
            check = self.check(schema, base)
            return lambda x: NOTHING if check(x) else None
        self._known(schema, base)
        keys = self._static_keys(schema, base)
        if keys is not None:
            check, fixed = self.check(schema, base), keys
            return lambda x: fixed if check(x) else None
        evaluated = self._annotated_parts(schema, base)
        if "unevaluatedProperties" not in schema:
            return evaluated
        rest = self.check(schema["unevaluatedProperties"], base)

        def with_unevaluated(x: Any) -> Evaluated | None:
            seen = evaluated(x)
            if seen is None or not isinstance(x, dict):
                return seen
            ok = all(rest(v) for k, v in x.items() if k not in seen)
            return ALL if ok else None

        return with_unevaluated

    def _annotated_parts(self, schema: dict[str, Any], base: str) -> Annotated:
        """``schema`` without its ``unevaluatedProperties``, annotated: its
        own keywords as a plain check, its in-place subschemas annotated."""
        own = {k: v for k, v in schema.items() if k not in ("$ref", "allOf", "anyOf", "oneOf")}
        own = {k: v for k, v in own.items() if k not in ("if", "then", "unevaluatedProperties")}
        plain = _all_of(self._parts(own, base))
        fixed: Evaluated = frozenset(schema.get("properties", ()))
        if "additionalProperties" in schema:
            fixed = ALL
        every = [self.annotated(sub, base) for sub in schema.get("allOf", ())]
        if "$ref" in schema:
            every.append(self.annotated(*self.schemas.resolve(base, schema["$ref"])))
        some = [self.annotated(sub, base) for sub in schema.get("anyOf", ())]
        one = [self.annotated(sub, base) for sub in schema.get("oneOf", ())]
        condition = self.annotated(schema["if"], base) if "if" in schema else None
        then = self.annotated(schema.get("then", True), base)

        def annotated(x: Any) -> Evaluated | None:
            if not plain(x):
                return None
            seen = fixed
            for sub in every:
                found = sub(x)
                if found is None:
                    return None
                seen = _union(seen, found)
            if some:
                passed = [found for sub in some if (found := sub(x)) is not None]
                if not passed:
                    return None
                for found in passed:
                    seen = _union(seen, found)
            if one:
                passed = [found for sub in one if (found := sub(x)) is not None]
                if len(passed) != 1:
                    return None
                seen = _union(seen, passed[0])
            if condition is not None:
                found = condition(x)
                if found is not None:
                    then_found = then(x)
                    if then_found is None:
                        return None
                    seen = _union(_union(seen, found), then_found)
            return seen

        return annotated

    def _known(self, schema: Any, base: str) -> None:
        if not isinstance(schema, dict):
            raise SchemaCompileError(f"not a schema in {base}: {str(schema)[:80]}")
        unknown = sorted(set(schema) - KEYWORDS - IGNORED)
        if unknown:
            raise SchemaCompileError(f"keyword(s) {unknown} in {base} are not supported")
        if "then" in schema and "if" not in schema:
            raise SchemaCompileError(f"'then' without 'if' in {base}")
        if "$id" in schema and schema is not self.schemas.documents.get(schema["$id"]):
            raise SchemaCompileError(f"a nested $id in {base} is not supported")


def _all_of(parts: list[Check]) -> Check:
    if not parts:
        return lambda x: True
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        first, second = parts
        return lambda x: first(x) and second(x)
    checks = tuple(parts)

    def every(x: Any) -> bool:
        for check in checks:  # noqa: SIM110  (a loop: no generator made on the hot path)
            if not check(x):
                return False
        return True

    return every


def _type_check(expected: str | list[str]) -> Check:
    names = [expected] if isinstance(expected, str) else list(expected)
    unknown = [n for n in names if n not in TYPES]
    if unknown:
        raise SchemaCompileError(f"unknown type(s) {unknown}")
    if len(names) == 1:
        return TYPES[names[0]]
    checks = tuple(TYPES[n] for n in names)
    return lambda x: any(check(x) for check in checks)


def _required(names: tuple[str, ...]) -> Check:
    return lambda x: not isinstance(x, dict) or all(name in x for name in names)


def _const(value: Any) -> Check:
    if isinstance(value, str):
        return lambda x: isinstance(x, str) and x == value
    return lambda x: json_equal(x, value)


def _enum(values: list[Any]) -> Check:
    if all(isinstance(v, str) for v in values):
        allowed = frozenset(values)
        return lambda x: isinstance(x, str) and x in allowed
    return lambda x: any(json_equal(x, v) for v in values)


def _items(check: Check) -> Check:
    def items(x: Any) -> bool:
        if not isinstance(x, list):
            return True
        for item in x:  # noqa: SIM110  (a loop: no generator made on the hot path)
            if not check(item):
                return False
        return True

    return items


# --- what _validate.py asks for -------------------------------------------------------


_COMPILING = threading.Lock()
"""Held while a check compiles: its stand-ins for recursive ``$ref`` are
filled only when the compile ends, so no other thread may call them before."""


@functools.cache
def _compiler() -> _Compiler:
    return _Compiler(_Schemas())


def schema_check(uri: str, pointer: str = "") -> Check:
    """The compiled check of the shipped schema at ``uri`` (a file's ``$id``,
    or its name when it has none) and JSON Pointer ``pointer``."""
    with _COMPILING:
        compiler = _compiler()
        schema, where = compiler.schemas.resolve(uri, "#" + pointer)
        return compiler.check(schema, where)


@functools.cache
def message_check(kind: str) -> Check:
    """The check ``_validate.py`` runs: for ``"v0.8"``, that version's whole
    schema; for a v0.9 kind (``"createSurface"``…), that kind's definition."""
    if kind == "v0.8":
        return schema_check(V08_MESSAGES)
    return schema_check(V09_MESSAGES, f"/$defs/{kind[0].upper()}{kind[1:]}Message")


@functools.cache
def component_check(version: str) -> Check:
    """One component of a components list, for ``"v0.8"`` or ``"v0.9"``."""
    if version == "v0.9":
        return schema_check(BASIC_CATALOG, "/$defs/anyComponent")
    return schema_check(V08_MESSAGES, "/properties/surfaceUpdate/properties/components/items")
