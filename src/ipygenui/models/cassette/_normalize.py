"""A request in the form a cassette keeps and matches: ids and our private keys out.

Tool call ids (the model's, or fresh ones the runtime gave a repeated id)
become ``call_1``, ``call_2``... in order of appearance, in the calls, the
tool messages, and wherever a long one appears in text (a component's
``update_component_<id>`` tool, its ``<component_state>`` block). Keys
starting with ``_`` (provider data riding on the history) are dropped. What
is left is the messages, the tools and the settings (``tool_choice``,
``max_tokens``, ``purpose``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ...tools.component_names import component_id_of
from ..base import ModelRequest

_MIN_FREE_ID = 8
"""An id shorter than this is replaced only where it is an id ("0" is no name)."""


def _call_ids(messages: list[dict[str, Any]]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for entry in messages:
        found = [c.get("id") for c in entry.get("tool_calls") or () if isinstance(c, dict)]
        found.append(entry.get("tool_call_id"))
        for call_id in found:
            if isinstance(call_id, str) and call_id not in ids:
                ids[call_id] = f"call_{len(ids) + 1}"
    return ids


def _replacer(ids: dict[str, str]) -> Any:
    pairs: list[tuple[str, str]] = []
    for old, new in ids.items():
        for form in {old, component_id_of(old)}:
            if len(form) >= _MIN_FREE_ID:
                pairs.append((form, new))
    pairs.sort(key=lambda pair: -len(pair[0]))  # a longer id first: one may prefix another

    def replace(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in pairs:
                if old in value:
                    value = value.replace(old, new)
            return value
        if isinstance(value, dict):
            return {k: replace(v) for k, v in value.items() if not str(k).startswith("_")}
        if isinstance(value, list):
            return [replace(v) for v in value]
        return value

    return replace


def normalize(request: ModelRequest) -> dict[str, Any]:
    """The request as a cassette keeps it (plain JSON values, a copy)."""
    messages = json.loads(json.dumps(request.messages, default=str))
    tools = json.loads(json.dumps(request.tools, default=str))
    ids = _call_ids(messages)
    for entry in messages:
        for call in entry.get("tool_calls") or ():
            if isinstance(call, dict) and call.get("id") in ids:
                call["id"] = ids[call["id"]]
        if entry.get("tool_call_id") in ids:
            entry["tool_call_id"] = ids[entry["tool_call_id"]]
    replace = _replacer(ids)
    return {
        "messages": replace(messages),
        "tools": replace(tools),
        "tool_choice": replace(request.tool_choice),
        "max_tokens": request.max_tokens,
        "purpose": request.purpose,
    }


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def tool_results(normalized: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(call id, content)`` of each tool message, in order."""
    return [
        (str(m.get("tool_call_id")), m.get("content"))
        for m in normalized.get("messages") or ()
        if isinstance(m, dict) and m.get("role") == "tool"
    ]


def shape_key(normalized: dict[str, Any]) -> str:
    """A digest of the request with its tool results left out: two requests
    with equal keys differ at most in what today's tools returned."""
    messages = [
        {**m, "content": None} if isinstance(m, dict) and m.get("role") == "tool" else m
        for m in normalized.get("messages") or ()
    ]
    return _digest({**normalized, "messages": messages})


def tool_names(normalized: dict[str, Any]) -> dict[str, str]:
    """Call id -> the tool's name, from the assistant messages."""
    names: dict[str, str] = {}
    for m in normalized.get("messages") or ():
        for call in (m.get("tool_calls") or ()) if isinstance(m, dict) else ():
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                names[str(call.get("id"))] = str(call["function"].get("name"))
    return names
