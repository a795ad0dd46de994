"""The A2UI spec's own basic-catalog examples (v0.8 and v0.9, copied unchanged
into ``tests/fixtures/a2ui/spec/``, see its SOURCES.md) validate against the
schemas we ship and build surfaces; ``tests/e2e/test_a2ui_samples.py`` draws
them in JupyterLab, ``js/test/components/a2ui-spec-samples.test.js`` in jsdom."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ipygenui.a2ui import check_messages
from ipygenui.a2ui._surfaces import Surface, apply_messages

SPEC = Path(__file__).parents[1] / "fixtures" / "a2ui" / "spec"
SAMPLES = sorted(SPEC.glob("v0_*/*.json"))


def sample_messages(path: Path) -> list[dict[str, Any]]:
    """A v0.8 example is a list of messages; a v0.9 one names them under ``messages``."""
    sample = json.loads(path.read_text())
    return sample if isinstance(sample, list) else sample["messages"]


def test_both_versions_samples_are_here() -> None:
    counts = {v: len(list((SPEC / v).glob("*.json"))) for v in ("v0_8", "v0_9")}
    assert counts == {"v0_8": 30, "v0_9": 36}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_spec_sample_validates_and_builds_its_surfaces(path: Path) -> None:
    messages = sample_messages(path)
    version = "v0.8" if path.parent.name == "v0_8" else "v0.9"
    assert check_messages(messages) == [version] * len(messages)
    surfaces: dict[str, Surface] = {}
    apply_messages(surfaces, messages, [version] * len(messages))
    assert surfaces and all(not s.deleted for s in surfaces.values())
    for surface in surfaces.values():
        assert surface.root in surface.components, surface.surface_id


def test_a_v08_value_string_holding_json_reads_as_the_list_it_is() -> None:
    """v0.8 has no list values: the weather sample (as the official renderer
    reads it) puts its forecast list in a valueString."""
    messages = sample_messages(SPEC / "v0_8" / "04_weather-current.json")
    surfaces: dict[str, Surface] = {}
    apply_messages(surfaces, messages, ["v0.8"] * len(messages))
    forecast = surfaces["gallery-weather-current"].data["forecast"]
    assert isinstance(forecast, list) and forecast[0]["temp"] == "74°"
    assert surfaces["gallery-weather-current"].data["location"] == "Austin, TX"
