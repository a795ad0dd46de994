"""A compact, JSON-able description of any Python object, for the model.

Used where the model must know what an object is without reading it whole
(a run_python value, a name the code defined, a data attachment): a
DataFrame is its shape, columns, dtypes and a few rows; an array its shape
and dtype; anything else its type and a short repr. Never more than a few
thousand characters, whatever the object's size.
"""

from __future__ import annotations

import json
from typing import Any

SAMPLE_ROWS = 5
MAX_REPR = 500
MAX_COLUMNS = 50


def describe(obj: Any) -> dict[str, Any]:
    """What the model reads about ``obj`` (a small JSON-able dict)."""
    kind = type(obj)
    module = kind.__module__.split(".")[0]
    name = kind.__name__
    if module == "pandas" and name == "DataFrame":
        return _frame(obj, rows=obj.head(SAMPLE_ROWS))
    if module == "polars" and name == "DataFrame":
        return _frame(obj, rows=obj.head(SAMPLE_ROWS).to_pandas())
    if module in ("pandas", "polars") and name == "Series":
        head = obj.head(SAMPLE_ROWS)
        return {
            "type": name,
            "name": str(obj.name),
            "length": len(obj),
            "dtype": str(obj.dtype),
            "head": _jsonable(list(head.to_list())),
        }
    if module == "numpy" and name == "ndarray":
        return {"type": "ndarray", "shape": list(obj.shape), "dtype": str(obj.dtype)}
    if module == "matplotlib" and name == "Figure":
        width, height = (int(v) for v in obj.get_size_inches() * obj.dpi)
        return {"type": "Figure", "size": f"{width}x{height}"}
    if module == "PIL":
        return {"type": "Image", "size": f"{obj.width}x{obj.height}", "mode": obj.mode}
    if isinstance(obj, bool | int | float) or obj is None:
        return {"type": name, "value": _jsonable(obj)}
    if isinstance(obj, str):
        return {"type": "str", "value": obj if len(obj) <= MAX_REPR else obj[:MAX_REPR] + "…"}
    text = repr(obj)
    if len(text) > MAX_REPR:
        text = text[:MAX_REPR] + "…"
    out: dict[str, Any] = {"type": name, "repr": text}
    if hasattr(obj, "__len__"):
        try:
            out["length"] = len(obj)
        except Exception:  # a __len__ that fails tells nothing
            pass
    return out


def _frame(frame: Any, rows: Any) -> dict[str, Any]:
    columns = [str(c) for c in list(frame.columns)[:MAX_COLUMNS]]
    dtypes = {str(c): str(t) for c, t in list(zip(frame.columns, frame.dtypes))[:MAX_COLUMNS]}
    sample = rows.iloc[:, :MAX_COLUMNS].to_json(orient="records", date_format="iso")
    return {
        "type": type(frame).__name__,
        "shape": list(frame.shape),
        "columns": columns,
        "dtypes": dtypes,
        "head": json.loads(sample),
    }


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str, allow_nan=False))
    except ValueError:
        return json.loads(json.dumps(value, default=str).replace("NaN", "null"))
