"""Follow-up suggestions: the prompt that asks for them, the request, the reply parser."""

from __future__ import annotations

import asyncio
import json
import logging
import re

from ...messages import Thread
from ...models.base import Model, ModelRequest, TextDelta
from ...models.history import to_openai_messages
from ..prompts import system_prompt

logger = logging.getLogger("ipygenui")

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


async def ask_for_suggestions(
    model: Model, thread: Thread, instructions: str | None
) -> list[str] | None:
    """Ask ``model`` what the user might send next; None when that fails.

    The request is the thread's history plus one user message asking for
    suggestions, with no tools.
    """
    history = to_openai_messages(thread, system_prompt(instructions))
    request = ModelRequest(
        messages=[*history, {"role": "user", "content": SUGGESTIONS_PROMPT}],
        tools=[],
        tool_choice="none",
        purpose="suggestions",
    )
    text = ""
    try:
        async for delta in model.stream(request):
            if isinstance(delta, TextDelta):
                text += delta.text
    except asyncio.CancelledError:
        raise
    except Exception:  # suggestions are a nicety: never disturb the chat
        logger.warning("suggestions failed", exc_info=True)
        return None
    return parse_suggestions(text)
