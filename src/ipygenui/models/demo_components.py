"""What the offline demo model says after the components it showed: one
sentence each, from their props ("The line chart “Visitors” shows 2025 and
2026 from Jan to Aug; the highest is 2026 in Aug (96).").

A real assistant says what the component shows, and for a form what to do
with it; it never says only "Done". The props come from a model (untrusted):
anything may be missing or of another type, and every text is escaped as
``_demo_results.plain`` does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from ._demo_results import code, plain, result_sentence, tool_results, weather_parts
from .base import ModelRequest

UI_PREFIX = "show_component_"
_RENDERED = re.compile(r"Component .+ was rendered\.?")
"""A UI tool's result when the component showed (``ComponentTool``)."""
_INTERNAL_REF = re.compile(r"(?:df|series|array|fig|result)_\d+")
"""The chat data's internal references (as ``components.builtins`` knows them): no title."""
_LISTED = 3
_CURRENCY = ("$", "€", "£", "¥")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.MULTILINE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}", re.MULTILINE)


def _text(value: Any, limit: int = 60) -> str:
    return plain(value.strip(), limit) if isinstance(value, str) and value.strip() else ""


def _quoted(value: Any) -> str:
    text = _text(value)
    return f"“{text}”" if text else ""


def _number(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return f"{value:,}" if isinstance(value, int) else f"{value:,.6g}"


def _list(props: Mapping[str, Any], key: str) -> list[Any]:
    value = props.get(key)
    return value if isinstance(value, list) else []


def _words(name: str) -> str:
    """A name as words: "start_date" / "SalesChart" -> "start date" / "sales chart"."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return " ".join(re.split(r"[_\-\s]+", spaced)).strip().lower()


def _and(items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _with_title(kind: str, props: Mapping[str, Any]) -> str:
    title = _quoted(props.get("title"))
    return f"{kind} {title}" if title else kind


def _markdown(props: Mapping[str, Any]) -> str:
    text = props.get("text")
    text = text if isinstance(text, str) else ""
    heading = _HEADING.search(text)
    what = f"the notes on {_quoted(heading.group(1))}" if heading else "that as formatted text"
    has = []
    points = len(_LIST_ITEM.findall(text))
    if points:
        has.append(f"{points} point{'s' if points != 1 else ''}")
    tables = len(_TABLE_RULE.findall(text))
    if tables:
        has.append("a table" if tables == 1 else f"{tables} tables")
    return f"Here are {what}{': ' + _and(has) if has else ''}."


def _rows(props: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    rows = props.get("rows")
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []


def _is_identifier(column: str) -> bool:
    return bool(re.fullmatch(r"(?i)id|.*[_ ]id|year|zip(?:code)?", column))


def _table(props: Mapping[str, Any]) -> str:
    source = props.get("data") or props.get("dataframe")
    table = _with_title("The table", props)
    if isinstance(source, str) and source:
        if _INTERNAL_REF.fullmatch(source):
            return f"{table} holds every row of the result; click a column to sort it."
        return (
            f"{table} shows every row of your notebook's {code(source)}; click a column to sort it."
        )
    rows = _rows(props)
    if not rows:
        return f"{table} is empty."
    size = f"{len(rows):,} row{'s' if len(rows) != 1 else ''}"
    columns = list(rows[0])
    numbers = [
        c for c in columns if not _is_identifier(str(c)) and all(_number(r.get(c)) for r in rows)
    ]
    names = [c for c in columns if all(isinstance(r.get(c), str) for r in rows)]
    if len(rows) < 2 or not numbers or not names:
        return f"{table} has {size}."
    top = max(rows, key=lambda r: r[numbers[0]])
    most = f"{_text(top[names[0]])} has the most {_text(_words(str(numbers[0])), 30)}"
    return f"{table} has {size}; {most} ({_number(top[numbers[0]])})."


def _metric(props: Mapping[str, Any]) -> str:
    said = []
    metrics = _list(props, "metrics")
    for item in [m for m in metrics if isinstance(m, Mapping)][:_LISTED]:
        value = _number(item.get("value")) or _text(item.get("value"), 30) or "…"
        unit = _text(item.get("unit"), 12)
        amount = f"{unit}{value}" if unit in _CURRENCY else f"{value} {unit}".strip()
        said.append(f"{_text(item.get('label'), 30) or 'a value'} {amount}")
        delta = _number(item.get("delta"))
        if delta is not None:
            direction = "down" if delta.startswith("-") else "up"
            per = _text(item.get("delta_unit"), 12)
            per = per if per in ("", "%") else f" {per}"
            said[-1] += f" ({direction} {delta.lstrip('-')}{per})"
    if not said:
        return "The metric cards are empty."
    title = _text(props.get("title"))
    more = len(metrics) - len(said)
    rest = f", and {more} more" if more > 0 else ""
    return f"{title + ': ' if title else ''}{_and(said)}{rest}."


def _peak(x: list[Any], series: list[tuple[str, list[Any]]]) -> str:
    """ "the highest is 2026 in Aug (96)", or "" when there are no numbers."""
    best: tuple[float, str, Any] | None = None
    for name, values in series:
        for i, value in enumerate(values[: len(x)]):
            if _number(value) and (best is None or value > best[0]):
                best = (value, name, x[i])
    if best is None:
        return ""
    who = f"{best[1]} " if len(series) > 1 and best[1] else ""
    return f"; the highest is {who}in {_text(str(best[2]), 30)} ({_number(best[0])})"


def _chart(props: Mapping[str, Any]) -> str:
    kind = props.get("kind") if props.get("kind") in ("line", "bar") else "line"
    chart = _with_title(f"The {kind} chart", props)
    raw = _list(props, "series")
    series = [
        (_text(s.get("name"), 30), s["values"])
        for s in raw
        if isinstance(s, Mapping) and isinstance(s.get("values"), list)
    ]
    x = _list(props, "x")
    if not series or not x:
        source = props.get("data")
        if isinstance(source, str) and not _INTERNAL_REF.fullmatch(source):
            return f"{chart} plots your notebook's {code(source)}."
        return f"{chart} plots the data." if source else f"{chart} is empty."
    shows = _and([name for name, _ in series[:_LISTED] if name]) or "its values"
    span = f"from {_text(str(x[0]), 30)} to {_text(str(x[-1]), 30)}"
    return f"{chart} shows {shows} {span}{_peak(x, series)}."


def _image(props: Mapping[str, Any]) -> str:
    about = _text(props.get("alt")) or _text(props.get("caption"))
    return f"Here's the image: {about}." if about else "Here's the image."


def _field_name(field: Mapping[str, Any]) -> str:
    return _text(field.get("label"), 30) or _text(_words(str(field.get("name", ""))), 30)


def _form(props: Mapping[str, Any]) -> str:
    raw = _list(props, "fields")
    fields = [f for f in raw if isinstance(f, Mapping)]
    names = [n for n in (_field_name(f) for f in fields[:_LISTED]) if n]
    if len(fields) > _LISTED:
        names.append(f"{len(fields) - _LISTED} more")
    listed = f" ({_and(names).lower()})" if names else ""
    button = _text(props.get("submit_label"), 30) or "Submit"
    form = _with_title("the form", props)
    return (
        f"Fill in {form} above{listed} and press **{button}**: "
        "your answers come to me as your next message."
    )


def _custom(name: str, props: Mapping[str, Any]) -> str:
    """A component the notebook defined: its name in words, and what its props say."""
    kind = _text(_words(name), 40) or "component"
    weather = weather_parts({}, props)
    if weather is not None:
        conditions, city = weather
        return f"Here's the {kind}{f' for {city}' if city else ''}: {conditions}."
    labels = next((v for v in props.values() if _all(v, str)), None)
    values = [(k, v) for k, v in props.items() if _all(v, int | float)]
    if labels and values:
        series = [(_text(_words(str(k)), 30), v) for k, v in values[:1]]
        shown = _with_title(f"The {kind}", props)
        span = f"from {_text(labels[0], 30)} to {_text(labels[-1], 30)}"
        return f"{shown} shows {series[0][0]} {span}{_peak(labels, series)}."
    title = _quoted(props.get("title")) or _quoted(props.get("name"))
    return f"Here's the {kind}{' ' + title if title else ''}."


def _all(value: Any, kind: type | Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)
    )


_BUILTIN = {
    "Markdown": _markdown,
    "Table": _table,
    "Metric": _metric,
    "Chart": _chart,
    "Image": _image,
    "Form": _form,
}


def component_sentence(tool_name: str, props: Mapping[str, Any]) -> str:
    """One sentence about a shown component, from its tool's name and props."""
    name = tool_name.removeprefix(UI_PREFIX)
    props = {k: v for k, v in props.items() if k not in (STATUS_PARAM, COMPLETION_PARAM)}
    describe = _BUILTIN.get(name)
    return describe(props) if describe is not None else _custom(name, props)


def components_reply(request: ModelRequest) -> str:
    """The answer to the results of the last step's component calls: a sentence
    for each component shown, what went wrong for one that did not show."""
    said = []
    for name, args, content in tool_results(request):
        if name.startswith(UI_PREFIX) and _RENDERED.fullmatch(content.strip()):
            said.append(component_sentence(name, args))
        else:
            said.append(result_sentence(name, args, content))
    return "\n\n".join(said) or "Done."
