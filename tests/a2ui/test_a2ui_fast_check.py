"""A2UI messages are checked by the compiled schemas (``a2ui/_schema_check.py``),
with jsonschema's verdict: on every valid example the tests, the demo and the
notebooks use, and on many broken variants of them (both versions). A valid
message never imports jsonschema; a broken one gets its errors worded by it,
or, without it, an error that says where."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ipygenui
from a2ui_helpers import form_messages
from ipygenui.a2ui import A2UIError, _validate, catalog_names, check_message
from ipygenui.a2ui._schema_check import message_check
from ipygenui.a2ui._validate import (
    MAX_PROBLEMS,
    _best,
    _kind,
    _load,
    _validators,
    _where,
    message_version,
)
from ipygenui.models._demo_a2ui import A2UI_FORM

TESTS = Path(__file__).parents[1]
FIXTURES = TESTS / "fixtures" / "a2ui"
NOTEBOOK = TESTS / "e2e" / "notebooks" / "a2ui.ipynb"


def notebook_messages(name: str) -> list[dict[str, Any]]:
    """Messages the A2UI end-to-end notebook shows (``FORM``, ``BAD``: its first code cell's)."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    source = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
    names: dict[str, Any] = {}
    exec(compile(source, str(NOTEBOOK), "exec"), names)  # it only defines things
    messages: list[dict[str, Any]] = names[name]
    return messages


def examples() -> list[dict[str, Any]]:
    """Every A2UI message the tests, the demo model and the notebooks show."""
    found: list[dict[str, Any]] = []
    for path in sorted((FIXTURES / "spec").glob("v0_*/*.json")):
        sample = json.loads(path.read_text())
        found += sample if isinstance(sample, list) else sample["messages"]
    for path in sorted(FIXTURES.glob("*.json")):
        found += json.loads(path.read_text())
    for path in sorted(FIXTURES.glob("*.jsonl")):
        found += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [*found, *form_messages(), *A2UI_FORM, *notebook_messages("FORM")]


EXAMPLES = examples()
BY_VERSION = {v: [m for m in EXAMPLES if message_version(m) == v] for v in ("v0.8", "v0.9")}


def verdicts(message: Any) -> tuple[bool, bool] | None:
    """(the compiled check's, jsonschema's) on the schema ``check_message``
    uses; ``None`` for a message of neither version's shape (refused before)."""
    try:
        kind = _kind(message, message_version(message))
    except A2UIError:
        return None
    validators = _validators()
    assert validators is not None
    return message_check(kind)(message), validators[kind].is_valid(message)


def test_the_examples_are_all_here_and_agree() -> None:
    assert len(BY_VERSION["v0.8"]) > 80 and len(BY_VERSION["v0.9"]) > 100
    for message in EXAMPLES:
        assert verdicts(message) == (True, True), json.dumps(message)[:300]
    [_, iframe] = notebook_messages("BAD")
    assert verdicts(iframe) == (False, False)


# --- broken variants ------------------------------------------------------------------

VALUES: list[Any] = [
    None, True, False, 0, 1, 1.0, 1.5, -1, "", "x", "h1", "primary", "Text", [], ["a"], [1],
    [["a"]], {}, {"path": "/x"}, {"path": 1}, {"literalString": "x"}, {"literalNumber": True},
    {"call": "required", "args": {"value": 1}},
    {"call": "length", "args": {"value": "a", "min": 1.0}, "returnType": "boolean"},
    {"call": "length", "args": {"value": "a", "min": -1}},
    {"call": "nope", "args": {}}, {"componentId": "t", "path": "/items"},
    {"event": {"name": "go"}}, {"name": "go", "context": [{"key": "k", "value": {"path": "/k"}}]},
    {"Text": {"text": {"literalString": "a"}}},
]  # fmt: skip
"""Values a mutation puts somewhere: wrong types (a bool for a number, 1.0 for
an integer), near misses of the shapes the schemas name, nested lists."""
KEYS = [
    "bogus", "id", "component", "weight", "accessibility", "checks", "variant", "path",
    "returnType", "version", "child", "children", "usageHint", "literalString", "surfaceId",
]  # fmt: skip
NAMES = sorted({*catalog_names("v0.9"), *catalog_names("v0.8"), "Script"})


def locations(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from locations(inner, (*at, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from locations(inner, (*at, i))


def at(value: Any, where: tuple[Any, ...]) -> Any:
    for step in where:
        value = value[step]
    return value


CHANGES = ("replace", "drop", "add", "append", "rename", "wrap", "confuse")
FITS = {
    "add": lambda v: isinstance(v, dict),
    "append": lambda v: isinstance(v, list),
    "rename": lambda v: isinstance(v, dict) and "component" in v,
    "confuse": lambda v: isinstance(v, bool | int | float),
}
"""Where each change applies (any place but the message itself for the rest)."""


def mutate(message: dict[str, Any], data: st.DataObject) -> None:
    """One change at a drawn place of ``message`` that it fits."""
    change = data.draw(st.sampled_from(CHANGES))
    fits = FITS.get(change, lambda v: True)
    places = [w for w in locations(message) if w and fits(at(message, w))]
    if not places:
        return
    where = data.draw(st.sampled_from(places))
    target, parent = at(message, where), at(message, where[:-1])
    value = copy.deepcopy(data.draw(st.sampled_from(VALUES)))
    if change == "replace":
        parent[where[-1]] = value
    elif change == "drop":
        del parent[where[-1]]
    elif change == "add":
        target[data.draw(st.sampled_from(KEYS))] = value
    elif change == "append":
        target.append(copy.deepcopy(data.draw(st.sampled_from([value, *target]))))
    elif change == "rename":
        name = data.draw(st.sampled_from(NAMES))
        inner = target["component"]
        if isinstance(inner, dict) and len(inner) == 1:  # v0.8: {"Text": {...}}
            target["component"] = {name: next(iter(inner.values()))}
        else:
            target["component"] = name
    elif change == "wrap":
        parent[where[-1]] = [target]
    else:
        parent[where[-1]] = data.draw(st.sampled_from(confused(target)))


def confused(value: Any) -> list[Any]:
    """What a number or bool is easily taken for: a bool for a number, 1.0
    for 1 (an integer still), a number for a bool, either as a string."""
    if isinstance(value, bool):
        return [int(value), float(value), str(value).lower()]
    return [True, False, float(value), int(value), -value, str(value)]


def trimmed(message: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """A copy with a run of at most four of its components (jsonschema is slow on many)."""
    message = copy.deepcopy(message)
    body = message.get("updateComponents") or message.get("surfaceUpdate")
    if isinstance(body, dict) and len(body.get("components", ())) > 4:
        start = data.draw(st.integers(0, len(body["components"]) - 1))
        body["components"] = body["components"][start : start + 4]
    return message


@pytest.mark.parametrize("version", ["v0.8", "v0.9"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_on_broken_variants_the_verdict_is_jsonschemas(version: str, data: st.DataObject) -> None:
    message = trimmed(data.draw(st.sampled_from(BY_VERSION[version])), data)
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(message, data)
    found = verdicts(message)
    assert found is None or found[0] == found[1], json.dumps(message)[:600]


def variants(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every single change of one kind at every place: each key dropped, each
    value replaced by a number, by a bool, by an object."""
    for where in locations(message):
        if not where:
            continue
        for value in (None, 12345, True, {"bad": 1}):
            changed = copy.deepcopy(message)
            parent = at(changed, where[:-1])
            if value is None:
                del parent[where[-1]]
            else:
                parent[where[-1]] = value
            yield changed


def test_every_single_change_to_the_smallest_examples_gets_jsonschemas_verdict() -> None:
    counts = {True: 0, False: 0}
    for messages in BY_VERSION.values():
        smallest = sorted(
            (m for m in messages if "updateComponents" in m or "surfaceUpdate" in m),
            key=lambda m: len(json.dumps(m)),
        )
        for message in smallest[:2]:
            for variant in variants(message):
                found = verdicts(variant)
                if found is not None:
                    assert found[0] == found[1], json.dumps(variant)[:600]
                    counts[found[1]] += 1
    assert counts[True] > 10 and counts[False] > 200  # both verdicts well covered


def test_every_anycomponent_branch_pins_its_own_name() -> None:
    """What lets the compiled check try only the branch a component names."""
    catalog = _load("v0_9/basic_catalog.json")
    branches = [b["$ref"] for b in catalog["$defs"]["anyComponent"]["oneOf"]]
    assert sorted(branches) == sorted(f"#/components/{name}" for name in catalog["components"])
    for name, schema in catalog["components"].items():
        pinned = [p["properties"]["component"] for p in schema["allOf"] if "properties" in p]
        assert pinned == [{"const": name}]
        assert "component" in next(p for p in schema["allOf"] if "properties" in p)["required"]


# --- jsonschema only for the errors ---------------------------------------------------


def test_a_valid_message_never_asks_jsonschema_and_a_broken_one_gets_its_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = _validators()

    def counted() -> Any:
        calls.append(1)
        return real

    monkeypatch.setattr(_validate, "_validators", counted)
    for message in EXAMPLES:
        check_message(message)
    assert calls == []
    broken = form_messages()[1]
    broken["updateComponents"]["components"][0]["bogus"] = 1
    with pytest.raises(A2UIError, match=r"invalid A2UI v0\.9 message: at /updateComponents"):
        check_message(broken)
    assert calls == [1]


class _Seen:
    """Stands in for a jsonschema validator, noting how many components it was given."""

    def __init__(self, real: Any, key: str) -> None:
        self.real, self.key = real, key
        self.sizes: list[int] = []

    def iter_errors(self, message: Any) -> Any:
        self.sizes.append(len(message[self.key]["components"]))
        return self.real.iter_errors(message)


@pytest.mark.parametrize("version", ["v0.8", "v0.9"])
def test_a_broken_long_list_gets_the_whole_lists_errors_from_a_few_components(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "updateComponents" if version == "v0.9" else "surfaceUpdate"
    message = max((m for m in BY_VERSION[version] if key in m), key=lambda m: len(json.dumps(m)))
    message = copy.deepcopy(message)
    components = message[key]["components"]
    components *= -(-40 // len(components))  # 40 or more, the same ones again
    components[:] = [{**c, "id": f"c{i}"} for i, c in enumerate(components)]
    for i in (3, 11, 12, 20, 27, 33, 39):
        components[i]["bogus"] = i
    components[30] = "not a component"
    message[key]["extra"] = True  # and one error outside the list
    validators = _validators()
    assert validators is not None
    kind = _kind(message, version)
    whole = sorted(validators[kind].iter_errors(message), key=lambda e: list(e.path))
    expected = "; ".join(f"{_where(e)}{_best(e, validators)}" for e in whole[:MAX_PROBLEMS])
    seen = _Seen(validators[kind], key)
    monkeypatch.setitem(validators, kind, seen)
    with pytest.raises(A2UIError) as raised:
        check_message(message)
    assert str(raised.value) == f"invalid A2UI {version} message: {expected}"
    assert "components/3:" in expected and "components/20:" in expected
    assert seen.sizes == [MAX_PROBLEMS]


def test_without_jsonschema_the_error_says_which_component(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_validate, "_validators", lambda: None)
    start, broken = form_messages()[:2]
    broken["updateComponents"]["components"][2]["text"] = 7
    with pytest.raises(
        A2UIError,
        match=r"v0\.9 message: at /updateComponents/components/2: this Text does not match",
    ):
        check_message(broken)
    start["createSurface"]["theme"] = {"primaryColor": "red"}
    with pytest.raises(A2UIError, match=r"the message does not match the v0\.9 schema"):
        check_message(start)


CHECK_IN_A_FRESH_PROCESS = """
import json, sys
import ipygenui
from ipygenui.a2ui import check_messages
for messages in json.loads(sys.stdin.read()):
    check_messages(messages)
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("jsonschema", "referencing")))))
"""


def test_checking_valid_surfaces_does_not_import_jsonschema() -> None:
    v08 = json.loads((FIXTURES / "v0_8_login_form.json").read_text())
    src = str(Path(ipygenui.__file__).parents[1])  # this checkout's, as imported here
    done = subprocess.run(
        [sys.executable, "-c", CHECK_IN_A_FRESH_PROCESS],
        input=json.dumps([form_messages(), A2UI_FORM, v08]),
        env={**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == []
