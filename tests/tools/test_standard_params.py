"""Standard tool parameters: added to every schema, stripped from arguments."""

from __future__ import annotations

import pytest

from ipygenui._internal.standard_params import (
    COMPLETION_PARAM,
    STATUS_PARAM,
    split_standard_arguments,
    with_standard_parameters,
)

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def test_names_are_the_documented_ones() -> None:
    assert STATUS_PARAM == "_status_message"
    assert COMPLETION_PARAM == "_completion_status_message"


def test_schema_gets_both_required_string_parameters_first() -> None:
    schema = with_standard_parameters(WEATHER)
    assert list(schema["properties"]) == [STATUS_PARAM, COMPLETION_PARAM, "city"]
    assert schema["required"] == [STATUS_PARAM, COMPLETION_PARAM, "city"]
    assert schema["properties"][STATUS_PARAM]["type"] == "string"
    assert schema["additionalProperties"] is False
    assert "looking up the weather in Beijing" in schema["properties"][STATUS_PARAM]["description"]
    assert (
        "looked up the weather in Beijing" in schema["properties"][COMPLETION_PARAM]["description"]
    )


def test_input_schema_is_not_modified() -> None:
    before = {"type": "object", "properties": {"x": {"type": "integer"}}}
    with_standard_parameters(before)["properties"]["x"]["type"] = "string"
    assert before == {"type": "object", "properties": {"x": {"type": "integer"}}}


def test_schema_without_properties_or_type_works() -> None:
    schema = with_standard_parameters({})
    assert schema["type"] == "object"
    assert schema["required"] == [STATUS_PARAM, COMPLETION_PARAM]


def test_reserved_names_and_non_object_schemas_are_refused() -> None:
    with pytest.raises(ValueError, match="reserved"):
        with_standard_parameters({"type": "object", "properties": {STATUS_PARAM: {}}})
    with pytest.raises(ValueError, match="object schema"):
        with_standard_parameters({"type": "array"})


def test_split_keeps_only_declared_names_and_reads_messages() -> None:
    args = {
        STATUS_PARAM: "looking up Beijing",
        COMPLETION_PARAM: "looked up Beijing",
        "city": "Beijing",
        "invented": 1,
    }
    kept, status, completion = split_standard_arguments(args, {"city"})
    assert kept == {"city": "Beijing"}
    assert status == "looking up Beijing"
    assert completion == "looked up Beijing"
    assert STATUS_PARAM in args  # the input is not modified


def test_split_of_partial_arguments() -> None:
    assert split_standard_arguments({STATUS_PARAM: "look"}, ["city"]) == ({}, "look", None)
    assert split_standard_arguments({STATUS_PARAM: 3}, ["city"]) == ({}, None, None)
