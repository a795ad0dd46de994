"""Token counts a model without a provider estimates (the offline demo).

About four characters a token, rounded up: OpenAI's rule of thumb for English
text. It is deterministic and needs nothing installed, so the same demo
conversation shows the same counts everywhere, a browser kernel included.
``tiktoken`` is not used: its encodings are downloaded on first use, which an
offline kernel cannot do, and an exact count for one provider's tokenizer
would still be an estimate for every other. The usage it makes is marked
``estimated`` and the footer shows it as such.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .base import ModelRequest, UsageDelta

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
"""Tokens a chat API adds per message for its role and separators."""
IMAGE_TOKENS = 85
"""An image part: OpenAI's price of a low-detail image (its data URL is not text)."""


def text_tokens(text: str) -> int:
    """About four characters a token, rounded up; 0 for no text."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _content_tokens(content: Any) -> int:
    if isinstance(content, str):
        return text_tokens(content)
    if not isinstance(content, list):
        return 0
    tokens = 0
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            tokens += IMAGE_TOKENS
        elif isinstance(part.get("text"), str):
            tokens += text_tokens(part["text"])
    return tokens


def _call_tokens(calls: Any) -> int:
    tokens = 0
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            tokens += text_tokens(str(function.get("name", "")))
            tokens += text_tokens(str(function.get("arguments", "")))
    return tokens


def request_tokens(request: ModelRequest) -> int:
    """The input tokens of ``request``: every message's text, tool calls and
    results, and the tool schemas (a provider bills those too)."""
    tokens = 0
    for entry in request.messages:
        tokens += MESSAGE_OVERHEAD + _content_tokens(entry.get("content"))
        tokens += _call_tokens(entry.get("tool_calls"))
    if request.tools:
        tokens += text_tokens(json.dumps(request.tools, separators=(",", ":")))
    return tokens


def reply_usage(request: ModelRequest, reasoning: str, text: str, calls: list[Any]) -> UsageDelta:
    """The estimated usage of a reply that streams ``reasoning``, ``text`` and
    ``calls`` (``(name, argument text)`` pairs) in answer to ``request``."""
    thinking = text_tokens(reasoning)
    output = thinking + text_tokens(text)
    output += sum(text_tokens(name) + text_tokens(arguments) for name, arguments in calls)
    return UsageDelta(
        input_tokens=request_tokens(request),
        output_tokens=output,
        reasoning_tokens=thinking,
        estimated=True,
    )
