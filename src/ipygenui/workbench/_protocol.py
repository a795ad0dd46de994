"""The workbench's wire messages (its JavaScript side: ``js/src/workbench/protocol.js``).

From the browser: ``check_props`` (the props text the user typed, for one
component) and ``replay`` (props to stream, and the chunk size). To it:
``props_checked`` and ``replay_states``. Each request carries a ``ref`` its
answer echoes, so the browser drops an answer to an older edit.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError

__all__ = [
    "MAX_CHUNK_CHARS",
    "MAX_PROPS_TEXT",
    "CheckPropsMsg",
    "ReplayMsg",
    "props_checked_message",
    "read_request",
    "replay_states_message",
]

MAX_PROPS_TEXT = 200_000
"""Characters of props the browser may send (the editor's text)."""

MAX_CHUNK_CHARS = 10_000


class _Request(BaseModel):
    ref: int = Field(ge=0)
    name: str = Field(max_length=200)
    text: str = Field(max_length=MAX_PROPS_TEXT)
    """The props as JSON text."""


class CheckPropsMsg(_Request):
    type: Literal["check_props"]


class ReplayMsg(_Request):
    type: Literal["replay"]
    chunk_chars: Annotated[int, Field(ge=0, le=MAX_CHUNK_CHARS)] = 0
    """0: the whole text at once."""


def read_request(content: Any) -> CheckPropsMsg | ReplayMsg | None:
    """A browser request, or None for anything else (it changes nothing)."""
    kind = content.get("type") if isinstance(content, dict) else None
    model: type[CheckPropsMsg] | type[ReplayMsg]
    if kind == "check_props":
        model = CheckPropsMsg
    elif kind == "replay":
        model = ReplayMsg
    else:
        return None
    try:
        return model.model_validate(content)
    except ValidationError:
        return None


def props_checked_message(ref: int, name: str, props: Any, error: str | None) -> dict[str, Any]:
    return {"type": "props_checked", "ref": ref, "name": name, "props": props, "error": error}


def replay_states_message(
    ref: int, name: str, states: list[dict[str, Any]], error: str | None
) -> dict[str, Any]:
    return {"type": "replay_states", "ref": ref, "name": name, "states": states, "error": error}
