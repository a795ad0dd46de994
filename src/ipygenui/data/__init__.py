"""Notebook data the conversation can reference without the model reading it.

A tool result that is not plain JSON (a DataFrame, an array, a figure, any
object) is kept here under a short reference name (``df_1``, ``fig_2``); the
model reads a budgeted JSON summary (``summarize``) and passes the name on,
e.g. to ``Table(data="df_1")``, and the kernel sends the rows to the browser
itself. Objects the user names (``Chat(data={"sales": df})``) live here too,
and with ``namespace=True`` the notebook's DataFrames, Series and arrays.

``runtime.data`` / ``chat.data`` is the ``DataStore`` of a conversation.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import itertools
import json
import math
import re
import threading
import types
import typing
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Annotated, Any

from pydantic import BaseModel, Field

from .._internal.install_hint import install_hint
from .._internal.jsonable import to_jsonable
from ..errors import UnknownReference
from ..messages import Thread
from ._json_cells import json_cell

__all__ = [
    "DEFAULT_CATALOGUE_CHARS",
    "DEFAULT_SUMMARY_CHARS",
    "DataRef",
    "DataStore",
    "RowWindows",
    "ToolResult",
    "UnknownReference",
    "current_data",
    "data_ref_fields",
    "is_tabular",
    "model_json",
    "summarize",
    "type_name",
    "using_data",
]

DEFAULT_SUMMARY_CHARS = 6_000
"""Characters of one summary (about 1,500 tokens): whatever the object's size."""

DEFAULT_CATALOGUE_CHARS = 4_000
"""Characters of the catalogue of names the model reads each turn."""

SAMPLE_ROWS = 5
_CELL_CHARS = 80
_MAX_COLUMNS = 60
_REPR_CHARS = 400
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")


# --- kinds of objects ----------------------------------------------------------


def type_name(obj: Any) -> str:
    """``pandas.DataFrame``, ``numpy.ndarray``, ``matplotlib.Figure``: library and class."""
    kind = type(obj)
    return f"{kind.__module__.split('.')[0]}.{kind.__name__}"


def _library(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_tabular(obj: Any) -> bool:
    """A pandas or polars DataFrame (anything with columns, dtypes and a shape)."""
    return (
        _library(obj) in ("pandas", "polars")
        and hasattr(obj, "columns")
        and hasattr(obj, "dtypes")
        and hasattr(obj, "shape")
    )


def is_series(obj: Any) -> bool:
    return (
        _library(obj) in ("pandas", "polars")
        and not is_tabular(obj)
        and hasattr(obj, "dtype")
        and hasattr(obj, "to_frame")
    )


def is_array(obj: Any) -> bool:
    return _library(obj) == "numpy" and hasattr(obj, "shape") and getattr(obj, "ndim", 0) >= 1


def is_figure(obj: Any) -> bool:
    library = _library(obj)
    name = type(obj).__name__
    return ((library == "matplotlib" and name in ("Figure", "SubFigure")) or "Axes" in name) or (
        library in ("altair", "plotly") and ("Chart" in name or name == "Figure")
    )


def is_listable(obj: Any) -> bool:
    """What ``namespace=True`` lists from the notebook: frames, series, arrays."""
    return is_tabular(obj) or is_series(obj) or is_array(obj)


def _prefix(obj: Any) -> str:
    if is_tabular(obj):
        return "df"
    if is_series(obj):
        return "series"
    if is_array(obj):
        return "array"
    if is_figure(obj):
        return "fig"
    return "result"


# --- summaries -------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """One sample value as short JSON."""
    if value is None or isinstance(value, bool | int | str):
        text = value
    elif isinstance(value, float):
        return value if math.isfinite(value) else None
    else:
        tolist = getattr(value, "item", None)
        if callable(tolist) and getattr(value, "ndim", 1) == 0:
            try:
                return _cell(value.item())
            except (ValueError, TypeError):
                pass
        iso = getattr(value, "isoformat", None)
        text = iso() if callable(iso) else str(value)
    if isinstance(text, str) and len(text) > _CELL_CHARS:
        return text[: _CELL_CHARS - 1] + "…"
    return text


def _frame_summary(obj: Any) -> dict[str, Any]:
    columns = [str(c) for c in obj.columns]
    summary: dict[str, Any] = {"shape": list(obj.shape)}
    shown = columns[:_MAX_COLUMNS]
    summary["columns"] = shown
    if len(columns) > len(shown):
        summary["columns_omitted"] = len(columns) - len(shown)
    dtypes = [str(t) for t in obj.dtypes] if _library(obj) == "polars" else None
    if dtypes is None:
        dtypes = [str(t) for t in obj.dtypes.tolist()]
    summary["dtypes"] = dict(zip(shown, dtypes, strict=False))
    head = obj.head(SAMPLE_ROWS)
    rows: list[dict[str, Any]] = []
    if _library(obj) == "polars":
        for record in head.select(obj.columns[: len(shown)]).iter_rows():
            rows.append({c: _cell(v) for c, v in zip(shown, record, strict=False)})
    else:
        for record in head.iloc[:, : len(shown)].itertuples(index=False, name=None):
            rows.append({c: _cell(v) for c, v in zip(shown, record, strict=False)})
    summary["sample"] = rows
    return summary


def _series_summary(obj: Any) -> dict[str, Any]:
    values = list(obj.head(SAMPLE_ROWS))
    return {
        "shape": [len(obj)],
        "name": None if getattr(obj, "name", None) is None else str(obj.name),
        "dtype": str(obj.dtype),
        "sample": [_cell(v) for v in values],
    }


def _array_summary(obj: Any) -> dict[str, Any]:
    flat = obj.reshape(-1)[:SAMPLE_ROWS]
    return {"shape": list(obj.shape), "dtype": str(obj.dtype), "sample": [_cell(v) for v in flat]}


def _figure_summary(obj: Any) -> dict[str, Any]:
    library = _library(obj)
    if library == "matplotlib":
        figure = obj if hasattr(obj, "get_axes") else obj.get_figure()
        axes = figure.get_axes()
        return {
            "axes": len(axes),
            "titles": [a.get_title() for a in axes if a.get_title()][:10],
            "size_inches": [round(float(v), 2) for v in figure.get_size_inches()],
        }
    if library == "plotly":
        layout_title = getattr(getattr(obj.layout, "title", None), "text", None)
        return {"title": layout_title, "traces": [t.type for t in obj.data][:20]}
    spec = obj.to_dict()
    return {"mark": spec.get("mark"), "encoding": sorted(spec.get("encoding", {}))}


def _object_summary(obj: Any) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    with contextlib.suppress(Exception):
        summary["length"] = len(obj)
    text = repr(obj)
    summary["repr"] = text if len(text) <= _REPR_CHARS else text[: _REPR_CHARS - 1] + "…"
    return summary


def _details(obj: Any) -> dict[str, Any]:
    if is_tabular(obj):
        return _frame_summary(obj)
    if is_series(obj):
        return _series_summary(obj)
    if is_array(obj):
        return _array_summary(obj)
    if is_figure(obj):
        return _figure_summary(obj)
    return _object_summary(obj)


def _size(value: Any) -> int:
    return len(json.dumps(value, default=str, ensure_ascii=False))


def _fit(summary: dict[str, Any], budget: int) -> dict[str, Any]:
    """Drop sample rows, then columns, until the summary fits ``budget`` characters."""
    sample = summary.get("sample")
    while isinstance(sample, list) and sample and _size(summary) > budget:
        sample.pop()
    for key in ("columns", "titles", "traces", "encoding"):
        items = summary.get(key)
        while isinstance(items, list) and items and _size(summary) > budget:
            items.pop()
            summary[f"{key}_omitted"] = summary.get(f"{key}_omitted", 0) + 1
            if key == "columns" and isinstance(summary.get("dtypes"), dict):
                summary["dtypes"] = {c: t for c, t in summary["dtypes"].items() if c in items}
    if _size(summary) > budget:  # a pathological name or repr: keep the essentials only
        summary = {k: summary[k] for k in ("ref", "type", "shape") if k in summary}
        summary["note"] = "summary cut to fit its budget"
    return summary


def summarize(
    obj: Any, ref: str | None = None, budget: int = DEFAULT_SUMMARY_CHARS
) -> dict[str, Any]:
    """The JSON the model reads for ``obj``: ``ref``, ``type`` and what fits ``budget``.

    Tabular data gets ``shape``, ``columns``, ``dtypes`` and a few ``sample``
    rows; series and arrays their shape, dtype and first values; figures their
    axes, titles or traces; anything else its length and a short ``repr``.
    Never raises: an object that fails to summarize gets a summary saying so.
    """
    summary: dict[str, Any] = {}
    if ref is not None:
        summary["ref"] = ref
    try:
        summary["type"] = type_name(obj)
    except Exception:  # a class with a broken __module__/__name__
        summary["type"] = "object"
    try:
        summary.update(_details(obj))
    except Exception as exc:
        summary["error"] = (
            f"could not summarize this {summary['type']}: {type(exc).__name__}: {exc}"[:_REPR_CHARS]
        )
    return _fit(summary, budget)


def catalogue_entry(name: str, obj: Any) -> dict[str, Any]:
    """One line of the catalogue: the name, type, shape and column names."""
    entry: dict[str, Any] = {"name": name, "type": type_name(obj)}
    try:
        if hasattr(obj, "shape"):
            entry["shape"] = list(obj.shape)
        if is_tabular(obj):
            columns = [str(c) for c in obj.columns]
            entry["columns"] = columns[:30] + (
                [f"… {len(columns) - 30} more"] if len(columns) > 30 else []
            )
    except Exception:
        pass
    return entry


# --- the store ---------------------------------------------------------------------


class DataStore(MutableMapping[str, Any]):
    """Name -> object: what a conversation can reference.

    ``add(obj)`` gives an object a short reference (``df_1``), the same one
    for the same object; ``store[name] = obj`` names one explicitly.
    ``namespace`` (a mapping or a function returning one, e.g. the notebook's
    variables) adds its DataFrames, Series and arrays, looked up live; names
    given here win over it.
    """

    def __init__(
        self,
        objects: Mapping[str, Any] | None = None,
        *,
        namespace: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        self._objects: dict[str, Any] = {}
        self._refs: dict[int, str] = {}
        self._counter = itertools.count(1)
        self._namespace = namespace
        for name, obj in (objects or {}).items():
            self[name] = obj

    # mapping

    def _namespace_items(self) -> dict[str, Any]:
        ns = self._namespace
        if ns is None:
            return {}
        try:
            mapping = ns() if callable(ns) else ns
            return {
                k: v
                for k, v in list(mapping.items())
                if isinstance(k, str) and not k.startswith("_") and is_listable(v)
            }
        except Exception:  # a namespace that cannot be read lists nothing
            return {}

    def __getitem__(self, name: str) -> Any:
        if name in self._objects:
            return self._objects[name]
        found = self._namespace_items()
        if name in found:
            return found[name]
        raise UnknownReference(name, self.names())

    def __setitem__(self, name: str, obj: Any) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(
                f"data name {name!r} must start with a letter or '_' and hold only letters, "
                "digits, '_', '.' or '-' (at most 64)"
            )
        old = self._objects.get(name)
        if old is not None and self._refs.get(id(old)) == name:
            del self._refs[id(old)]
        self._objects[name] = obj
        self._refs.setdefault(id(obj), name)

    def __delitem__(self, name: str) -> None:
        obj = self._objects.pop(name)
        if self._refs.get(id(obj)) == name:
            del self._refs[id(obj)]

    def __iter__(self) -> Iterator[str]:
        names = list(self._objects)
        names += [n for n in self._namespace_items() if n not in self._objects]
        return iter(names)

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self._objects or name in self._namespace_items()

    def names(self) -> list[str]:
        return list(self)

    # references

    def add(self, obj: Any, name: str | None = None) -> str:
        """Keep ``obj`` and return its reference: ``name``, or its existing one, or a new one."""
        if name is not None:
            self[name] = obj
            return name
        existing = self.ref_of(obj)
        if existing is not None:
            return existing
        prefix = _prefix(obj)
        while True:
            ref = f"{prefix}_{next(self._counter)}"
            if ref not in self:
                break
        self[ref] = obj
        return ref

    def ref_of(self, obj: Any) -> str | None:
        """The name ``obj`` is kept under (identity, not equality), or None."""
        ref = self._refs.get(id(obj))
        if ref is not None and self._objects.get(ref) is obj:
            return ref
        return None

    def resolve(self, name: str) -> Any:
        """The object named ``name``; ``UnknownReference`` (listing the names) if none."""
        return self[name]

    def summary(self, name: str, budget: int = DEFAULT_SUMMARY_CHARS) -> dict[str, Any]:
        return summarize(self[name], ref=name, budget=budget)

    def catalogue(self, budget: int = DEFAULT_CATALOGUE_CHARS) -> list[dict[str, Any]]:
        """Names, types, shapes and columns, newest result last, within ``budget`` characters."""
        entries: list[dict[str, Any]] = []
        used = 2
        names = self.names()
        for index, name in enumerate(names):
            try:
                entry = catalogue_entry(name, self[name])
            except Exception:
                entry = {"name": name, "type": "unknown"}
            size = _size(entry) + 1
            if used + size > budget:
                entries.append({"omitted": len(names) - index})
                break
            entries.append(entry)
            used += size
        return entries


def model_json(value: Any, store: DataStore, budget: int = DEFAULT_SUMMARY_CHARS) -> Any:
    """A tool result as the model reads it: plain JSON stays as ``to_jsonable``
    makes it; every object that is not JSON (the result itself or one inside a
    container) is kept in ``store`` and replaced by its summary with its ``ref``."""
    return to_jsonable(value, keep=lambda obj: summarize(obj, store.add(obj), budget))


# --- references in props ----------------------------------------------------------


class _DataRefMarker:
    """Marks a props field whose string names an object in the data store."""

    def __repr__(self) -> str:
        return "DataRef"


DataRef = Annotated[
    str,
    _DataRefMarker(),
    Field(
        description="A data reference (a tool result's `ref`, e.g. 'df_1') or a name from "
        "the data catalogue; the notebook sends the data itself",
        json_schema_extra={"x-data-ref": True},
    ),
]
"""A props field type: the model passes a reference, the kernel resolves it."""


def _holds_ref(annotation: Any) -> bool:
    if typing.get_origin(annotation) is Annotated and any(
        isinstance(m, _DataRefMarker) for m in typing.get_args(annotation)[1:]
    ):
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_holds_ref(a) for a in typing.get_args(annotation))
    return False


def data_ref_fields(model: type[BaseModel]) -> list[str]:
    """The fields of ``model`` typed ``DataRef`` (or ``DataRef | None``)."""
    return [
        name
        for name, field in model.model_fields.items()
        if any(isinstance(m, _DataRefMarker) for m in field.metadata)
        or _holds_ref(field.annotation)
    ]


_CURRENT: contextvars.ContextVar[DataStore | None] = contextvars.ContextVar(
    "ipygenui_data", default=None
)


def current_data() -> DataStore | None:
    """The data store of the conversation whose tool or component runs now."""
    return _CURRENT.get()


@contextlib.contextmanager
def using_data(store: DataStore | None) -> Iterator[None]:
    """Within the block, ``current_data()`` is ``store`` (references resolve there)."""
    token = _CURRENT.set(store)
    try:
        yield
    finally:
        _CURRENT.reset(token)


# --- rows for the browser ------------------------------------------------------------


def as_frame(obj: Any) -> Any:
    """A pandas DataFrame for any tabular object (a polars frame, a Series, an array)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            f"showing data by reference needs pandas: {install_hint('data')}"
        ) from None

    if isinstance(obj, pd.DataFrame):
        return obj
    if isinstance(obj, pd.Series):
        return obj.to_frame(name=str(obj.name) if obj.name is not None else "value")
    if _library(obj) == "polars":
        if not is_tabular(obj):
            obj = obj.to_frame()
        return pd.DataFrame({c: obj.get_column(c).to_list() for c in obj.columns})
    if is_array(obj):
        return pd.DataFrame(obj if obj.ndim == 2 else obj.reshape(len(obj), -1))
    raise TypeError(f"a {type_name(obj)} is not a table (give a DataFrame, a Series or an array)")


def table_rows(frame: Any, positions: Any = None) -> tuple[list[str], list[dict[str, Any]]]:
    """Column names and JSON rows of ``frame`` (at ``positions``, else all)."""
    part = frame if positions is None else frame.iloc[positions]
    columns = [str(c) for c in part.columns]
    rows = [
        {c: json_cell(v) for c, v in zip(columns, record, strict=True)}
        for record in part.itertuples(index=False, name=None)
    ]
    return columns, rows


class RowWindows:
    """Windows of a large table's rows, sorted in the kernel.

    A sort order (a stable argsort of one column) is computed once per object
    and column, then reused for every window, so scrolling a sorted table of a
    million rows slices an array instead of sorting again.
    """

    def __init__(self, cached: int = 8, max_rows: int | None = None) -> None:
        """``max_rows``: most rows one window holds (the widget passes its wire limit)."""
        self._frames: OrderedDict[int, tuple[Any, Any]] = OrderedDict()
        self._orders: OrderedDict[tuple[int, str, bool], Any] = OrderedDict()
        self._filtered: OrderedDict[tuple[int, str | None, bool, str], Any] = OrderedDict()
        self._cached = cached
        self._max_rows = max_rows
        self._lock = threading.Lock()  # windows are cut in worker threads

    def frame(self, obj: Any) -> Any:
        """``as_frame(obj)``, converted once per object."""
        hit = self._frames.get(id(obj))
        if hit is not None and hit[0] is obj:
            self._frames.move_to_end(id(obj))
            return hit[1]
        frame = as_frame(obj)
        self._frames[id(obj)] = (obj, frame)  # holding obj keeps its id from being reused
        while len(self._frames) > self._cached:
            self._frames.popitem(last=False)
        return frame

    def needs_sorting(
        self, obj: Any, sort: str | None, descending: bool = False, filter_text: str | None = None
    ) -> bool:
        """Whether a window of ``obj`` sorted by ``sort`` (and filtered by
        ``filter_text``) must sort or filter first (slow for big tables)."""
        query = _filter_query(filter_text)
        if sort is None and not query:
            return False
        with self._lock:
            hit = self._frames.get(id(obj))
            frame = hit[1] if hit is not None and hit[0] is obj else None
            if frame is None:
                return True
            if query:
                return (id(frame), sort, descending, query) not in self._filtered
            return (id(frame), sort, descending) not in self._orders

    def window(
        self,
        obj: Any,
        offset: int,
        limit: int,
        sort: str | None = None,
        descending: bool = False,
        filter_text: str | None = None,
    ) -> dict[str, Any]:
        """Rows ``offset`` to ``offset + limit`` of ``obj``, sorted by column
        ``sort``; with ``filter_text``, of the rows holding it in some cell
        (``_row_filter``), and ``total_rows`` counts those."""
        query = _filter_query(filter_text)
        with self._lock:
            frame = self.frame(obj)
        kept = self._matching(frame, sort, descending, query) if query else None
        with self._lock:
            total = len(frame) if kept is None else len(kept)
            offset = max(0, min(offset, total))
            if self._max_rows is not None:
                limit = min(limit, self._max_rows)
            stop = min(total, offset + max(0, limit))
            if kept is not None:
                positions: Any = kept[offset:stop]
            elif sort is None:
                positions = slice(offset, stop)
            else:
                positions = self._order(frame, sort, descending)[offset:stop]
        columns, rows = table_rows(frame, positions)
        window = {
            "columns": columns,
            "rows": rows,
            "offset": offset,
            "total_rows": total,
            "sort": sort,
            "descending": descending,
        }
        if query:
            window["filter"] = filter_text
            window["all_rows"] = len(frame)
        return window

    def _matching(self, frame: Any, sort: str | None, descending: bool, query: str) -> Any:
        """Positions of the rows holding ``query``, in the order of ``sort``; kept for reuse."""
        key = (id(frame), sort, descending, query)
        with self._lock:
            kept = self._filtered.get(key)
            if kept is not None:
                self._filtered.move_to_end(key)
                return kept
        from ._row_filter import matching_mask

        # outside the lock: seconds for a million rows, while the loop may slice a kept view
        mask = matching_mask(frame, query)
        with self._lock:
            if sort is None:
                kept = mask.nonzero()[0]
            else:
                order = self._order(frame, sort, descending)
                kept = order[mask[order]]
            self._filtered[key] = kept
            while len(self._filtered) > self._cached:
                self._filtered.popitem(last=False)
        return kept

    def _order(self, frame: Any, column: str, descending: bool) -> Any:
        key = (id(frame), column, descending)
        order = self._orders.get(key)
        if order is not None:
            self._orders.move_to_end(key)
            return order
        names = {str(c): c for c in frame.columns}
        if column not in names:
            raise KeyError(f"no column {column!r} (columns: {', '.join(names)})")
        series = frame[names[column]].reset_index(drop=True)
        try:
            ordered = series.sort_values(
                ascending=not descending, kind="stable", na_position="last"
            )
        except TypeError:  # mixed types: compare as text
            ordered = series.astype(str).sort_values(ascending=not descending, kind="stable")
        order = ordered.index.to_numpy()  # empty cells last both ways, as the browser sorts
        self._orders[key] = order
        while len(self._orders) > self._cached:
            self._orders.popitem(last=False)
        return order


def _filter_query(text: str | None) -> str:
    """A table filter as matched: trimmed, lower case ("" for none)."""
    return (text or "").strip().lower()


def user_namespace() -> Mapping[str, Any]:
    """The notebook's variables (IPython's ``user_ns``); empty outside IPython."""
    try:
        from IPython.core.getipython import get_ipython

        shell = get_ipython()
    except ImportError:
        return {}
    return shell.user_ns if shell is not None else {}


def conversation_data(data: Mapping[str, Any] | bool | None) -> DataStore:
    """The store of ``Runtime(data=...)``: named objects, or (``True``) the
    notebook's DataFrames, Series and arrays, read live each time."""
    if data is True:
        return DataStore(namespace=user_namespace)
    return DataStore(data if isinstance(data, Mapping) else None)


@dataclasses.dataclass(frozen=True)
class ToolResult:
    """One answered tool call, for reading results back in Python.

    ``value``: the object the tool returned (None in a thread loaded from a
    file, where only ``result`` remains); ``ref``: the name it is kept under
    in the conversation's data (None for plain JSON results); ``result``:
    what the model read.
    """

    tool_name: str
    tool_call_id: str
    ref: str | None
    value: Any
    result: Any
    is_error: bool = False


def tool_results(thread: Thread, store: DataStore) -> list[ToolResult]:
    """Every answered call of ``thread``, oldest first."""
    out: list[ToolResult] = []
    for message in thread.messages:
        for part in message.tool_calls:
            if not part.has_result:
                continue
            ref = store.ref_of(part.value) if part.value is not None else None
            if ref is None and isinstance(part.result, dict):
                named = part.result.get("ref")
                ref = named if isinstance(named, str) and named in store else None
            out.append(
                ToolResult(
                    part.tool_name, part.tool_call_id, ref, part.value, part.result, part.is_error
                )
            )
    return out
