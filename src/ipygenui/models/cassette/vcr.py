"""``cassette(path, model)``: record once, replay afterwards (as VCR's cassettes do).

For tests that should see a real model's answers without spending tokens on
every run: the first run (no file yet) records through ``model``; every
later run replays the file instantly, and a request it holds no recording
of fails the test (``on_miss="error"``). Set ``IPYGENUI_RECORD=1`` (or pass
``record=True``) to record the file again.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import CassetteError
from ..base import Model
from .recording import record as start_recording
from .replaying import replay

__all__ = ["RECORD_ENV", "cassette"]

RECORD_ENV = "IPYGENUI_RECORD"
"""Set to ``1`` (``true``, ``yes``) to record every cassette again."""


def _wants_record(record: bool | None) -> bool:
    if record is not None:
        return record
    return os.environ.get(RECORD_ENV, "").strip().lower() in ("1", "true", "yes")


def _no_model(path: Path) -> Any:
    text = (
        f"{path}: no cassette there and no model to record it with (give a model, or set "
        "its API key, then run again)"
    )
    if "pytest" in sys.modules and os.environ.get("PYTEST_CURRENT_TEST"):
        import pytest

        pytest.skip(text)
    raise CassetteError(text)


def cassette(
    path: str | os.PathLike[str],
    model: Model | Callable[[], Model | None] | None = None,
    *,
    record: bool | None = None,
) -> Model:
    """A model for a test: ``model`` recording to ``path`` on the first run
    (or when re-recording), the replay of ``path`` afterwards.

    ``model``: the model to record with, or a function making it that
    returns None when it cannot (no API key): then a missing cassette skips
    the test under pytest (raises :class:`~ipygenui.errors.CassetteError`
    elsewhere). ``record``: True records again, False never records; None
    (default) records when the file is missing or ``IPYGENUI_RECORD=1``.

        def test_weather():
            model = cassette("tests/cassettes/weather.jsonl",
                             lambda: gu.model("openai:gpt-4o-mini") if os.environ.get(
                                 "OPENAI_API_KEY") else None)
            rt = gu.Runtime(model=model, tools=[get_weather])
            assert rt.run_sync("Weather in Paris?").tool_calls
    """
    where = Path(os.fspath(path))
    again = _wants_record(record)
    if where.exists() and not again:
        return replay(where, pace="instant", on_miss="error")
    if record is False:
        raise CassetteError(f"{where}: no cassette there (record=False)")
    made: Any = model() if callable(model) and not hasattr(model, "stream") else model
    if made is None:
        return _no_model(where)
    return start_recording(made, where, new=True)
