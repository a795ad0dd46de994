"""The widget side of starters with a form: a tool source's prompts that need
arguments (an MCP server's), offered by an empty thread, filled and sent.

The ``starter_forms`` trait lists them (``OwnTools.prompt_forms``): an id,
the prompt's title and description, and its arguments (name, description,
required), all the server's text, cleaned, shown as text. ``starter_form``
submits one: its server fills it (``fill_prompt``) and the text is sent as
the user's message, answered with ``accepted`` (the form closes) or ``error``
(the form keeps what was typed and says why). ``complete`` asks the server's
suggestions for a field as typed (``completion/complete``), at most
``MAX_COMPLETING`` at a time per chat, each within ``COMPLETE_SECONDS``.

A source whose lists change (an MCP server's ``list_changed``) says so on
its own thread: the new lists reach the traits on the kernel's loop
(``call_soon_threadsafe``), so an open chat's starters follow.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ._protocol import (
    CompleteMsg,
    ProtocolError,
    StarterFormMsg,
    accepted_message,
    completion_message,
    error_message,
)
from ._sync import current_loop, send_safely

if TYPE_CHECKING:
    from ..runtime import Runtime

log = logging.getLogger(__name__)

__all__ = ["COMPLETE_SECONDS", "MAX_COMPLETING", "StarterForms"]

MAX_COMPLETING = 4
"""Completions one chat asks its servers at once; more are answered at once, empty."""

COMPLETE_SECONDS = 10.0
FILL_SECONDS = 30.0
"""How long a server may take to complete a field, or to fill a prompt."""


class _Chat(Protocol):
    starters: list[str]
    starter_forms: list[dict[str, Any]]

    def hold_sync(self) -> Any: ...


def form_entries(runtime: Runtime) -> list[dict[str, Any]]:
    """The ``starter_forms`` trait: each starter with a form, as the view draws it."""
    return [
        {
            "id": form_id,
            "title": prompt.title or prompt.name,
            "description": prompt.description,
            "arguments": [
                {"name": a.name, "description": a.description, "required": a.required}
                for a in prompt.arguments
            ],
        }
        for form_id, _source, prompt in runtime._tools.prompt_forms()
    ]


class StarterForms:
    """Answers one Chat's ``starter_form`` and ``complete`` messages, and keeps
    its starters following its sources' lists."""

    def __init__(
        self,
        runtime: Runtime,
        chat: _Chat,
        send: Callable[[Any], Any],
        start: Callable[[str], None],
        loop: Callable[[], asyncio.AbstractEventLoop | None],
    ) -> None:
        self._runtime = runtime
        self._chat = chat
        self._send = send
        self._start = start
        self._loop = loop
        self._tasks: set[asyncio.Task[None]] = set()
        self._completing = 0
        self._unwatch = runtime._tools.watch(self._lists_changed)

    def _find(self, form_id: str) -> tuple[Any, Any]:
        for found_id, source, prompt in self._runtime._tools.prompt_forms():
            if found_id == form_id:
                return source, prompt
        raise ProtocolError("that starter is no longer offered: its server took it back")

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- submit ---------------------------------------------------------------------

    def submit(self, msg: StarterFormMsg) -> None:
        """Fill the form's prompt, then send its text (on the running loop)."""
        source, prompt = self._find(msg.prompt)  # refused at once: the form says why
        if self._runtime.running:
            raise ProtocolError("a run is already streaming: wait for it or stop it")
        self._spawn(self._fill(msg, source, prompt))

    async def _fill(self, msg: StarterFormMsg, source: Any, prompt: Any) -> None:
        refused = {"type": msg.type, "ref": msg.ref}
        try:
            given = {name: value for name, value in msg.fields.items() if value.strip()}
            filled = source.fill_prompt(prompt.name, given)  # a blank field: not given
            text = await asyncio.wait_for(filled, FILL_SECONDS)
        except Exception as exc:  # the form keeps the values and shows why
            why = "its server took too long" if isinstance(exc, TimeoutError) else str(exc)
            label = prompt.title or prompt.name
            send_safely(self._send, error_message(f"{label} could not be filled: {why}", refused))
            return
        try:
            self._start(str(text))
        except Exception as exc:  # a run started meanwhile: the form stays
            send_safely(self._send, error_message(str(exc) or type(exc).__name__, refused))
            return
        send_safely(self._send, accepted_message(msg.ref, "starter_form"))

    # --- completions ----------------------------------------------------------------

    def complete(self, msg: CompleteMsg) -> None:
        """Ask the server's suggestions for one field (answered by ``completion``)."""
        try:
            source, prompt = self._find(msg.prompt)
        except ProtocolError as exc:  # taken back while the user typed: no notice, no list
            send_safely(self._send, completion_message(msg, [], str(exc)))
            return
        names = {a.name for a in prompt.arguments}
        unknown = sorted({msg.argument, *msg.context} - names)
        if unknown:
            raise ProtocolError(f"the starter {prompt.name!r} has no field {', '.join(unknown)}")
        if self._completing >= MAX_COMPLETING:
            send_safely(self._send, completion_message(msg, [], "too many completions at once"))
            return
        self._completing += 1
        self._spawn(self._complete(msg, source, prompt))

    async def _complete(self, msg: CompleteMsg, source: Any, prompt: Any) -> None:
        context = {k: v for k, v in msg.context.items() if k != msg.argument and v}
        try:
            asked = source.complete(prompt.name, msg.argument, msg.value, _or_none(context))
            values = await asyncio.wait_for(asked, COMPLETE_SECONDS)
        except Exception as exc:
            why = "the server took too long" if isinstance(exc, TimeoutError) else str(exc)
            send_safely(self._send, completion_message(msg, [], why or type(exc).__name__))
            return
        finally:
            self._completing -= 1
        send_safely(self._send, completion_message(msg, [v for v in values if isinstance(v, str)]))

    # --- lists that change ----------------------------------------------------------

    def _lists_changed(self) -> None:
        """On the source's thread: refresh the traits on the kernel's loop."""
        loop = self._loop()
        if loop is not None and not loop.is_closed() and loop is not current_loop():
            loop.call_soon_threadsafe(self.refresh)
        else:
            self.refresh()

    def refresh(self) -> None:
        """The traits from the sources' lists as they are now."""
        try:
            with self._chat.hold_sync():
                self._chat.starters = self._runtime.starters
                self._chat.starter_forms = form_entries(self._runtime)
        except Exception:  # the starters shown stay: a view problem never breaks the chat
            log.exception("ipygenui widget could not refresh its starters")

    def close(self) -> None:
        self._unwatch()
        for task in list(self._tasks):
            task.cancel()


def _or_none(context: Mapping[str, str]) -> dict[str, str] | None:
    return dict(context) or None
