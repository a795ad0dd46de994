"""Built-in components: Markdown, Table, Metric, Chart, Image and Form.

Each is a ``Component`` whose renderer is a small module of the widget bundle
(``js/src/components/<id>.js``). ``Table`` can show a kernel DataFrame by
variable name, so the data never passes through the model; ``Form`` is
interactable: its values become the component's state.

``Markdown`` and ``Image`` have the names of ``IPython.display.Markdown`` /
``Image`` (which display in the notebook; these are offered to the model).
Reach them through the package, ``gu.Markdown`` / ``gu.Image``, as
``widgets.Image`` or ``pn.pane.Markdown`` are, so neither import hides the
other; ``from ipygenui import Markdown`` next to ``from IPython.display import
*`` keeps only the later one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..data import (
    DataRef,
    as_frame,
    current_data,
    is_array,
    is_series,
    is_tabular,
    table_rows,
    type_name,
)
from ..tools import to_jsonable
from .component import Component

__all__ = [
    "BUILTINS",
    "Chart",
    "ChartComponent",
    "ChartProps",
    "Form",
    "FormProps",
    "FormState",
    "Image",
    "ImageProps",
    "Markdown",
    "MarkdownProps",
    "Metric",
    "MetricProps",
    "Table",
    "TableComponent",
    "TableProps",
]


class _Props(BaseModel):
    # defer_build: a schema is built when the model first calls the component,
    # not when ipygenui is imported (start-up, see benchmarks/bench_startup.py)
    model_config = ConfigDict(extra="forbid", defer_build=True)


# --- Markdown -----------------------------------------------------------------


class MarkdownProps(_Props):
    text: str = Field(description="GitHub-flavoured markdown")


# --- Table --------------------------------------------------------------------

MAX_TABLE_ROWS = 1000
"""A table of at most this many rows goes to the browser whole (sorted there);
a longer one in windows the browser asks for (sorted in the kernel)."""

FIRST_WINDOW = 200
"""Rows of a paged table sent with its first screen."""


class TableProps(_Props):
    title: str | None = Field(None, description="Caption above the table")
    columns: list[str] = Field(
        default_factory=list, description="Column names (taken from the rows' keys when empty)"
    )
    rows: list[dict[str, Any]] = Field(
        default_factory=list, description="One object per row, keyed by column name"
    )
    data: DataRef | None = Field(
        None,
        description="Show this data instead of rows: a tool result's `ref` (e.g. 'df_1') or "
        "a name from the data catalogue. The notebook sends every row itself, so prefer "
        "this over copying rows.",
    )
    dataframe: str | None = Field(
        None,
        description="Name of a pandas DataFrame variable in the user's notebook to show "
        "instead of rows (the data stays in the notebook)",
    )

    @model_validator(mode="after")
    def _rows_or_dataframe(self) -> TableProps:
        given = [self.rows != [], self.dataframe is not None, self.data is not None]
        if sum(given) > 1:
            raise ValueError("give rows, data or dataframe: one of them, not both")
        return self

    @property
    def source(self) -> str | None:
        """The data name the table shows, if it shows kernel data."""
        return self.data if self.data is not None else self.dataframe


def user_namespace() -> Mapping[str, Any]:
    """The notebook's variables: IPython's ``user_ns``, else ``__main__``'s globals."""
    try:
        from IPython.core.getipython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        return shell.user_ns
    import __main__

    return vars(__main__)


def frame_data(frame: Any, max_rows: int = MAX_TABLE_ROWS) -> dict[str, Any]:
    """Columns and the first ``max_rows`` rows of a table as JSON data."""
    frame = as_frame(frame)
    columns, rows = table_rows(frame, slice(0, max_rows))
    return {
        "columns": columns,
        "rows": to_jsonable(rows),
        "total_rows": len(frame),
        "truncated": len(frame) > max_rows,
    }


def table_props(obj: Any, name: str) -> dict[str, Any]:
    """What the browser gets for a table of ``obj``: every row when there are at
    most ``MAX_TABLE_ROWS``, else the first window and ``paged`` (it asks for more)."""
    frame = as_frame(obj)
    total = len(frame)
    if total <= MAX_TABLE_ROWS:
        return frame_data(frame)
    columns, rows = table_rows(frame, slice(0, FIRST_WINDOW))
    return {
        "columns": columns,
        "rows": rows,
        "total_rows": total,
        "truncated": False,
        "paged": True,
        "source": name,
    }


_INTERNAL_REF = re.compile(r"(?:df|series|array|fig|result)_\d+")
"""The references the chat's data gives results (``DataStore.add``): not for the reader."""


def is_table(obj: Any) -> bool:
    return is_tabular(obj) or is_series(obj) or is_array(obj)


class TableComponent(Component):
    """The sortable Table; ``data=`` names a reference or data name of the
    conversation, ``dataframe=`` a DataFrame in ``namespace``."""

    def __init__(
        self,
        name: str = "Table",
        *,
        namespace: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
        description: str = "A sortable table of rows, or of data the notebook holds "
        "(a tool result's ref, a data name, or a DataFrame variable).",
    ) -> None:
        super().__init__(name, TableProps, description=description, builtin="table")
        self._namespace = namespace

    def namespace(self) -> Mapping[str, Any]:
        ns = self._namespace
        if ns is None:
            return user_namespace()
        return ns() if callable(ns) else ns

    def _frame(self, name: str) -> Any:
        store = current_data()
        if store is not None and name in store:
            value = store[name]
            if not is_table(value):
                raise ValueError(
                    f"data: {name!r} is a {type_name(value)}, not a table "
                    "(a DataFrame, a Series or an array)"
                )
            return value
        ns = self.namespace()
        value = ns.get(name)
        if value is None or not (hasattr(value, "columns") and hasattr(value, "head")):
            frames = sorted(
                k for k, v in ns.items() if not k.startswith("_") and hasattr(v, "columns")
            )
            known = [*(store.names() if store is not None else []), *frames]
            names = ", ".join(dict.fromkeys(known)) if known else "none"
            raise ValueError(
                f"no DataFrame named {name!r} in the notebook or the conversation's data "
                f"(the names you may use: {names})"
            )
        return value

    def check(self, props: BaseModel) -> None:
        assert isinstance(props, TableProps)
        if props.source is not None:
            self._frame(props.source)

    def resolve(self, props: BaseModel) -> dict[str, Any] | None:
        assert isinstance(props, TableProps)
        if props.source is None:
            return None
        obj = self._frame(props.source)
        resolved = table_props(obj, props.source)
        if props.title is None or props.title == props.data:
            resolved["title"] = self._title(obj, props.source)
        return resolved

    def _title(self, obj: Any, source: str) -> str | None:
        """A caption the user knows: the notebook variable holding ``obj``, or
        the data's name unless it is an internal reference (``df_1``)."""
        try:
            names = [k for k, v in self.namespace().items() if v is obj and k[:1] != "_"]
        except Exception:  # a namespace that cannot be read names nothing
            names = []
        if names:
            return str(names[0])
        return None if _INTERNAL_REF.fullmatch(source) else source

    def source_object(self, props: BaseModel) -> Any:
        """The object a shown table displays (for the browser's windows), or None."""
        assert isinstance(props, TableProps)
        return None if props.source is None else self._frame(props.source)


# --- Metric -------------------------------------------------------------------


class MetricItem(_Props):
    label: str
    value: str | float
    unit: str | None = None
    delta: float | None = Field(None, description="Change since the previous period")
    delta_unit: str | None = Field(
        None, description='Unit of the change, shown after it: "%", "pts", "USD"'
    )
    caption: str | None = None


class MetricProps(_Props):
    title: str | None = None
    metrics: list[MetricItem] = Field(description="KPI cards, shown side by side")


# --- Chart --------------------------------------------------------------------


class ChartSeries(_Props):
    name: str
    values: list[float | None]


MAX_CHART_POINTS = 2_000
"""Points per series a chart of kernel data gets (the first rows)."""


class ChartProps(_Props):
    kind: Literal["line", "bar"] = "line"
    title: str | None = None
    x: list[str | float] = Field(
        default_factory=list, description="The x values (labels or numbers); empty with data"
    )
    series: list[ChartSeries] = Field(
        default_factory=list,
        description="One or more series, each one value per x; empty with data",
    )
    x_label: str | None = None
    y_label: str | None = None
    data: DataRef | None = Field(
        None,
        description="Plot this data instead of x and series: a tool result's `ref` or a data "
        "name; give x_column and y_columns",
    )
    x_column: str | None = Field(None, description="With data: the column of x values")
    y_columns: list[str] = Field(
        default_factory=list, description="With data: the columns to plot, one series each"
    )

    @model_validator(mode="after")
    def _lengths(self) -> ChartProps:
        if self.data is not None:
            if self.x or self.series:
                raise ValueError(
                    "give data (with x_column and y_columns) or x and series, not both"
                )
            if not self.x_column or not self.y_columns:
                raise ValueError("with data, give x_column and y_columns")
            return self
        if not self.series:
            raise ValueError("give series (with x), or data with x_column and y_columns")
        for i, s in enumerate(self.series):
            if len(s.values) != len(self.x):
                raise ValueError(
                    f"series.{i}.values has {len(s.values)} values but x has {len(self.x)}"
                )
        return self


class ChartComponent(Component):
    """The Chart; ``data=`` plots columns of data the conversation holds."""

    def _columns(self, props: ChartProps) -> tuple[Any, list[str]]:
        store = current_data()
        assert props.data is not None and props.x_column is not None
        frame = as_frame(store[props.data]) if store is not None else None
        if frame is None:
            raise ValueError(f"data: no data named {props.data!r}")
        names = [str(c) for c in frame.columns]
        wanted = [props.x_column, *props.y_columns]
        missing = [c for c in wanted if c not in names]
        if missing:
            raise ValueError(
                f"no column {missing[0]!r} in {props.data!r} (columns: {', '.join(names)})"
            )
        return frame, wanted

    def check(self, props: BaseModel) -> None:
        assert isinstance(props, ChartProps)
        store = current_data()
        if props.data is not None and store is not None:  # check_refs ran: the name is known
            value = store[props.data]
            if not is_table(value):
                raise ValueError(f"data: {props.data!r} is a {type_name(value)}, not a table")
            self._columns(props)

    def resolve(self, props: BaseModel) -> dict[str, Any] | None:
        assert isinstance(props, ChartProps)
        if props.data is None:
            return None
        frame, wanted = self._columns(props)
        _, rows = table_rows(frame, slice(0, MAX_CHART_POINTS))
        x_name, *y_names = wanted
        return {
            "x": [r[x_name] for r in rows],
            "series": [{"name": y, "values": [r[y] for r in rows]} for y in y_names],
            "total_rows": len(frame),
            "truncated": len(frame) > MAX_CHART_POINTS,
        }


# --- Image --------------------------------------------------------------------

_DATA_IMAGE = re.compile(r"data:image/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]+")


class ImageProps(_Props):
    src: str = Field(description="An https:// or http:// URL, or a data:image/...;base64 URI")
    alt: str = ""
    caption: str | None = None
    width: int | None = Field(None, ge=1, le=4000, description="Display width in pixels")

    @field_validator("src")
    @classmethod
    def _safe_scheme(cls, src: str) -> str:
        src = src.strip()
        lower = src.lower()
        if lower.startswith(("https://", "http://")) and len(src) > 8:
            return src
        if lower.startswith("data:"):
            if _DATA_IMAGE.fullmatch(src):
                return src
            raise ValueError("a data URI must be data:image/<png|jpeg|gif|webp|svg+xml>;base64,...")
        raise ValueError("src must start with https://, http:// or data:image/")


# --- Form ---------------------------------------------------------------------


class FormField(_Props):
    name: str
    label: str | None = None
    type: Literal["text", "number", "integer", "textarea", "select", "checkbox", "date"] = Field(
        "text", description="number takes decimals, integer whole numbers"
    )
    options: list[str] | None = Field(None, description="Choices of a select field")
    required: bool = False
    default: str | float | bool | None = None
    minimum: float | None = Field(None, description="Lowest value of a number or integer field")
    maximum: float | None = Field(None, description="Highest value of a number or integer field")


class FormProps(_Props):
    title: str | None = None
    fields: list[FormField]
    submit_label: str = "Submit"


class FormState(BaseModel):
    """What the user entered; ``submitted`` once they pressed the button."""

    model_config = ConfigDict(defer_build=True)

    values: dict[str, Any] = Field(default_factory=dict)
    submitted: bool = False


# --- instances ----------------------------------------------------------------

Markdown = Component(
    "Markdown",
    MarkdownProps,
    description="Formatted text: headings, lists, tables, code.",
    builtin="markdown",
)
Table = TableComponent()
Metric = Component(
    "Metric",
    MetricProps,
    description="KPI cards: a few headline numbers with labels, units and changes.",
    builtin="metric",
)
Chart = ChartComponent(
    "Chart",
    ChartProps,
    description="A line or bar chart of one or more series over shared x values, or of "
    "columns of data the notebook holds (data=).",
    builtin="chart",
)
Image = Component(
    "Image", ImageProps, description="An image from a URL or data URI.", builtin="image"
)
Form = Component(
    "Form",
    FormProps,
    description="A form the user fills in; you read their values on the next turn.",
    state=FormState,
    builtin="form",
)

BUILTINS: tuple[Component, ...] = (Markdown, Table, Metric, Chart, Image, Form)
