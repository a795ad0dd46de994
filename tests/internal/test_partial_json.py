"""The incremental partial JSON parser: values, field status, errors."""

from __future__ import annotations

import json

import pytest

from ipygenui._internal.partial_json import PartialJSONError, PartialJSONParser, path_segment


def feed_all(text: str, size: int = 1) -> PartialJSONParser:
    parser = PartialJSONParser()
    for start in range(0, len(text), size):
        parser.feed(text[start : start + size])
    return parser


DOC = {
    "title": 'Sales "Q3" \\ é 😀\n',
    "rows": [{"id": 1, "name": "Ada", "score": -1.5e3, "ok": True, "x": None}, {"id": 2}],
    "empty": {},
    "none": [],
    "a.b": {"c\\d": 0},
}


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 1000])
def test_complete_document_in_any_chunking_equals_json_loads(size: int) -> None:
    for text in (json.dumps(DOC), json.dumps(DOC, indent=2), json.dumps(DOC, ensure_ascii=False)):
        parser = feed_all(text, size)
        assert parser.done
        assert parser.value == DOC


def test_value_before_anything_is_none_and_not_done() -> None:
    parser = PartialJSONParser()
    assert parser.value is None
    assert not parser.done
    parser.feed("  ")
    assert parser.value is None


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ('{"a', {}),
        ('{"a"', {}),
        ('{"a":', {}),
        ('{"a": "', {"a": ""}),
        ('{"a": "he', {"a": "he"}),
        ('{"a": "he\\', {"a": "he"}),
        ('{"a": "he\\u00', {"a": "he"}),
        ('{"a": "he\\u00e9', {"a": "heé"}),
        ('{"a": "\\ud83d', {"a": ""}),
        ('{"a": "\\ud83d\\ude00', {"a": "😀"}),
        ('{"a": -', {}),
        ('{"a": 1.', {}),
        ('{"a": 1e', {}),
        ('{"a": 12', {"a": 12}),
        ('{"a": tr', {}),
        ('{"a": true', {"a": True}),
        ('{"a": [', {"a": []}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a": [1, 2.', {"a": [1]}),
        ('{"a": {"b', {"a": {}}),
        ('"abc', "abc"),
        ("[", []),
    ],
)
def test_partial_values_follow_the_trailing_strings_rule(prefix: str, expected: object) -> None:
    for size in (1, 3, len(prefix)):
        assert feed_all(prefix, size).value == expected


def test_value_is_updated_in_place_and_reads_repeatedly() -> None:
    parser = PartialJSONParser()
    parser.feed('{"rows": [{"name": "A')
    value = parser.value
    assert value == {"rows": [{"name": "A"}]}
    assert parser.value == {"rows": [{"name": "A"}]}  # a second read changes nothing
    parser.feed('da"}, {"name": "Bo')
    assert parser.value is value  # same live object
    assert value == {"rows": [{"name": "Ada"}, {"name": "Bo"}]}
    parser.feed('b"}]}')
    assert value == {"rows": [{"name": "Ada"}, {"name": "Bob"}]}
    assert parser.done


def test_number_shown_then_hidden_then_shown_as_it_grows() -> None:
    parser = PartialJSONParser()
    parser.feed("[1")
    assert parser.value == [1]
    parser.feed(".")
    assert parser.value == []
    parser.feed("5")
    assert parser.value == [1.5]
    parser.feed("]")
    assert parser.value == [1.5]
    assert parser.done


def test_field_status_reports_streaming_then_complete_per_path() -> None:
    parser = PartialJSONParser()
    parser.feed('{"rows": [{"name": "Ad')
    status = parser.field_status()
    assert status == {
        "": "streaming",
        "rows": "streaming",
        "rows.0": "streaming",
        "rows.0.name": "streaming",
    }
    parser.feed('a", "n": 5')
    assert status["rows.0.name"] == "complete"
    assert status["rows.0.n"] == "streaming"  # 5 may still become 55
    parser.feed("}, 7")
    assert status["rows.0.n"] == "complete"
    assert status["rows.0"] == "complete"
    assert status["rows.1"] == "streaming"
    parser.feed("]}")
    assert set(status.values()) == {"complete"}


def test_field_status_is_read_only() -> None:
    parser = feed_all('{"a": 1}')
    with pytest.raises(TypeError):
        parser.field_status()["a"] = "streaming"  # type: ignore[index]


def test_path_segments_escape_dots_and_backslashes() -> None:
    parser = feed_all('{"a.b": {"c\\\\d": 1}}')
    assert parser.value == {"a.b": {"c\\d": 1}}
    assert "a\\.b.c\\\\d" in parser.field_status()
    assert path_segment("a.b") == "a\\.b"
    assert path_segment("plain") == "plain"


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ('{"a" 1', 5),
        ("[1,]", 3),
        ("{,", 1),
        ('{"a": 1,}', 8),
        ("01", 0),
        ("[1.5.]", 1),
        ("[1.e5]", 1),
        ("[-]", 1),
        ("[trux]", 1),
        ("[nul]", 1),
        ('"a\\x"', 2),
        ('"\\u12g4"', 1),
        ('"a\nb"', 2),
        ("{} x", 3),
        ("]", 0),
        ('{"a": 1]', 7),
    ],
)
def test_text_that_can_never_be_json_raises_with_offset(text: str, offset: int) -> None:
    for size in (1, 2, len(text)):
        parser = PartialJSONParser()
        with pytest.raises(PartialJSONError) as info:
            for start in range(0, len(text), size):
                parser.feed(text[start : start + size])
        assert isinstance(info.value, ValueError)
        assert info.value.offset == offset, (size, str(info.value))
        assert f"offset {offset}" in str(info.value)


def test_trailing_whitespace_after_done_is_fine() -> None:
    parser = feed_all('{"a": 1}  \n')
    assert parser.done
    assert parser.value == {"a": 1}


def test_root_scalars() -> None:
    assert feed_all('"x"').value == "x"
    assert feed_all('"x"').done
    assert feed_all("null ").value is None
    assert feed_all("null ").done
    number = feed_all("12")
    assert number.value == 12
    assert not number.done  # "12" may still grow
    assert feed_all("12 ").done


def test_after_an_error_feeding_raises_the_same_error_and_value_stays() -> None:
    parser = PartialJSONParser()
    parser.feed('{"a": 1, "b": [2')
    with pytest.raises(PartialJSONError) as first:
        parser.feed(", }")
    with pytest.raises(PartialJSONError) as again:
        parser.feed("3]}")
    assert again.value is first.value
    assert parser.value == {"a": 1, "b": [2]}


def test_feed_refuses_bytes() -> None:
    with pytest.raises(TypeError, match="str"):
        PartialJSONParser().feed(b"{}")  # type: ignore[arg-type]
