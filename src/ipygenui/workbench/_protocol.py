"""The workbench's wire messages, defined once, here (its JavaScript side,
``js/src/workbench/protocol-wire.generated.js``, is generated from these
models by ``make protocol``; ``js/src/workbench/protocol.js`` re-exports it).

From the browser: ``check_props`` (the props text the user typed, for one
component) and ``replay`` (props to stream, and the chunk size). To it:
``props_checked`` and ``replay_states``. Each request carries a ``ref`` its
answer echoes, so the browser drops an answer to an older edit.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic reads these (the wire's schema) on 3.11

__all__ = [
    "CLIENT_MESSAGES",
    "MAX_CHUNK_CHARS",
    "MAX_PROPS_TEXT",
    "SERVER_MESSAGES",
    "CheckPropsMsg",
    "PropsCheckedMessage",
    "ReplayMsg",
    "ReplayStatesMessage",
    "props_checked_message",
    "read_request",
    "replay_states_message",
]

MAX_PROPS_TEXT = 200_000
"""Characters of props the browser may send (the editor's text)."""

MAX_CHUNK_CHARS = 10_000

Ref = Annotated[int, Field(ge=0)]


class _Request(BaseModel):
    ref: Ref
    name: str = Field(max_length=200)
    text: str = Field(max_length=MAX_PROPS_TEXT)
    """The props as JSON text."""


class CheckPropsMsg(_Request):
    """Check the props the user typed for one component (answered by ``props_checked``)."""

    type: Literal["check_props"]


class ReplayMsg(_Request):
    """Stream the props in chunks of ``chunk_chars`` (0: the whole text at once),
    as a model would (answered by ``replay_states``)."""

    type: Literal["replay"]
    chunk_chars: Annotated[int, Field(ge=0, le=MAX_CHUNK_CHARS)] = 0


Request = Annotated[CheckPropsMsg | ReplayMsg, Field(discriminator="type")]
CLIENT_MESSAGES: tuple[type[_Request], ...] = get_args(get_args(Request)[0])

_requests: TypeAdapter[CheckPropsMsg | ReplayMsg] = TypeAdapter(Request)


def read_request(content: Any) -> CheckPropsMsg | ReplayMsg | None:
    """A browser request, or None for anything else (it changes nothing)."""
    try:
        return _requests.validate_python(content)
    except ValidationError:
        return None


class PropsCheckedMessage(BaseModel):
    """The props parsed and checked; ``error``: what is wrong with them, or null."""

    type: Literal["props_checked"] = "props_checked"
    ref: Ref
    name: str
    props: Any
    error: str | None


@with_config(ConfigDict(extra="allow"))
class ReplayState(TypedDict):
    """What the component shows after one more chunk (``StreamState.as_json()``)."""

    text: str
    complete: bool


class ReplayStatesMessage(BaseModel):
    """The states a streamed replay goes through; ``error``: the props' problem, or null."""

    type: Literal["replay_states"] = "replay_states"
    ref: Ref
    name: str
    states: list[ReplayState]
    error: str | None


SERVER_MESSAGES = (PropsCheckedMessage, ReplayStatesMessage)


def props_checked_message(ref: int, name: str, props: Any, error: str | None) -> dict[str, Any]:
    return dict(PropsCheckedMessage.model_construct(ref=ref, name=name, props=props, error=error))


def replay_states_message(
    ref: int, name: str, states: list[dict[str, Any]], error: str | None
) -> dict[str, Any]:
    built = ReplayStatesMessage.model_construct(
        ref=ref, name=name, states=cast(list[ReplayState], states), error=error
    )
    return dict(built)
