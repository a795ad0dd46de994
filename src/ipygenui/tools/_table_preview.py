"""A few rows of a table, for run_python's card (``for_user``): a small
table with its shape, the types per column. JSON scalars only, cut short."""

from __future__ import annotations

import math
from typing import Any

from ..data import as_frame, is_listable, type_name

PREVIEW_ROWS = 5
PREVIEW_COLUMNS = 12
_CELL_CHARS = 60


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", 1) == 0:
        try:
            return _cell(item())
        except (TypeError, ValueError):
            pass
    text = str(value)
    return text if len(text) <= _CELL_CHARS else text[: _CELL_CHARS - 1] + "…"


def table_preview(obj: Any, name: str) -> dict[str, Any] | None:
    """``{"name", "type", "shape", "columns", "dtypes", "rows"}`` of a frame,
    series or array (None for anything else, or when it cannot be read)."""
    if not is_listable(obj):
        return None
    try:
        frame = as_frame(obj)
        head = frame.iloc[:PREVIEW_ROWS, :PREVIEW_COLUMNS]
        columns = [str(c) for c in head.columns]
        dtypes = [str(t) for t in head.dtypes.tolist()]
        rows = [[_cell(v) for v in record] for record in head.itertuples(index=False, name=None)]
        index = None
        if type(frame.index).__name__ != "RangeIndex":  # a meaningful index (a groupby's keys)
            index = [_cell(v) for v in head.index.tolist()]
        shape = [int(n) for n in getattr(obj, "shape", frame.shape)]
    except Exception:  # a preview is a courtesy: the summary still says what it is
        return None
    preview: dict[str, Any] = {
        "name": name,
        "type": type_name(obj),
        "shape": shape,
        "columns": columns,
        "dtypes": dtypes,
        "rows": rows,
    }
    if index is not None:
        preview["index"] = index
    return preview
