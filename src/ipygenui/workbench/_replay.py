"""Streaming replay: a component's props as a model streams them.

The props' JSON text is cut into chunks (``chunk_chars`` characters each, or
the whole text at once as some providers send it) and fed to the kernel's
own partial-JSON parser (``_internal/partial_json.py``); each chunk gives one
state: the text so far, the props the component receives, and which fields
are still streaming.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .._internal.partial_json import PartialJSONParser

__all__ = ["MAX_REPLAY_CHARS", "MAX_STATES", "ReplayState", "chunk_text", "replay_states"]

MAX_STATES = 2_000
"""States a replay keeps (a longer text is cut into larger chunks)."""
MAX_REPLAY_CHARS = 4_000_000
"""Characters of text a replay's states hold together (each holds the text
so far, so a long text is cut into fewer, larger chunks): 200,000 characters
in 1-character chunks make 20 states, not 2,000 holding 200 MB."""


@dataclass(frozen=True)
class ReplayState:
    text: str
    """The arguments' text received so far."""
    props: Any
    """The parser's value after this chunk (``None`` before anything parsed)."""
    fields: dict[str, str]
    """Field path -> ``"streaming"`` / ``"complete"`` (the parser's ``field_status``)."""
    complete: bool
    """Whether the text is one whole JSON value."""

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "props": self.props,
            "fields": self.fields,
            "complete": self.complete,
        }


def chunk_text(text: str, chunk_chars: int | None) -> list[str]:
    """``text`` in chunks of ``chunk_chars`` (``None`` or 0: one chunk, the whole
    text), larger ones when that would make more than ``MAX_STATES`` states or
    states holding more than ``MAX_REPLAY_CHARS`` characters in all."""
    if not chunk_chars or chunk_chars >= len(text):
        return [text] if text else []
    if chunk_chars < 0:
        raise ValueError(f"chunk_chars must be positive, got {chunk_chars}")
    states = max(1, min(MAX_STATES, MAX_REPLAY_CHARS // len(text)))
    size = max(chunk_chars, -(-len(text) // states))
    return [text[i : i + size] for i in range(0, len(text), size)]


def replay_states(chunks: list[str]) -> list[ReplayState]:
    """One state per chunk, as the kernel's parser reads them in turn."""
    parser = PartialJSONParser()
    states: list[ReplayState] = []
    seen = ""
    for chunk in chunks:
        parser.feed(chunk)
        seen += chunk
        states.append(
            ReplayState(
                text=seen,
                props=copy.deepcopy(parser.value),  # the parser's value is live
                fields=dict(parser.field_status()),
                complete=parser.done,
            )
        )
    return states
