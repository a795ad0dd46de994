"""Every prefix of random JSON documents: our incremental parser agrees with
jiter's ``partial_mode="trailing-strings"`` (the rule we follow) and, outside
an unfinished number or literal, with partial-json-parser, whatever the chunking.

Documented differences we normalise: partial-json-parser completes an
unfinished literal (``tr`` -> true), cuts an unfinished number (``1.`` -> 1)
and shows a high surrogate still waiting for its low half, where we and jiter
show none of them; it also drops trailing whitespace (any ``str.isspace``
character) from an unterminated string, which we and jiter keep. Such
prefixes are compared with jiter only. jiter raises where a bare root scalar
has shown nothing yet (``n``, ``-``); we give None.
"""

from __future__ import annotations

import json
import re

import jiter
import partial_json_parser
from hypothesis import given, settings
from hypothesis import strategies as st

from ipygenui._internal.partial_json import PartialJSONError, PartialJSONParser

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
documents = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
layouts = st.sampled_from(
    [
        {},
        {"indent": 1},
        {"ensure_ascii": False},
        {"separators": (",", ":")},
        {"indent": "\t", "ensure_ascii": False},
    ]
)
# a prefix whose last character may belong to an unfinished number or literal
_IN_TOKEN = re.compile(r"[-+.0-9eEtrufalsn]$")
_PENDING_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(\\(u[0-9a-fA-F]{0,3})?)?$")


def jiter_partial(prefix: str) -> object:
    try:
        return jiter.from_json(prefix.encode(), partial_mode="trailing-strings")
    except ValueError:
        return None  # nothing to show yet


def parse_prefix(text: str, sizes: list[int]) -> PartialJSONParser:
    parser = PartialJSONParser()
    start = 0
    turn = 0
    while start < len(text):
        size = sizes[turn % len(sizes)]
        parser.feed(text[start : start + size])
        start += size
        turn += 1
    return parser


@settings(max_examples=150, deadline=None)
@given(documents, layouts, st.lists(st.integers(1, 9), min_size=1, max_size=5))
def test_every_prefix_agrees_with_jiter_and_partial_json_parser(
    doc: object, layout: dict[str, object], sizes: list[int]
) -> None:
    text = json.dumps(doc, **layout)  # type: ignore[arg-type]
    for end in range(1, len(text) + 1):
        prefix = text[:end]
        ours = parse_prefix(prefix, sizes).value
        theirs = jiter_partial(prefix)
        assert ours == theirs, (prefix, ours, theirs)
        comparable = not _IN_TOKEN.search(prefix) and not _PENDING_SURROGATE.search(prefix)
        if comparable and not prefix[-1].isspace():
            pjp = partial_json_parser.loads(prefix)
            assert ours == pjp, (prefix, ours, pjp)
    final = parse_prefix(text, sizes)
    assert final.value == json.loads(text)
    assert final.done or isinstance(doc, int | float)  # a bare number may still grow


@settings(max_examples=100, deadline=None)
@given(documents, st.integers(1, 7))
def test_reading_value_after_every_chunk_does_not_change_the_result(doc: object, size: int) -> None:
    text = json.dumps(doc)
    parser = PartialJSONParser()
    for start in range(0, len(text), size):
        parser.feed(text[start : start + size])
        seen = parser.value
        assert seen == jiter_partial(text[: start + size])
    assert parser.value == json.loads(text)
    statuses = set(parser.field_status().values())
    assert statuses <= {"complete"} or isinstance(doc, int | float)


def _strict_loads(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@settings(max_examples=300, deadline=None)
@given(
    documents,
    st.integers(0, 10**6),
    st.sampled_from(list('{}[]",:0-.eE tfn\\u\x01x')),
    st.sampled_from(["insert", "replace", "delete"]),
    st.integers(1, 5),
)
def test_errors_agree_with_json_loads(
    doc: object, where: int, char: str, how: str, size: int
) -> None:
    text = json.dumps(doc)
    at = where % (len(text) + 1)
    if how == "insert":
        text = text[:at] + char + text[at:]
    elif at < len(text):
        text = text[:at] + (char if how == "replace" else "") + text[at + 1 :]
    try:
        expected = _strict_loads(text)
        valid = True
    except ValueError:
        valid = False
    parser = PartialJSONParser()
    try:
        for start in range(0, len(text), size):
            parser.feed(text[start : start + size])
    except PartialJSONError:
        assert not valid, text  # never refuses valid JSON
        return
    if valid:
        assert parser.value == expected
        assert parser.done or isinstance(expected, int | float)
    else:  # invalid text is refused or still waiting for more
        assert not parser.done, text
