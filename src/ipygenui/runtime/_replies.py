"""The messages a runtime's runs answer: a user turn, a new reply, a retried one.

A user turn (``send``, ``edit``) adds the user's message, announces the thread
list (its length changed, and the first user message names the thread) and
answers it. ``send`` first checks the text (empty only with attachments),
turns the attachments into parts (``ipygenui.data.attachments``: DataFrames,
whose summary the model reads and whose object is kept in ``data``; images
as PNG/JPEG bytes, PIL images, matplotlib figures or image files, sent as
image content parts; CSV files, loaded as DataFrames; text files, inlined up
to a budget; an unsupported one raises before anything is sent), then
settles the thread (a streaming run cancelled, a reply waiting for the user
ended, its calls answered as such). The component states the user changed since the model last saw
them ride on that message (rendered as ``<component_state>`` by the history),
so the model reads each change once, in order, and the system prompt stays
the same from turn to turn.

An answer is a new assistant reply at the end of the active branch, put in
the thread when its run starts (``_run_lifecycle``: at once, or when a
script awaits it). ``retry`` answers the last user message again: in place
of the last reply (emptied) when the thread ends with one. Each reply is
stamped with the model that writes it: its name (a rating then says which
model wrote the reply) and its ``"provider:model"`` spec (for ``usage()``);
the thread keeps the listed model it uses (``_model_slot``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

from .._internal.sanitize import clean_text
from ..components.interactive import StateReports
from ..data import DataStore
from ..data.attachments import make_attachment_parts
from ..messages import Message, Part, Running, TextPart
from ._host import Host
from ._model_slot import ModelSlot
from ._run_lifecycle import RunLifecycle
from .run import Run

__all__ = ["SUMMARY_KEY", "Replies"]

SUMMARY_KEY = "summary"
"""User message metadata: a line the chat shows in place of the message's
text, which stays behind a Details disclosure (a pressed A2UI button's JSON).
For the screen only: the model reads the text."""


class Replies:
    """Add the user's turns and the replies runs write to the thread shown
    (``listed`` announces the thread list)."""

    def __init__(
        self, host: Host, models: ModelSlot, runs: RunLifecycle, listed: Callable[[], None]
    ) -> None:
        self._thread = host.thread
        self._events = host.events
        self._save = host.save
        self._models = models
        self._runs = runs
        self._listed = listed
        self._states = StateReports()

    def send(
        self,
        text: str,
        attachments: Sequence[Any] | None,
        data: DataStore,
        summary: str | None = None,
    ) -> Run:
        """``Runtime.send``: ``attachments`` become parts (objects kept in ``data``);
        ``summary``: the line the chat shows in place of the text (``SUMMARY_KEY``)."""
        if not isinstance(text, str) or not (text.strip() or attachments):
            raise ValueError("send() needs a non-empty text (or attachments)")
        text = clean_text(text)  # a lone surrogate would make the thread unsavable
        attached = make_attachment_parts(attachments, data) if attachments else []
        self._runs.settle("The user sent a new message.")
        parts: list[Part] = [TextPart(text=text), *attached] if text else [*attached]
        return self.user_turn(parts, summary)

    def user_turn(self, parts: list[Part], summary: str | None = None) -> Run:
        """Add a user message of ``parts`` and start a run answering it."""
        changed = self._states.unreported(self._thread())
        metadata: dict[str, Any] = {"component_state": changed} if changed else {}
        if summary:
            metadata[SUMMARY_KEY] = summary
        self._add(Message(role="user", parts=parts, metadata=metadata))
        self._listed()
        return self.answer()

    def answer(self) -> Run:
        """Start a run with a new reply at the end of the active branch."""
        message = Message(role="assistant", status=Running())
        run = self._runs.launch(message, functools.partial(self._add_reply, message))
        self._save()
        return run

    def retry(self) -> Run:
        """Answer the last user message again, in place of the last reply."""
        self._runs.stop()
        messages = self._thread().messages
        if not messages:
            raise ValueError("nothing to retry: the thread is empty")
        last = messages[-1]
        if last.role == "assistant":
            return self._runs.launch(last, functools.partial(self._reset_reply, last))
        message = Message(role="assistant", status=Running())
        return self._runs.launch(message, functools.partial(self._add_reply, message))

    def _add(self, message: Message) -> None:
        self._thread().messages.append(message)
        self._events.added(message)

    def _add_reply(self, message: Message) -> None:
        self._models.save_choice(self._thread())
        message.created_at = time.time()
        message.metadata = self._fresh_metadata()
        self._add(message)

    def _reset_reply(self, message: Message) -> None:
        message.parts = []
        message.status = Running()
        message.metadata = self._fresh_metadata()
        self._events.replace(message)

    def _fresh_metadata(self) -> dict[str, Any]:
        model = self._models.current
        name = getattr(model, "name", None)
        stamp = {"model": name} if isinstance(name, str) and name else {}
        spec = getattr(model, "spec", None)
        if isinstance(spec, str) and spec:
            stamp["model_spec"] = spec
        return {"steps": [], "started_at": time.time(), **stamp}
