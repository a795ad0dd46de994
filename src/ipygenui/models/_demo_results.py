"""What the offline demo model says about a tool's result: one short sentence.

A real assistant reads a result and answers in words ("It's 21 °C and clear in
Paris."); it never pastes the JSON back. The result is untrusted text (a tool,
an MCP server): it is cut to one line and its markdown escaped, so it shows
as written and cannot restyle the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .base import ModelRequest

REJECTED = "The user rejected this tool call"
"""How a rejection's result starts (``_loop.decisions.reject``)."""

TEXT_LIMIT = 240
"""Characters of a result's text the reply quotes: one line on a laptop."""

_FIELDS_SHOWN = 4
_BUDGET_NOTICE = re.compile(r"\n\[… [\d,]+ more characters not shown\]$")
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>~|#])")
_LINE_START = re.compile(r"^([-+>=]|\d+[.)])")
_SENTENCE_END = (".", "!", "?", "…", ")")

_CITY_KEYS = ("city", "location", "place", "name")
_CELSIUS_KEYS = ("temperature_c", "temp_c", "celsius", "temperature", "temp")
_FAHRENHEIT_KEYS = ("temperature_f", "temp_f", "fahrenheit")
_PYTHON_KEYS = {"stdout", "names", "names_omitted", "value", "figures"}
"""A ``run_python`` result's keys (``tools.code.run_code``)."""
_SKY_KEYS = ("sky", "conditions", "condition", "description", "summary", "weather")


def plain(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` on one line, cut between words with an ellipsis when long, its
    markdown escaped so it reads as written."""
    line = " ".join(text.split())
    if len(line) > limit:
        head = line[: limit + 1]  # one more: a space there ends a whole word
        line = (head.rsplit(" ", 1)[0] if " " in head[1:] else line[:limit]) + "…"
    line = _MARKDOWN_INLINE.sub(r"\\\1", line)
    return _LINE_START.sub(r"\\\1", line)


def code(name: str) -> str:
    """A tool's name as inline code (a name with a backtick shown plainly)."""
    return f"`{name}`" if name and "`" not in name else plain(name or "the tool")


def tool_results(request: ModelRequest) -> list[tuple[str, dict[str, Any], str]]:
    """The last step's results, oldest first: ``(tool name, its arguments, content)``."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results: list[tuple[str, str]] = []
    for entry in reversed(request.messages):
        role = entry.get("role")
        if role == "tool":
            results.append((str(entry.get("tool_call_id", "")), str(entry.get("content", ""))))
            continue
        if role == "assistant":
            for call in entry.get("tool_calls") or []:
                function = call.get("function") or {}
                calls[str(call.get("id", ""))] = (
                    str(function.get("name", "")),
                    _arguments(function.get("arguments")),
                )
        break
    return [(*calls.get(call_id, ("", {})), content) for call_id, content in reversed(results)]


def _arguments(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def result_sentence(name: str, args: Mapping[str, Any], content: str) -> str:
    """One sentence about one result, as an assistant would put it."""
    text = _BUDGET_NOTICE.sub("", content)
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = text  # a tool that returned text (an MCP server's, often)
    if isinstance(value, dict) and value.keys() == {"result"}:
        value = value["result"]  # an MCP server's structured wrapper of a plain value
    if isinstance(value, dict):
        return _dict_sentence(name, args, value)
    if isinstance(value, list):
        return _list_sentence(name, value)
    if isinstance(value, str):
        return _text_sentence(name, value)
    return f"{code(name)} returned {plain(json.dumps(value))}."


def _text_sentence(name: str, text: str) -> str:
    if not text.strip():
        return f"{code(name)} finished and returned nothing."
    line = plain(text)
    if line.endswith(_SENTENCE_END) and len(line.split()) > 2:
        return line  # already a sentence: "Saved the note 'x' to notes.txt."
    return f"{code(name)} returned: {line}."


def _dict_sentence(name: str, args: Mapping[str, Any], value: dict[str, Any]) -> str:
    if "error" in value:
        return _error_sentence(name, value["error"])
    weather = _weather_sentence(args, value)
    if weather is not None:
        return weather
    if "ref" in value and isinstance(value.get("shape"), list):
        return _data_sentence(value)
    if name == "run_python" or ("stdout" in value and value.keys() <= _PYTHON_KEYS):
        return _python_sentence(value)
    if isinstance(value.get("text"), str) and value.keys() <= {"text", "images", "content"}:
        return _text_sentence(name, value["text"])  # an MCP result with images beside
    if isinstance(value.get("structured"), dict):
        return _dict_sentence(name, args, value["structured"])
    return _fields_sentence(name, value)


def _error_sentence(name: str, error: Any) -> str:
    if isinstance(error, dict):  # run_python's report: type, message, traceback
        kind, message = error.get("type"), error.get("message")
        error = f"{kind}: {message}" if kind and message else (kind or message or "")
    text = str(error).strip()
    if text.startswith(REJECTED):
        reason = text[len(REJECTED) :].lstrip(":. ").strip()
        if reason:
            return f"OK, I won't run that. You said: *{plain(reason)}*"
        return "OK, I won't run that."
    first = text.splitlines()[0] if text else ""
    if not first:
        return f"{code(name)} failed without saying why."
    sentence = plain(first)
    end = "" if sentence.endswith(_SENTENCE_END) else "."
    return f"That didn't work: {sentence}{end}"


def _first(value: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((value[k] for k in keys if k in value and value[k] not in (None, "")), None)


def _number(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return f"{value:g}" if isinstance(value, float) else str(value)


def _weather_sentence(args: Mapping[str, Any], value: Mapping[str, Any]) -> str | None:
    """ "It's 21 °C and clear in Paris." from a weather-like result, else None."""
    weather = weather_parts(args, value)
    if weather is None:
        return None
    conditions, city = weather
    where = f" in {city}" if city else ""
    if "tomorrow" in (value.get("day"), args.get("day")):  # a forecast
        return f"Tomorrow it will be {conditions}{where}."
    return f"It's {conditions}{where}."


def weather_parts(args: Mapping[str, Any], value: Mapping[str, Any]) -> tuple[str, str] | None:
    """``("21 °C and clear", "Paris")`` from weather-like data (the city may be
    ``""``), escaped as ``plain`` does, else None."""
    degrees = _number(_first(value, _CELSIUS_KEYS))
    unit = "°C"
    if degrees is None:
        degrees, unit = _number(_first(value, _FAHRENHEIT_KEYS)), "°F"
    sky = _first(value, _SKY_KEYS)
    if degrees is None and not isinstance(sky, str):
        return None
    city = _first(value, _CITY_KEYS) or _first(args, _CITY_KEYS)
    if degrees is None and not city:
        return None  # a "description" alone is not the weather
    parts = [f"{degrees} {unit}"] if degrees is not None else []
    if isinstance(sky, str) and sky.strip():
        parts.append(plain(sky.strip().lower(), 60))
    if not parts:
        return None
    where = plain(str(city), 60) if isinstance(city, str) and city.strip() else ""
    return " and ".join(parts), where


def _data_sentence(value: Mapping[str, Any]) -> str:
    shape = value["shape"]
    rows = shape[0] if shape and isinstance(shape[0], int) else 0
    size = f"{rows:,} row{'s' if rows != 1 else ''}"
    if len(shape) > 1 and isinstance(shape[1], int):
        size += f" and {shape[1]:,} column{'s' if shape[1] != 1 else ''}"
    return f"I got a table of {size}, kept in your notebook as {code(str(value['ref']))}."


def _python_sentence(value: Mapping[str, Any]) -> str:
    said = ["The code ran."]
    printed = value.get("stdout")
    if isinstance(printed, str) and printed.strip():
        last = printed.strip().splitlines()[-1]
        said.append(f"It printed: {plain(last, 120)}")
    names = value.get("names")
    if isinstance(names, dict) and names:
        shown = ", ".join(code(str(n)) for n in list(names)[:_FIELDS_SHOWN])
        said.append(f"It defined {shown} in your notebook.")
    figures = value.get("figures")
    if isinstance(figures, list) and figures:
        said.append(f"It drew {len(figures)} figure{'s' if len(figures) > 1 else ''}.")
    return " ".join(s if s.endswith(_SENTENCE_END) else s + "." for s in said)


def _field(value: Any) -> str:
    if isinstance(value, dict):
        return f"{len(value)} field{'s' if len(value) != 1 else ''}"
    if isinstance(value, list):
        return f"{len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, str):
        return plain(value, 40)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return plain(json.dumps(value), 40)


def _fields_sentence(name: str, value: Mapping[str, Any]) -> str:
    if not value:
        return f"{code(name)} returned nothing to show."
    value = {k: v for k, v in value.items() if v is not None} or value
    scalars = [k for k, v in value.items() if not isinstance(v, dict | list)]
    keys = (scalars + [k for k in value if k not in scalars])[:_FIELDS_SHOWN]
    shown = ", ".join(f"{plain(str(k).replace('_', ' '), 30)}: {_field(value[k])}" for k in keys)
    more = len(value) - len(keys)
    rest = f" (and {more} more field{'s' if more != 1 else ''})" if more else ""
    return f"{code(name)} returned {shown}{rest}."


def _list_sentence(name: str, value: list[Any]) -> str:
    if not value:
        return f"{code(name)} found nothing."
    count = f"{len(value)} item{'s' if len(value) != 1 else ''}"
    if all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        shown = ", ".join(_field(v) for v in value[:_FIELDS_SHOWN])
        more = "…" if len(value) > _FIELDS_SHOWN else ""
        return f"{code(name)} returned {count}: {shown}{more}."
    return f"{code(name)} returned {count}."


def results_reply(request: ModelRequest) -> str:
    """The demo's answer to the results of its last tool calls."""
    sentences = [result_sentence(*result) for result in tool_results(request)]
    return "\n\n".join(sentences) or "Done."
