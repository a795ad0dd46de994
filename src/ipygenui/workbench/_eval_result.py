"""The table ``evaluate`` returns: a row per prompt, its accuracy and confusion table.

With pandas installed it is a DataFrame with two more members, ``accuracy``
and ``confusion()``; without, a list of row dicts with the same two (the
confusion table then a dict of dicts). Slicing the DataFrame gives a plain one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, TypedDict, cast

from ..tools.component_names import UI_TOOL_PREFIX

__all__ = ["NO_CALL", "EvalRow", "accuracy_of", "as_result", "confusion_of", "label_of"]

NO_CALL = "(text)"
"""``called`` / ``expected`` of a prompt answered in text, with no call."""


class EvalRow(TypedDict):
    prompt: str
    expected: str | None
    called: str
    """The first tool or component the model called (a component by its name), or ``NO_CALL``."""
    kind: str
    """``"component"``, ``"tool"``, ``"text"``, ``"unknown"`` (a tool not in the
    registry) or ``"error"`` (the model failed: see ``error``)."""
    valid: bool | None
    """The call's arguments validated (None: no call)."""
    error: str | None
    input_tokens: int
    output_tokens: int
    estimated: bool
    """The tokens are the model's estimate (the offline demo's)."""
    cost_usd: float | None
    seconds: float
    text: str
    """The start of the text the model wrote before (or instead of) a call."""


COLUMNS = list(EvalRow.__annotations__)


def label_of(name: str | None) -> str:
    """A tool's or component's name as a row shows it: ``show_component_Chart`` -> ``Chart``."""
    if name is None or not name.strip():
        return NO_CALL
    name = name.strip()
    return name.removeprefix(UI_TOOL_PREFIX) if name != UI_TOOL_PREFIX else name


def _judged(rows: Sequence[EvalRow]) -> list[EvalRow]:
    return [r for r in rows if r["expected"] is not None]


def accuracy_of(rows: Sequence[EvalRow]) -> float | None:
    """The share of prompts with an expected call whose call matched it (None: none had one)."""
    judged = _judged(rows)
    if not judged:
        return None
    return sum(r["called"] == r["expected"] for r in judged) / len(judged)


def confusion_of(rows: Sequence[EvalRow]) -> dict[str, dict[str, int]]:
    """``{expected: {called: count}}`` over the prompts with an expected call."""
    table: dict[str, dict[str, int]] = {}
    for row in _judged(rows):
        expected = str(row["expected"])
        counts = table.setdefault(expected, {})
        counts[row["called"]] = counts.get(row["called"], 0) + 1
    return table


class EvalRows(list[EvalRow]):
    """The rows, without pandas."""

    @property
    def accuracy(self) -> float | None:
        return accuracy_of(self)

    def confusion(self) -> dict[str, dict[str, int]]:
        return confusion_of(self)


@functools.cache
def _frame_class() -> type:
    import pandas as pd

    class EvalFrame(pd.DataFrame):
        """``evaluate``'s table: a row per prompt, with ``accuracy`` and ``confusion()``."""

        @property
        def _constructor(self) -> type:
            return pd.DataFrame  # a slice or a computed frame is a plain one

        def _rows(self) -> list[EvalRow]:
            records = self.to_dict("records")
            return [cast(EvalRow, {str(k): _plain(v) for k, v in r.items()}) for r in records]

        @property
        def accuracy(self) -> float | None:
            """The share of prompts with an expected call whose call matched it."""
            if "expected" not in self.columns:
                return None
            return accuracy_of(self._rows())

        def confusion(self) -> Any:
            """Expected (rows) against called (columns): how often each was confused."""
            if "expected" not in self.columns:
                raise ValueError("no prompt has an expected call: give (prompt, expected) pairs")
            judged = self[self["expected"].notna()]
            return pd.crosstab(
                judged["expected"].rename("expected"), judged["called"].rename("called")
            )

    return EvalFrame


def _plain(value: Any) -> Any:
    """pandas' missing values (NaN, None) as None."""
    try:
        import pandas as pd

        return (
            None
            if value is None or (not isinstance(value, str | list) and pd.isna(value))
            else value
        )
    except (ImportError, TypeError, ValueError):
        return value


def as_result(rows: list[EvalRow], *, expected: bool) -> Any:
    """The rows as a DataFrame (``expected``: with that column and ``correct``),
    else ``EvalRows``."""
    try:
        import pandas as pd  # noqa: F401
    except ImportError:
        return EvalRows(rows)
    columns = list(COLUMNS)
    if not expected:
        columns.remove("expected")
    frame = _frame_class()(rows, columns=columns)
    if expected:
        frame.insert(
            3,
            "correct",
            [None if r["expected"] is None else r["called"] == r["expected"] for r in rows],
        )
    return frame
