"""Follow-up suggestions: the prompt that asks for them and the parser of the reply."""

from __future__ import annotations

import json
import re

MAX_SUGGESTIONS = 3

SUGGESTIONS_PROMPT = (
    "Suggest up to 3 short follow-up messages the user might send next in this "
    "conversation, written as the user would type them. Reply with a JSON array of "
    "strings and nothing else."
)

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def parse_suggestions(text: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Read a JSON array of strings, or else one suggestion per line.

    Bullets, numbering and wrapping quotes are removed; blanks and
    duplicates dropped; at most ``limit`` kept.
    """
    text = text.strip()
    if text.startswith("```"):  # a fenced block: drop the fence lines
        text = "\n".join(line for line in text.splitlines() if not line.startswith("```"))
    items: list[str]
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, list):
        items = [str(v) for v in value if isinstance(v, str | int | float)]
    else:
        items = [_BULLET.sub("", line) for line in text.splitlines()]
    out: list[str] = []
    for item in items:
        item = item.strip().strip('"').strip()
        if item and item not in out:
            out.append(item)
    return out[:limit]
