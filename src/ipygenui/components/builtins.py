"""Built-in components: Markdown, Table, Metric, Chart, Image and Form.

Each is a ``Component`` whose renderer is a small module of the widget bundle
(``js/src/components/<id>.js``). ``Table`` can show a kernel DataFrame by
variable name, so the data never passes through the model; ``Form`` is
interactable: its values become the component's state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..tools import to_jsonable
from .component import Component

__all__ = [
    "BUILTINS",
    "Chart",
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
"""Rows of a kernel DataFrame sent to the browser (the rest are counted, not sent)."""


class TableProps(_Props):
    title: str | None = Field(None, description="Caption above the table")
    columns: list[str] = Field(
        default_factory=list, description="Column names (taken from the rows' keys when empty)"
    )
    rows: list[dict[str, Any]] = Field(
        default_factory=list, description="One object per row, keyed by column name"
    )
    dataframe: str | None = Field(
        None,
        description="Name of a pandas DataFrame variable in the user's notebook to show "
        "instead of rows (the data stays in the notebook)",
    )

    @model_validator(mode="after")
    def _rows_or_dataframe(self) -> TableProps:
        if self.dataframe is not None and self.rows:
            raise ValueError("give rows or dataframe, not both")
        return self


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
    """Columns and the first ``max_rows`` rows of a DataFrame as JSON data."""
    head = frame.head(max_rows)
    head = head.astype(object).where(head.notna(), None)  # NaN is not JSON
    columns = [str(c) for c in head.columns]
    rows = [dict(zip(columns, row, strict=True)) for row in head.itertuples(index=False)]
    return {
        "columns": columns,
        "rows": to_jsonable(rows),
        "total_rows": len(frame),
        "truncated": len(frame) > max_rows,
    }


class TableComponent(Component):
    """The sortable Table; ``dataframe=`` names a DataFrame in ``namespace``."""

    def __init__(
        self,
        name: str = "Table",
        *,
        namespace: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
        description: str = "A sortable table of rows, or of a DataFrame in the user's notebook "
        "given by its variable name.",
    ) -> None:
        super().__init__(name, TableProps, description=description, builtin="table")
        self._namespace = namespace

    def namespace(self) -> Mapping[str, Any]:
        ns = self._namespace
        if ns is None:
            return user_namespace()
        return ns() if callable(ns) else ns

    def _frame(self, name: str) -> Any:
        ns = self.namespace()
        value = ns.get(name)
        if value is None or not (hasattr(value, "columns") and hasattr(value, "head")):
            frames = sorted(
                k for k, v in ns.items() if not k.startswith("_") and hasattr(v, "columns")
            )
            known = ", ".join(frames) if frames else "none"
            raise ValueError(
                f"dataframe: no DataFrame named {name!r} in the notebook (DataFrames: {known})"
            )
        return value

    def check(self, props: BaseModel) -> None:
        assert isinstance(props, TableProps)
        if props.dataframe is not None:
            self._frame(props.dataframe)

    def resolve(self, props: BaseModel) -> dict[str, Any] | None:
        assert isinstance(props, TableProps)
        if props.dataframe is None:
            return None
        return frame_data(self._frame(props.dataframe))


# --- Metric -------------------------------------------------------------------


class MetricItem(_Props):
    label: str
    value: str | float
    unit: str | None = None
    delta: float | None = Field(None, description="Change since the previous period")
    caption: str | None = None


class MetricProps(_Props):
    title: str | None = None
    metrics: list[MetricItem] = Field(description="KPI cards, shown side by side")


# --- Chart --------------------------------------------------------------------


class ChartSeries(_Props):
    name: str
    values: list[float | None]


class ChartProps(_Props):
    kind: Literal["line", "bar"] = "line"
    title: str | None = None
    x: list[str | float] = Field(description="The x values (labels or numbers)")
    series: list[ChartSeries] = Field(description="One or more series, each one value per x")
    x_label: str | None = None
    y_label: str | None = None

    @model_validator(mode="after")
    def _lengths(self) -> ChartProps:
        for i, s in enumerate(self.series):
            if len(s.values) != len(self.x):
                raise ValueError(
                    f"series.{i}.values has {len(s.values)} values but x has {len(self.x)}"
                )
        return self


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
    type: Literal["text", "number", "textarea", "select", "checkbox", "date"] = "text"
    options: list[str] | None = Field(None, description="Choices of a select field")
    required: bool = False
    default: str | float | bool | None = None


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
Chart = Component(
    "Chart",
    ChartProps,
    description="A line or bar chart of one or more series over shared x values.",
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
