"""A v0.9 ``updateComponents`` message is checked as its envelope plus each
component against its own definition, not ``anyComponent``'s ``oneOf`` of
every component: the same verdict as the full schema on the spec's samples and
on many broken variants of them, and a broken message still gets the full
check's errors."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ipygenui.a2ui import A2UIError, check_message
from ipygenui.a2ui._validate import _load, _passes_by_parts, _validators

SPEC = Path(__file__).parents[1] / "fixtures" / "a2ui" / "spec" / "v0_9"
SAMPLES = 5
"""The smallest samples are varied: the full check is slow on many variants."""


def spec_updates() -> list[dict[str, Any]]:
    """The samples' ``updateComponents`` messages, fewest components first."""
    found = []
    for path in sorted(SPEC.glob("*.json")):
        found += [m for m in json.loads(path.read_text())["messages"] if "updateComponents" in m]
    return sorted(found, key=lambda m: len(json.dumps(m)))


def variants(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The message itself, then one change each: to its envelope, and to each
    component's every property (dropped, a number, an object)."""
    yield message
    for change in (
        lambda m: m.pop("version"),
        lambda m: m["updateComponents"].update(extra=1),
        lambda m: m["updateComponents"].update(surfaceId=7),
        lambda m: m["updateComponents"].update(components=[]),
        lambda m: m["updateComponents"].update(components={}),
        lambda m: m["updateComponents"]["components"].append("text"),
        lambda m: m["updateComponents"]["components"].append({"id": "x"}),
        lambda m: m["updateComponents"]["components"].append({"id": "x", "component": 3}),
        lambda m: m["updateComponents"]["components"].append({"id": "x", "component": {}}),
    ):
        changed = copy.deepcopy(message)
        change(changed)
        yield changed
    for i, component in enumerate(message["updateComponents"]["components"]):
        for key in [*component, "bogus"]:
            for value in (None, 12345, {"bad": 1}):
                changed = copy.deepcopy(message)
                target = changed["updateComponents"]["components"][i]
                if value is None:
                    target.pop(key, None)
                elif key != "component":  # another name is the catalog check's to refuse
                    target[key] = value
                yield changed


def test_every_anycomponent_branch_pins_its_own_name() -> None:
    catalog = _load("v0_9/basic_catalog.json")
    branches = [b["$ref"] for b in catalog["$defs"]["anyComponent"]["oneOf"]]
    assert sorted(branches) == sorted(f"#/components/{name}" for name in catalog["components"])
    for name, schema in catalog["components"].items():
        pinned = [p["properties"]["component"] for p in schema["allOf"] if "properties" in p]
        assert pinned == [{"const": name}]
        assert "component" in next(p for p in schema["allOf"] if "properties" in p)["required"]


def test_the_split_check_agrees_with_the_full_schema() -> None:
    validators = _validators()
    assert validators is not None
    full = validators["updateComponents"]
    counts = {True: 0, False: 0}
    for message in spec_updates()[:SAMPLES]:
        for variant in variants(message):
            verdict = full.is_valid(variant)
            assert _passes_by_parts(variant, validators) == verdict, json.dumps(variant)[:400]
            counts[verdict] += 1
    assert counts[True] > 10 and counts[False] > 100  # both verdicts well covered


class _FullCheck:
    """Stands in for the full ``updateComponents`` validator, to see it unused."""

    def __init__(self, real: Any) -> None:
        self.real, self.calls = real, 0

    def iter_errors(self, message: Any) -> Any:
        self.calls += 1
        return self.real.iter_errors(message)


def test_a_valid_message_skips_the_full_check_and_a_broken_one_gets_its_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    validators = _validators()
    assert validators is not None
    full = _FullCheck(validators["updateComponents"])
    monkeypatch.setitem(validators, "updateComponents", full)
    [message] = spec_updates()[:1]
    assert check_message(message) == "v0.9"
    assert full.calls == 0
    broken = copy.deepcopy(message)
    broken["updateComponents"]["components"][0]["bogus"] = 1
    with pytest.raises(A2UIError, match=r"invalid A2UI v0\.9 message: at /updateComponents"):
        check_message(broken)
    assert full.calls == 1
