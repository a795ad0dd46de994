"""The schema compiler (``a2ui/_schema_check.py``): it knows exactly the
keywords the shipped schemas use and refuses any other, and on small schemas
of those keywords its verdict is jsonschema's (JSON's types and equality,
``unevaluatedProperties`` through in-place subschemas)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ipygenui.a2ui import _schema_check
from ipygenui.a2ui._schema_check import (
    IGNORED,
    KEYWORDS,
    SCHEMA_FILES,
    SchemaCompileError,
    load_schema,
    schema_check,
)

ONE = ("items", "not", "if", "then", "additionalProperties", "unevaluatedProperties")
MANY = ("allOf", "anyOf", "oneOf")
NAMED = ("properties", "$defs", "components", "functions")
"""Where a schema holds schemas: one, a list, or a name for each."""


def schema_objects(schema: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in a shipped file, with its JSON Pointer."""
    if not isinstance(schema, dict):
        return
    yield where, schema
    for key in ONE:
        if key in schema:
            yield from schema_objects(schema[key], f"{where}/{key}")
    for key in MANY:
        for i, sub in enumerate(schema.get(key, ())):
            yield from schema_objects(sub, f"{where}/{key}/{i}")
    for key in NAMED:
        for name, sub in schema.get(key, {}).items():
            yield from schema_objects(sub, f"{where}/{key}/{name}")


def test_the_compiler_knows_exactly_the_keywords_the_shipped_schemas_use() -> None:
    used: Counter[str] = Counter()
    for name in SCHEMA_FILES:
        document = load_schema(name)
        uri = document.get("$id", name)
        for where, schema in schema_objects(document, ""):
            used.update(schema.keys())
            if where.count("/") == 2 and where.split("/")[1] in NAMED[1:]:
                schema_check(uri, where)  # each definition compiles (no unknown keyword)
        schema_check(uri)  # and each file's root, with all it holds and names
    assert set(used) - KEYWORDS - IGNORED == set()
    assert KEYWORDS - set(used) == set()  # none supported that no file needs


def compiled(schema: Any) -> _schema_check.Check:
    """A schema of our own, compiled as the shipped ones are."""
    schemas = _schema_check._Schemas()
    uri = "https://schemas.invalid/test.json"
    schemas.documents[uri] = schema
    return _schema_check._Compiler(schemas).check(schema, uri)


@pytest.mark.parametrize(
    "schema",
    [
        {"patternProperties": {"^x": {}}},
        {"properties": {"a": {"maxLength": 3}}},
        {"allOf": [{"type": "object"}, {"else": {}}]},
        {"then": {"type": "string"}},
        {"type": "decimal"},
        {"$ref": "https://elsewhere.invalid/s.json"},
        {"$ref": "#/$defs/missing"},
    ],
)
def test_what_the_compiler_does_not_know_fails_the_compile(schema: dict[str, Any]) -> None:
    with pytest.raises(SchemaCompileError):
        compiled(schema)


SMALL_SCHEMAS: list[Any] = [
    {"type": "integer"},
    {"type": "number", "minimum": 0},
    {"type": ["string", "null"]},
    {"type": "boolean"},
    {"const": 1},
    {"const": True},
    {"const": [1, {"a": False}]},
    {"enum": [1, "a", None, [True]]},
    {"enum": ["h1", "h2"]},
    {"type": "array", "minItems": 2, "items": {"type": "integer"}},
    {"pattern": "^#[0-9a-f]{2}$"},
    {"minProperties": 1, "maxProperties": 2},
    {"not": {"type": "string"}},
    {"if": {"type": "string"}, "then": {"const": "yes"}},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": {"type": "string"},
    },
    {"properties": {"a": {}}, "required": ["a"], "additionalProperties": False},
    # unevaluatedProperties, its keys fixed: through allOf and $ref
    {
        "allOf": [{"properties": {"a": {}}}, {"$ref": "#/$defs/b"}],
        "unevaluatedProperties": False,
        "$defs": {"b": {"properties": {"b": {"type": "integer"}}}},
    },
    # ... and depending on the instance: the branches that pass evaluate
    {
        "anyOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {}}}],
        "unevaluatedProperties": False,
    },
    {
        "oneOf": [
            {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"properties": {"b": {}}, "required": ["b"]},
        ],
        "unevaluatedProperties": {"type": "string"},
    },
    {
        "if": {"properties": {"kind": {"const": "x"}}, "required": ["kind"]},
        "then": {"properties": {"x": {}}},
        "unevaluatedProperties": False,
    },
    {
        "properties": {"a": {}},
        "allOf": [{"additionalProperties": {"type": "integer"}}],
        "unevaluatedProperties": False,
    },
    {
        "allOf": [{"properties": {"a": {}}, "unevaluatedProperties": False}],
        "unevaluatedProperties": False,
    },
    # a oneOf each branch of which pins "kind": checked against the branch named
    {
        "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {
                "allOf": [{"$ref": "#/$defs/b"}],
                "unevaluatedProperties": False,
            },
        ],
        "$defs": {
            "b": {
                "type": "object",
                "properties": {"kind": {"const": "b"}, "n": {"type": "number"}},
                "required": ["kind", "n"],
            }
        },
    },
]

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, 1.0, 2.5, 0.0, -0.5])
    | st.sampled_from(["", "a", "b", "x", "yes", "h1", "#0a", "#0a\n", "kind"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "x", "n", "kind", "z"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(schema=st.sampled_from(SMALL_SCHEMAS), instance=JSON)
def test_on_small_schemas_the_verdict_is_jsonschemas(schema: Any, instance: Any) -> None:
    expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert compiled(schema)(instance) == expected, json.dumps([schema, instance])


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"type": "integer"}, 1.0, True),
        ({"type": "integer"}, 1.5, False),
        ({"const": 1}, True, False),
        ({"const": 1}, 1.0, True),
        ({"const": False}, 0, False),
        ({"enum": [0, "a"]}, False, False),
        ({"const": [1]}, [True], False),
        ({"const": {"a": 1}}, {"a": 1.0}, True),
        ({"minimum": 0}, True, True),  # not a number: minimum does not apply
    ],
)
def test_jsons_types_and_equality(schema: Any, instance: Any, valid: bool) -> None:
    assert compiled(schema)(instance) is valid
    assert jsonschema.Draft202012Validator(schema).is_valid(instance) is valid
