"""The thread state: messages, their parts and their status.

Everything here is plain pydantic so a thread round-trips through JSON with
nothing lost, and the widget, the runtime and a saved file share one shape.
"""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


def new_id(prefix: str) -> str:
    """A short unique id, prefixed so ids say what they name in logs."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


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


class ReasoningPart(_Model):
    type: Literal["reasoning"] = "reasoning"
    text: str = ""


class Approval(_Model):
    """The user's decision on a call that needs approval."""

    status: Literal["pending", "approved", "rejected"] = "pending"
    reason: str | None = None


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
    component: str | None = None
    """For a UI tool (``show_component_<Name>``): the component's name."""
    component_state: dict[str, Any] | None = None
    """For an interactable component: its state as the user left it."""
    _value: Any = PrivateAttr(default=None)

    @property
    def value(self) -> Any:
        """The object the tool returned (a DataFrame, a figure, ...), kernel-side
        only: never serialized, so a loaded thread has ``result`` (the JSON the
        model read, a summary for such objects) and ``value`` None."""
        return self._value

    @value.setter
    def value(self, obj: Any) -> None:
        self._value = obj


class AttachmentPart(_Model):
    """Something the user attached to a message (``ipygenui.attachments``).

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


class Usage(_Model):
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


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
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    def tool_call(self, tool_call_id: str) -> ToolCallPart | None:
        for part in self.tool_calls:
            if part.tool_call_id == tool_call_id:
                return part
        return None


class Thread(_Model):
    id: str = Field(default_factory=lambda: new_id("thread"))
    messages: list[Message] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

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
