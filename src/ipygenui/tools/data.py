"""Built-in data tools (opt-in: ``tools=[*gu.data_tools()]``).

The model describes a table, previews its rows and queries it by name, with
structured arguments only: filters are column/op/value triples, group-by a
list of columns, aggregations column/function pairs. Nothing the model writes
is evaluated as code. Query results are new references in the conversation's
data (``runtime.data``), so the model can show them (``Table(data="df_2")``)
without reading their rows.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..data import DataStore, UnknownReference, as_frame, current_data, summarize, table_rows
from .base import Tool, tool

__all__ = ["Aggregation", "Filter", "SortKey", "data_tools"]

FilterOp = Literal[
    "==", "!=", "<", "<=", ">", ">=", "in", "not in", "contains", "startswith", "isnull", "notnull"
]
AggFunc = Literal["sum", "mean", "median", "min", "max", "count", "nunique", "std", "first", "last"]
MAX_PREVIEW = 50


class Filter(BaseModel):
    column: str
    op: FilterOp
    value: Any = Field(
        None, description="Compared with the column; a list for 'in' / 'not in'; unused by isnull"
    )


class Aggregation(BaseModel):
    column: str
    func: AggFunc
    name: str | None = Field(None, description="The result column's name (default: column_func)")


class SortKey(BaseModel):
    column: str
    descending: bool = False


def _store() -> DataStore:
    store = current_data()
    if store is None:
        raise RuntimeError("the data tools run only inside a conversation (a Runtime or Chat)")
    return store


def _table(name: str) -> Any:
    store = _store()
    if name not in store:
        raise ValueError(str(UnknownReference(name, store.names())))
    try:
        return as_frame(store[name])
    except TypeError as exc:
        raise ValueError(f"{name!r}: {exc}") from None


def _column(frame: Any, name: str) -> Any:
    columns = {str(c): c for c in frame.columns}
    if name not in columns:
        raise ValueError(f"no column {name!r} (columns: {', '.join(columns)})")
    return frame[columns[name]]


def _mask(frame: Any, f: Filter) -> Any:
    column = _column(frame, f.column)
    match f.op:
        case "==":
            return column == f.value
        case "!=":
            return column != f.value
        case "<":
            return column < f.value
        case "<=":
            return column <= f.value
        case ">":
            return column > f.value
        case ">=":
            return column >= f.value
        case "in" | "not in":
            values = f.value if isinstance(f.value, list) else [f.value]
            inside = column.isin(values)
            return inside if f.op == "in" else ~inside
        case "contains":
            return column.astype(str).str.contains(str(f.value), regex=False, na=False)
        case "startswith":
            return column.astype(str).str.startswith(str(f.value), na=False)
        case "isnull":
            return column.isna()
        case _:  # notnull
            return column.notna()


def describe_data(name: str) -> dict[str, Any]:
    """Describe a table of the notebook's data: shape, columns, types, missing
    values and statistics of each column.

    Args:
        name: A data name or a tool result's ref.
    """
    frame = _table(name)
    summary = summarize(_store()[name], ref=name)
    summary["missing"] = {str(c): int(n) for c, n in frame.isna().sum().items() if n}
    summary["stats"] = frame.describe(include="all").T  # kept by reference, summarized
    return summary


def preview_rows(
    name: str, offset: int = 0, limit: int = 20, columns: list[str] | None = None
) -> dict[str, Any]:
    """Read a few rows of a table (at most 50): use it to look at values, not to copy data.

    Args:
        name: A data name or a tool result's ref.
        offset: The first row's position.
        limit: How many rows (at most 50).
        columns: Only these columns (default: all).
    """
    frame = _table(name)
    if columns:
        frame = frame[[_column(frame, c).name for c in columns]]
    limit = max(0, min(limit, MAX_PREVIEW))
    offset = max(0, offset)
    names, rows = table_rows(frame, slice(offset, offset + limit))
    return {"ref": name, "offset": offset, "total_rows": len(frame), "columns": names, "rows": rows}


def query_data(
    name: str,
    filters: list[Filter] | None = None,
    group_by: list[str] | None = None,
    aggregations: list[Aggregation] | None = None,
    sort: list[SortKey] | None = None,
    columns: list[str] | None = None,
    limit: int | None = None,
) -> Any:
    """Filter, group, aggregate and sort a table; the result is a new reference
    (show it with a component's data prop instead of copying rows).

    Args:
        name: A data name or a tool result's ref.
        filters: Rows kept where every filter holds.
        group_by: Group by these columns (then give aggregations).
        aggregations: Per group (or over all rows): a function of a column.
        sort: Sort by these columns, in order.
        columns: Keep only these columns (before grouping).
        limit: Keep the first rows only.
    """
    import pandas as pd

    frame = _table(name)
    for f in filters or []:
        frame = frame[_mask(frame, f)]
    if columns:
        frame = frame[[_column(frame, c).name for c in columns]]
    if aggregations:
        spec = {
            a.name or f"{a.column}_{a.func}": pd.NamedAgg(
                column=_column(frame, a.column).name, aggfunc=a.func
            )
            for a in aggregations
        }
        if group_by:
            keys = [_column(frame, c).name for c in group_by]
            frame = frame.groupby(keys, dropna=False).agg(**spec).reset_index()
        else:
            frame = pd.DataFrame(
                {out: [frame[agg.column].agg(agg.aggfunc)] for out, agg in spec.items()}
            )
    elif group_by:
        keys = [_column(frame, c).name for c in group_by]
        frame = frame.groupby(keys, dropna=False).size().reset_index(name="count")
    if sort:
        keys = [_column(frame, s.column).name for s in sort]
        frame = frame.sort_values(keys, ascending=[not s.descending for s in sort], kind="stable")
    if limit is not None:
        frame = frame.head(max(0, limit))
    return frame.reset_index(drop=True)


def data_tools() -> list[Tool]:
    """The built-in data tools: ``describe_data``, ``preview_rows`` and
    ``query_data``; they read the conversation's data (``runtime.data``)."""
    return [tool(describe_data), tool(preview_rows), tool(query_data)]
