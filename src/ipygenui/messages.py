"""The thread state: messages, their parts and their status.

Everything here is plain pydantic so a thread round-trips through JSON with
nothing lost, and the widget, the runtime and a saved file share one shape.

``Thread`` and ``Message`` are also at the top level (``gu.Thread``); the
parts, statuses, ``Approval``, ``Feedback`` and ``Usage`` are imported from
here (``from ipygenui.messages import TextPart``). The deltas a model streams
are the model protocol's: ``ipygenui.models`` (this module sits below it).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    model_validator,
)

from ._internal.json_depth import value_depth
from ._internal.message_list import MessageList
from ._internal.sanitize import json_safe
from .errors import BranchError

__all__ = [
    "MAX_PROVIDER_DATA_CHARS",
    "MAX_TOKEN_COUNT",
    "Approval",
    "AttachmentPart",
    "BranchPosition",
    "Complete",
    "Feedback",
    "Fork",
    "Incomplete",
    "Message",
    "MessageStatus",
    "Part",
    "ReasoningPart",
    "RequiresAction",
    "Running",
    "TextPart",
    "Thread",
    "ToolCallPart",
    "Usage",
]


def new_id(prefix: str) -> str:
    """A short unique id, prefixed so ids say what they name in logs."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class _Model(BaseModel):
    # defer_build: a model's validator is built when first used, not at import
    # (a chat that never shows an attachment or a fork never builds theirs)
    model_config = ConfigDict(extra="forbid", validate_assignment=False, defer_build=True)


# --- status -----------------------------------------------------------------


class Running(_Model):
    type: Literal["running"] = "running"


class RequiresAction(_Model):
    type: Literal["requires-action"] = "requires-action"
    reason: Literal["tool-calls"] = "tool-calls"


class Complete(_Model):
    type: Literal["complete"] = "complete"
    reason: Literal["stop", "unknown"] = "stop"


class Incomplete(_Model):
    type: Literal["incomplete"] = "incomplete"
    reason: Literal["cancelled", "length", "content-filter", "error", "other"]
    error: str | None = None


MessageStatus = Annotated[
    Running | RequiresAction | Complete | Incomplete, Field(discriminator="type")
]


# --- parts ------------------------------------------------------------------


class TextPart(_Model):
    type: Literal["text"] = "text"
    text: str = ""

    def __repr__(self) -> str:
        from ._internal.message_display import part_repr

        return part_repr(self)


def _is_none(value: Any) -> bool:
    """Left out of a dump when unset: files, ops and snapshots stay as they were."""
    return value is None


MAX_PROVIDER_DATA_CHARS = 256_000
"""Characters of JSON one part's provider data may hold (a thought signature
or an encrypted reasoning blob needs far less): more, from a stream or a
thread file, is dropped, never kept or sent back."""
_PROVIDER_DATA_DEPTH = 32


def bounded_provider_data(data: Any) -> dict[str, Any] | None:
    """``data`` when it is a JSON object within ``MAX_PROVIDER_DATA_CHARS``
    (and 32 levels), else None."""
    if not isinstance(data, dict) or not data:
        return None
    if value_depth(data, _PROVIDER_DATA_DEPTH) > _PROVIDER_DATA_DEPTH:
        return None
    try:
        size = len(json.dumps(data, ensure_ascii=False, allow_nan=False))
    except (ValueError, TypeError):  # not JSON (NaN, an int past the text limit, an object)
        return None
    return data if size <= MAX_PROVIDER_DATA_CHARS else None


_ProviderData = Annotated[dict[str, Any] | None, AfterValidator(bounded_provider_data)]


class ReasoningPart(_Model):
    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    provider_data: _ProviderData = Field(default=None, exclude_if=_is_none)
    """Opaque, keyed by the provider that produced it (see ``ToolCallPart.provider_data``)."""


DecidedBy = Literal["user", "code", "grant", "client"]
"""Who decided a gated call (:attr:`Approval.decided_by`)."""


class Approval(_Model):
    """The user's decision on a call that needs approval."""

    status: Literal["pending", "approved", "rejected"] = "pending"
    reason: str | None = None
    note: str | None = None
    """What the card shows beside the question: the tool's ``approval_note``
    (an MCP server's claims about the tool: shown, not obeyed)."""
    decided_by: DecidedBy | None = None
    """Who decided: the user in the chat, code (``approve`` / ``reject``
    called from Python), a standing always-allow grant, or the AG-UI client
    of ``Runtime.ag_ui_app()`` (its ``resume``). None before the decision,
    and in a file saved before this was recorded."""
    edited: bool = False
    """The call was approved with arguments the decider edited."""


@dataclass(frozen=True, slots=True)
class ParsedArgs:
    """A call's ``args_text`` parsed once (:attr:`ToolCallPart.parsed_args`)."""

    text: str
    """The text this is the parse of: it holds while ``args_text`` is this text."""
    value: Any
    """The JSON value, made JSON-safe (``{}`` for an empty text; None on error).
    Shared by every reader: never mutate it."""
    error: str | None = None
    """Why the text is not JSON, as the decoder says it; None when it is."""


ARGS_STREAMING = "the arguments are still streaming"
"""The :attr:`ParsedArgs.error` of a call whose text the model is still writing."""


def parse_args_text(text: str) -> ParsedArgs:
    """``text`` parsed in one go (a call not streamed here: loaded, built by hand)."""
    if not text.strip():
        return ParsedArgs(text, {})
    try:
        return ParsedArgs(text, json_safe(json.loads(text)))
    except (ValueError, RecursionError) as exc:  # a huge int is a ValueError too
        return ParsedArgs(text, None, str(exc))


class ToolCallPart(_Model):
    type: Literal["tool-call"] = "tool-call"
    tool_call_id: str
    tool_name: str
    args_text: str = ""
    """The raw argument text as the model streamed it."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Parsed (possibly partial) arguments, standard parameters stripped."""
    args_complete: bool = False
    """True once the model finished streaming this call's arguments."""
    result: Any = None
    has_result: bool = False
    """Distinguishes "no result yet" from a tool that returned None."""
    is_error: bool = False
    approval: Approval | None = None
    status_message: str | None = None
    completion_status_message: str | None = None
    progress: float | None = Field(default=None, exclude_if=_is_none)
    """How far a running call is (0 to 1), as its tool reported it (an MCP
    server's progress notifications): the card's progress bar."""
    log: list[str] | None = Field(default=None, exclude_if=_is_none)
    """Log lines the tool sent while it ran (the last 50), for the card's details."""
    synthetic: bool = Field(default=False, exclude_if=lambda value: not value)
    """A card the chat made for a tool server's request during a call (an MCP
    server's ``mcp_sampling`` / ``mcp_elicitation``): not the model's call,
    never in the history sent to it (``Message.tool_calls`` leaves it out)."""
    component: str | None = None
    """For a UI tool (``show_component_<Name>``): the component's name."""
    component_state: dict[str, Any] | None = None
    """For an interactable component: its state as the user left it."""
    traceback: str | None = None
    """For a tool that raised: its traceback, for the user to unfold. The model
    reads only ``result`` (the error line)."""
    provider_data: _ProviderData = Field(default=None, exclude_if=_is_none)
    """Opaque data a provider wants back with this call (Gemini's thought
    signature), keyed by the model's ``provider_key``: saved with the thread,
    sent back only to that provider, never shown in the browser."""
    _value: Any = PrivateAttr(default=None)
    _parsed: ParsedArgs | None = PrivateAttr(default=None)

    @property
    def parsed_args(self) -> ParsedArgs:
        """``args_text`` parsed, once: recorded by whoever wrote the text (the
        accumulator as the call streams, the tool phase when it stores the
        validated arguments), else parsed on first read (a thread loaded from a
        file) and kept while the text stays the same. Derived, never saved: a
        thread file holds ``args_text`` and ``args`` only."""
        parsed = self._parsed
        if (
            parsed is None
            or parsed.text != self.args_text  # the same str object: O(1)
            or (parsed.error == ARGS_STREAMING and self.args_complete)  # ended unfinished
        ):
            parsed = self._parsed = parse_args_text(self.args_text)
        return parsed

    def record_parsed_args(self, parsed: ParsedArgs) -> None:
        """Keep the parse of ``args_text`` its writer already has (no parse again)."""
        self._parsed = parsed

    @property
    def value(self) -> Any:
        """The object the tool returned (a DataFrame, a figure, ...), kernel-side
        only: never serialized, so a loaded thread has ``result`` (the JSON the
        model read, a summary for such objects) and ``value`` None."""
        return self._value

    @value.setter
    def value(self, obj: Any) -> None:
        self._value = obj

    def __eq__(self, other: object) -> bool:
        # The kernel-side object is not part of the call's data: a thread read
        # back from its file (value None) equals the thread that wrote it.
        if not isinstance(other, ToolCallPart):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, as every pydantic model

    def __repr__(self) -> str:
        from ._internal.message_display import part_repr

        return part_repr(self)


class AttachmentPart(_Model):
    """Something the user attached to a message (``ipygenui.data.attachments``).

    ``kind`` says how the model reads it: ``image`` as an image content part,
    ``text`` inlined (``text``, cut to a budget with a notice), ``data`` as a
    summary of a named object (``ref``) kept in the kernel. An image's bytes
    are kernel-side only (``data``, never serialized): a persisted thread
    keeps them in a file beside the thread file (``file``, relative to it).
    """

    type: Literal["attachment"] = "attachment"
    id: str = Field(default_factory=lambda: new_id("att"))
    name: str
    kind: Literal["image", "text", "data"]
    mime: str = "application/octet-stream"
    size: int = 0
    """Bytes of the original (file or image), or rows of a data attachment."""
    text: str | None = None
    """What the model reads for a text or data attachment."""
    ref: str | None = None
    """A data attachment: the name of its object in the conversation's data."""
    notice: str | None = None
    """What was left out, for the user and the model (a text cut to a budget)."""
    file: str | None = None
    """Where a persisted image's bytes are, relative to the thread file."""
    data: bytes | None = Field(default=None, exclude=True, repr=False)
    """An image's bytes, in the kernel only."""


Part = Annotated[
    TextPart | ReasoningPart | ToolCallPart | AttachmentPart, Field(discriminator="type")
]


# --- messages and thread ----------------------------------------------------


MAX_TOKEN_COUNT = 10**12
"""A token count above this (a trillion) is kept as this, one below 0 as 0:
a provider's or a thread file's hostile count (``10**400``) never makes a
cost infinite or a ``usage()`` row anything but plain JSON."""


def bounded_token_count(value: Any) -> Any:
    """``value`` within 0 to ``MAX_TOKEN_COUNT`` when it is an integer (or the
    digits a thread file keeps as text past Python's int-to-text limit)."""
    if isinstance(value, str) and value.lstrip("-").isdigit():
        if value.startswith("-"):
            return 0
        value = int(value) if len(value) <= 13 else MAX_TOKEN_COUNT
    if isinstance(value, int) and not isinstance(value, bool):
        return min(max(value, 0), MAX_TOKEN_COUNT)
    return value


_TokenCount = Annotated[int, BeforeValidator(bounded_token_count)]


class Usage(_Model):
    """Tokens a reply (or one of its steps) used, as ``metadata["usage"]``
    keeps them; a thread file from before the reasoning and cache counts
    loads with them at 0. Each count is bounded (``MAX_TOKEN_COUNT``)."""

    input_tokens: _TokenCount = 0
    """All input tokens, cached ones included."""
    output_tokens: _TokenCount = 0
    """All output tokens, reasoning ones included."""
    reasoning_tokens: _TokenCount = 0
    """Of ``output_tokens``, those spent thinking."""
    cache_read_tokens: _TokenCount = 0
    """Of ``input_tokens``, those read from the provider's prompt cache."""
    cache_write_tokens: _TokenCount = 0
    """Of ``input_tokens``, those written to the provider's prompt cache."""
    estimated: bool = Field(default=False, exclude_if=lambda value: not value)
    """Some of the counts are a model's estimate (the offline demo's), not a
    provider's; left out of a dump when False, so files stay as they were."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            estimated=self.estimated or other.estimated,
        )


class Feedback(_Model):
    """A user's rating of an assistant reply (``Message.metadata["feedback"]``)."""

    rating: Literal["up", "down"]
    comment: str | None = None
    model: str | None = None
    """The model that wrote the reply."""
    time: float = Field(default_factory=time.time)


class Message(_Model):
    id: str = Field(default_factory=lambda: new_id("msg"))
    role: Literal["user", "assistant", "system"]
    parts: list[Part] = Field(default_factory=list)
    status: MessageStatus = Field(default_factory=lambda: Complete(reason="stop"))
    created_at: float = Field(default_factory=time.time)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """All text parts joined: what a reader calls the message's text."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def attachments(self) -> list[AttachmentPart]:
        return [p for p in self.parts if isinstance(p, AttachmentPart)]

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The model's calls (a server request's card is not one: ``server_requests``)."""
        return [p for p in self.parts if isinstance(p, ToolCallPart) and not p.synthetic]

    @property
    def server_requests(self) -> list[ToolCallPart]:
        """Cards of tool servers' requests during calls (``ToolCallPart.synthetic``)."""
        return [p for p in self.parts if isinstance(p, ToolCallPart) and p.synthetic]

    def tool_call(self, tool_call_id: str) -> ToolCallPart | None:
        """The call or request card with this id."""
        for part in self.parts:
            if isinstance(part, ToolCallPart) and part.tool_call_id == tool_call_id:
                return part
        return None

    # --- display: one short line, or a compact transcript in a notebook -------------

    def __repr__(self) -> str:
        from ._internal.message_display import message_repr

        return message_repr(self)

    __str__ = __repr__

    def _repr_markdown_(self) -> str:
        from ._internal.message_display import transcript_markdown

        return transcript_markdown([self])

    def _repr_html_(self) -> str:
        from ._internal.message_display import transcript_html

        return transcript_html([self])

    @property
    def feedback(self) -> Feedback | None:
        """The user's rating of this reply, or None (kept in ``metadata`` so
        the message's shape, on the wire and on disk, stays the same)."""
        raw = self.metadata.get("feedback")
        if not isinstance(raw, dict):
            return None
        try:
            return Feedback.model_validate(raw)
        except ValueError:  # a hand-edited file: no rating rather than a crash
            return None


# --- branches -------------------------------------------------------------------

START = ""
"""The ``Thread.forks`` key of versions of the thread's first message."""


class Fork(_Model):
    """The versions of the conversation from one place on: a user message
    edited, or a reply regenerated, starts a new version there.

    The active version is ``Thread.messages`` from that place on; the others
    are kept here whole, each from its first message to its end (with the
    forks inside them, which stay in ``Thread.forks`` under their own keys).
    """

    active: int = 0
    """The index of the version ``Thread.messages`` continues with."""
    stashed: list[list[Message]] = Field(default_factory=list)
    """The other versions, in order, without the active one: version ``i`` is
    ``stashed[i]`` for ``i < active`` and ``stashed[i - 1]`` after it."""

    @property
    def count(self) -> int:
        return len(self.stashed) + 1

    def version(self, index: int) -> list[Message] | None:
        """The stashed version ``index`` (None for the active one)."""
        if index == self.active:
            return None
        return self.stashed[index if index < self.active else index - 1]


@dataclass(frozen=True, slots=True)
class BranchPosition:
    """Which version of its place a message is (``index``, 0-based) of ``count``."""

    index: int
    count: int


class Thread(_Model):
    """A conversation. ``messages`` is the active branch, the only one the
    model reads and the one every view shows; the other versions of edited
    or regenerated messages are in ``forks``, keyed by the id of the message
    before them (``START`` for the first message)."""

    id: str = Field(default_factory=lambda: new_id("thread"))
    messages: Annotated[list[Message], AfterValidator(MessageList)] = Field(
        default_factory=MessageList
    )
    """A ``list`` that counts changes other than appends: what is kept per
    message (the request history) is checked in O(1) after a turn."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    title: str | None = None
    """Set by the user (``rename_thread``); None: the first user message names it."""
    forks: dict[str, Fork] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_forks(self) -> Thread:
        if self.forks:
            check_forks(self)
        return self

    # --- display: one short line, or a compact transcript in a notebook -------------

    def __repr__(self) -> str:
        from ._internal.message_display import thread_repr

        return thread_repr(self)

    __str__ = __repr__

    def _repr_markdown_(self) -> str:
        from ._internal.message_display import thread_heading, transcript_markdown

        return transcript_markdown(self.messages, thread_heading(self))

    def _repr_html_(self) -> str:
        from ._internal.message_display import thread_heading, transcript_html

        return transcript_html(self.messages, thread_heading(self))

    # --- branches -------------------------------------------------------------

    def index_of(self, message_id: str) -> int:
        """The position of ``message_id`` in the active branch; ``BranchError``
        when it is not there (unknown, or in a version not shown)."""
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index].id == message_id:
                return index
        if any(m.id == message_id for m in self.all_messages()):
            raise BranchError(
                f"message {message_id!r} is not on the active branch: switch to its branch first"
            )
        raise BranchError(f"no message {message_id!r} in this thread")

    def fork_key(self, index: int) -> str:
        """The ``forks`` key of the place of ``messages[index]``."""
        return START if index == 0 else self.messages[index - 1].id

    def branch_position(self, message_id: str) -> BranchPosition:
        """Which version ``message_id`` (on the active branch) is, of how many."""
        fork = self.forks.get(self.fork_key(self.index_of(message_id)))
        return BranchPosition(fork.active, fork.count) if fork else BranchPosition(0, 1)

    def branches(self, message_id: str) -> list[Message]:
        """Every version of the message at ``message_id``'s place in the active
        branch, in order (the first message of each branch): index ``i`` is
        what ``switch_branch(message_id, i)`` shows."""
        index = self.index_of(message_id)
        fork = self.forks.get(self.fork_key(index))
        if fork is None:
            return [self.messages[index]]
        out = []
        for i in range(fork.count):
            version = fork.version(i)
            out.append(self.messages[index] if version is None else version[0])
        return out

    def all_messages(self) -> Iterator[Message]:
        """Every message of every branch: the active one first."""
        yield from self.messages
        for fork in self.forks.values():
            for version in fork.stashed:
                yield from version

    def feedback(self) -> list[dict[str, Any]]:
        """The ratings given in this thread (every branch), oldest first: rows
        ready for ``pandas.DataFrame``, with ``message_id``, ``rating``
        (``"up"``/``"down"``), ``comment``, ``model`` and ``time`` (a UTC datetime)."""
        rows: list[dict[str, Any]] = []
        for message in self.all_messages():
            feedback = message.feedback
            if feedback is not None:
                rows.append(
                    {
                        "message_id": message.id,
                        "rating": feedback.rating,
                        "comment": feedback.comment,
                        "model": feedback.model,
                        "time": datetime.fromtimestamp(feedback.time, tz=UTC),
                    }
                )
        rows.sort(key=lambda row: row["time"])
        return rows

    def message(self, message_id: str) -> Message | None:
        for message in reversed(self.messages):  # the live message is usually last
            if message.id == message_id:
                return message
        return None

    def find_tool_call(self, tool_call_id: str) -> tuple[Message, ToolCallPart] | None:
        for message in reversed(self.messages):
            part = message.tool_call(tool_call_id)
            if part is not None:
                return message, part
        return None

    @property
    def last_assistant(self) -> Message | None:
        for message in reversed(self.messages):
            if message.role == "assistant":
                return message
        return None


def check_forks(thread: Thread) -> None:
    """Raise ``ValueError`` (a file's corrupt branches) unless every fork fits:
    it names a message that is followed by its active version, its active
    index is in range, no stashed version is empty, and no message id repeats."""
    seen: set[str] = set()
    followed: set[str] = set()
    """Ids of messages some message follows in their own branch."""
    for sequence in [thread.messages, *(v for f in thread.forks.values() for v in f.stashed)]:
        for i, message in enumerate(sequence):
            if message.id in seen:
                raise ValueError(f"forks: message id {message.id!r} appears twice")
            seen.add(message.id)
            if i + 1 < len(sequence):
                followed.add(message.id)
    if thread.messages:
        followed.add(START)
    for key, fork in thread.forks.items():
        where = f"forks[{key!r}]"
        if not fork.stashed:
            raise ValueError(f"{where}: a fork with one version has nothing stashed")
        if any(not version for version in fork.stashed):
            raise ValueError(f"{where}: a stashed version is empty")
        if not 0 <= fork.active <= len(fork.stashed):
            raise ValueError(
                f"{where}: active version {fork.active} is out of range 0 to {len(fork.stashed)}"
            )
        if key not in followed:
            reason = "no such message" if key not in seen and key != START else "nothing follows it"
            raise ValueError(f"{where}: {reason}, so there is no active version")
