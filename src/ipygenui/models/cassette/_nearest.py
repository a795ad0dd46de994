"""A miss said in plain words: what was asked, and the nearest recorded requests."""

from __future__ import annotations

import difflib
from typing import Any

from ._read import Entry

_SHOWN = 3


def _last_user(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages") or ()):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return " ".join(str(content or "").split())
    return ""


def _quote(text: str, limit: int = 70) -> str:
    return f"“{text[: limit - 1]}…”" if len(text) > limit else f"“{text}”"


def _where(entry: Entry, asked: dict[str, Any]) -> str:
    """How a recorded request differs from the one asked, in a few words."""
    mine, theirs = asked.get("messages") or [], entry.request.get("messages") or []
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            role = a.get("role", "?") if isinstance(a, dict) else "?"
            return f"differs from message {i + 1} on (the {role} message)"
    if len(mine) != len(theirs):
        return f"has {len(theirs)} messages where this request has {len(mine)}"
    if asked.get("tools") != entry.request.get("tools"):
        return "offers other tools"
    return "has other settings (tool choice, token limit or purpose)"


def nearest(entries: list[Entry], asked: dict[str, Any]) -> list[tuple[float, Entry]]:
    text = _last_user(asked)
    count = len(asked.get("messages") or ())
    scored = []
    for entry in entries:
        ratio = difflib.SequenceMatcher(None, text[:500], _last_user(entry.request)[:500]).ratio()
        steps = abs(count - len(entry.request.get("messages") or ()))
        scored.append((ratio - 0.05 * min(steps, 10), entry))
    scored.sort(key=lambda pair: -pair[0])
    return scored[:_SHOWN]


def miss_text(name: str, entries: list[Entry], asked: dict[str, Any]) -> str:
    lines = [
        f"{name} has no recorded answer to this request, so nothing the recorded model "
        f"said fits here. Asked: {_quote(_last_user(asked) or '(no user message)')}."
    ]
    if not entries:
        lines.append("The cassette holds no recorded requests.")
        return "\n\n".join(lines)
    lines.append(f"The cassette holds {len(entries)} recorded requests; the nearest:")
    lines += [
        f"- {_quote(_last_user(e.request) or '(no user message)')} (line {e.line}): "
        f"{_where(e, asked)}"
        for _, e in nearest(entries, asked)
    ]
    listed = "\n\n".join(lines[:2]) + "\n" + "\n".join(lines[2:])
    # a paragraph of its own, not the last list item's tail
    advice = "Send one of those, or record this conversation with gu.record(model, path)."
    return f"{listed}\n\n{advice}"
