"""The kernel -> browser side of ``gu.Chat``: runtime events into traits and frames.

The browser side is ``js/src/sync.js`` (see docs/architecture.md):
- durable state in traits: one :class:`MessageModel` per message, updated at
  message boundaries (added, replaced) and whenever the run changes phase;
  messages and ops go out in their wire form (:mod:`._protocol`);
- while a reply streams, patch ops are coalesced into ``frame`` custom
  messages (at most ~30 a second, :class:`FrameCoalescer`);
- a view that opens mid-stream sends ``hello`` and gets a ``snapshot`` of the
  messages whose traits are behind (:meth:`ViewSync.snapshot`).

Coalescing: a fast model emits hundreds of patch ops a second; Jupyter Server drops
kernel messages above 1000 a second, and resending whole values costs bytes
quadratic in the reply. So ops are held for at most ``interval`` seconds and
sent as one ``frame`` custom message with a sequence number:

- consecutive appends to the same field merge into one append (pieces are
  joined once, at flush, so merging costs nothing per op);
- a ``set`` replaces the pending ``set`` of the same field (last value wins);
- the parsed ``args`` of a tool call are not sent while its ``args_text``
  streams in the same frame: the frontend parses the streamed text itself,
  so a large argument costs its size once, not once per frame.

Every op with the same (part, field) key keeps its order; ops on different
keys commute, which is what makes reordering by merging safe.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .._internal.sanitize import json_safe
from ..events import (
    ActivePathChanged,
    AlwaysAllowedChanged,
    FeedbackChanged,
    MessageAdded,
    MessagePatched,
    MessageReplaced,
    ModelChanged,
    RunChanged,
    SaveStatusChanged,
    SuggestionsChanged,
    ThreadEvent,
    ThreadsChanged,
)
from ..messages import Message
from . import _notebook_data as notebook_data
from ._protocol import (
    Patch,
    PatchOp,
    SnapshotItem,
    add_part_op,
    append_op,
    frame_message,
    message_for_browser,
    ops_for_browser,
    set_op,
    snapshot_message,
)
from .message_model import MessageModel

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..runtime import Runtime

log = logging.getLogger(__name__)


DEFAULT_INTERVAL = 1 / 30
"""At most ~30 frames a second: smooth to the eye, far below server limits."""


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


CallLater = Callable[[float, Callable[[], None]], TimerHandle]


class _Pending:
    """One op waiting to be sent; appends keep their pieces until flush."""

    __slots__ = ("field", "kind", "part", "pieces", "value")

    def __init__(self, op: PatchOp) -> None:
        self.kind: str = op["op"]
        self.part: int = op["part"]
        self.field: str = "" if op["op"] == "add_part" else op["field"]
        self.value: Any = op["value"]
        self.pieces: list[str] | None = [op["value"]] if op["op"] == "append" else None

    def to_op(self) -> PatchOp:
        if self.pieces is not None:
            return append_op(self.part, self.field, "".join(self.pieces))
        if self.kind == "add_part":
            return add_part_op(self.part, self.value)
        return set_op(self.part, self.field, self.value)


class _MessageOps:
    """The pending ops of one message, with an index for merging."""

    __slots__ = ("last", "ops")

    def __init__(self) -> None:
        self.ops: list[_Pending] = []
        self.last: dict[tuple[int, str], _Pending] = {}

    def add(self, op: PatchOp) -> None:
        if op["op"] == "append":
            key: tuple[int, str] = (op["part"], op["field"])
            prev = self.last.get(key)
            if prev is not None and prev.pieces is not None:
                prev.pieces.append(op["value"])
                return
        elif op["op"] == "set":
            key = (op["part"], op["field"])
            prev = self.last.get(key)
            if prev is not None and prev.kind == "set":
                prev.value = op["value"]
                return
        else:  # add_part: keep as is, in order
            part = op["part"]
            for stale in [k for k in self.last if k[0] == part]:
                del self.last[stale]  # later ops on this part must not merge across it
            self.ops.append(_Pending(op))
            return
        entry = _Pending(op)
        self.ops.append(entry)
        self.last[key] = entry

    def to_ops(self) -> list[PatchOp]:
        streaming = {p.part for p in self.ops if p.kind == "append" and p.field == "args_text"}
        out = []
        for p in self.ops:
            if p.kind == "set" and p.field == "args" and p.part in streaming:
                continue  # the frontend parses the args_text appended in this frame
            out.append(p.to_op())
        return out


class FrameCoalescer:
    """Buffers patch ops per message and sends them as frames.

    ``send`` receives each frame dict; ``call_later(delay, fn)`` schedules
    the next flush (the kernel loop's ``call_later`` in the widget, a fake
    clock in tests); ``prepare(message_id, ops)`` gives a message's merged
    ops their wire form, once per frame rather than once per delta. All
    methods run on one thread: the widget hops there.
    """

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        call_later: CallLater,
        clock: Callable[[], float],
        *,
        interval: float = DEFAULT_INTERVAL,
        prepare: Callable[[str, list[PatchOp]], list[PatchOp]] | None = None,
    ) -> None:
        self._send = send
        self._prepare = prepare
        self._call_later = call_later
        self._clock = clock
        self.interval = interval
        self.seq = 0
        """Sequence number of the last frame sent (0: none yet)."""
        self._pending: dict[str, _MessageOps] = {}
        self._timer: TimerHandle | None = None
        self._last_flush = float("-inf")

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, message_id: str, ops: list[PatchOp]) -> None:
        """Queue ``ops`` for ``message_id``; a frame goes out within ``interval``."""
        if not ops:
            return
        entry = self._pending.get(message_id)
        if entry is None:
            entry = self._pending[message_id] = _MessageOps()
        for op in ops:
            entry.add(op)
        self._schedule()

    def drop(self, message_id: str) -> None:
        """Forget the pending ops of a message whose full state is being sent."""
        self._pending.pop(message_id, None)
        if not self._pending:
            self._cancel()

    def flush(self) -> dict[str, Any] | None:
        """Send the pending ops now as one frame; return it (None if none)."""
        self._cancel()
        if not self._pending:
            return None
        prepare = self._prepare
        patches: list[Patch] = [
            {"id": mid, "ops": prepare(mid, entry.to_ops()) if prepare else entry.to_ops()}
            for mid, entry in self._pending.items()
        ]
        self._pending = {}
        self.seq += 1
        self._last_flush = self._clock()
        frame = frame_message(self.seq, patches)
        self._send(frame)
        return frame

    def close(self) -> None:
        self._cancel()
        self._pending = {}

    def _schedule(self) -> None:
        if self._timer is not None:
            return
        delay = self._last_flush + self.interval - self._clock()
        # Even an idle stream waits one tick: ops of the same burst then share a frame.
        self._timer = self._call_later(max(delay, 0.0), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.flush()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


CATCH_UP_INTERVAL = 0.25
"""Mid-run boundaries (a step's end, a tool result, a phase change) write the
traits at most this often; a run's end writes them at once. A tool round
trip then costs one snapshot of the message, not one per event."""

_SETTLED_PHASES = ("idle", "waiting")


class SyncedView(Protocol):
    """The synced traits the sync writes (``gu.Chat``'s)."""

    messages: list[MessageModel]
    phase: str
    phase_detail: str
    running: bool
    suggestions: list[str]
    model_name: str
    offline: bool
    model_choice: str
    data_names: list[str]
    data_details: dict[str, Any]
    save_error: str
    always_allowed: list[str]
    thread_list: list[dict[str, Any]]
    thread_id: str

    def hold_sync(self) -> AbstractContextManager[Any]: ...


class ViewSync:
    """Keeps a chat's views in step with its runtime.

    ``on_event`` listens to ``runtime``; it writes the synced traits on
    ``chat`` (a :class:`MessageModel` per message) and sends frames and
    snapshots through ``send`` (ipywidgets' custom message). All of it runs
    on the kernel's event loop (``loop``, which the browser's messages hop
    onto too)."""

    def __init__(self, chat: SyncedView, runtime: Runtime, send: Callable[[Any], Any]) -> None:
        self._chat = chat
        self._runtime = runtime
        self._send = send
        self.loop = current_loop()
        self._models: dict[str, MessageModel] = {}
        self._dirty: set[str] = set()
        """Messages patched or replaced since their trait was last written."""
        self._catch_up_timer: Any = None
        self._coalescer = FrameCoalescer(
            self._send_frame, self._call_later, self._clock, prepare=self._ops_for_browser
        )

    def on_event(self, event: ThreadEvent) -> None:
        try:
            self._apply_event(event)
        except Exception:  # a view problem must never break the run
            log.exception("ipygenui widget failed to apply %r", type(event).__name__)

    def _apply_event(self, event: ThreadEvent) -> None:
        if isinstance(event, MessagePatched):
            self._dirty.add(event.message_id)
            self._coalescer.add(event.message_id, event.ops)
        elif isinstance(event, MessageAdded):
            self._write(event.message)
        elif isinstance(event, MessageReplaced):
            self._dirty.add(event.message.id)
            self._schedule_catch_up()
        elif isinstance(event, RunChanged):
            self._on_run_changed(event.phase, event.detail)
        elif isinstance(event, SuggestionsChanged):
            self._chat.suggestions = list(event.suggestions)
        elif isinstance(event, SaveStatusChanged):
            self._chat.save_error = event.error or ""
        elif isinstance(event, ActivePathChanged):
            self._show_path(event)
        elif isinstance(event, AlwaysAllowedChanged):
            self._chat.always_allowed = list(event.tools)
        elif isinstance(event, FeedbackChanged):
            # A thumb pressed shows at once, not at the next catch-up.
            rated = self._runtime.thread.message(event.message_id)
            if rated is not None and rated.id in self._models:
                self._write(rated)
        elif isinstance(event, ThreadsChanged):
            with self._chat.hold_sync():
                self._chat.thread_list = thread_list(event.threads)
                self._chat.thread_id = event.active
        elif isinstance(event, ModelChanged):
            with self._chat.hold_sync():
                self._chat.model_name = event.name
                self._chat.offline = event.offline
                self._chat.model_choice = event.choice or ""
        if not isinstance(event, MessagePatched):  # patches never start or end a run
            self._chat.running = self._runtime.running

    def _write(self, message: Message) -> None:
        """Write a message's full state to its trait (a boundary)."""
        # Pending ops for it are inside this snapshot: drop them, stamp the seq.
        self._coalescer.drop(message.id)
        self._dirty.discard(message.id)
        model = self._models.get(message.id)
        if model is None:
            self._chat.messages = [*self._chat.messages, self.new_model(message)]
        else:
            seq = self._coalescer.seq
            send_safely(lambda data: model.set_snapshot(data, seq), self._wire(message))

    def new_model(self, message: Message) -> MessageModel:
        seq = self._coalescer.seq
        model: MessageModel = send_safely(
            lambda data: MessageModel(message=data, rev=seq), self._wire(message)
        )
        self._models[message.id] = model
        return model

    def _wire(self, message: Message) -> dict[str, Any]:
        """The message as synced, with its place among its versions when it
        has several: ``branch: {index, count}`` (what a branch picker shows)."""
        data = message_for_browser(message)
        thread = self._runtime.thread
        if thread.forks and thread.message(message.id) is message:
            where = thread.branch_position(message.id)
            if where.count > 1:
                data["branch"] = {"index": where.index, "count": where.count}
        return data

    def _show_path(self, event: ActivePathChanged) -> None:
        """Show another branch (or thread) from ``event.start`` on: messages
        kept keep their models (written again: their branch position may have
        changed); another thread's models are closed."""
        self._refresh_always_allowed()  # grants are the thread's own
        shown = {m.id for m in event.messages}
        for message in event.messages[event.start :]:
            if message.id in self._models:
                self._write(message)
        models = [self._models.get(m.id) or self.new_model(m) for m in event.messages]
        self._chat.messages = models
        if event.thread_id != self._chat.thread_id:
            for message_id in [i for i in self._models if i not in shown]:
                self._coalescer.drop(message_id)
                self._dirty.discard(message_id)
                self._models.pop(message_id).close()

    def _on_run_changed(self, phase: str, detail: str | None) -> None:
        # When the run settles the traits catch up at once, so the final state
        # is durable whatever events came before; mid-run they catch up soon.
        if phase in _SETTLED_PHASES:
            self._catch_up()
            self.refresh_data_names()  # a tool result or attachment may have named one
        else:
            self._schedule_catch_up()
        with self._chat.hold_sync():
            self._chat.phase_detail = detail or ""
            self._chat.phase = phase

    def _schedule_catch_up(self) -> None:
        if self._catch_up_timer is None and self._dirty:
            timer = self._call_later(CATCH_UP_INTERVAL, self._catch_up)
            if self._dirty:  # not caught up already (with no loop it runs at once)
                self._catch_up_timer = timer

    def _catch_up(self) -> None:
        """Write every message patched or replaced since its last write."""
        if self._catch_up_timer is not None:
            self._catch_up_timer.cancel()
            self._catch_up_timer = None
        for message_id in list(self._dirty):
            message = self._runtime.thread.message(message_id)
            if message is None:
                self._dirty.discard(message_id)
                continue
            try:
                self._write(message)
            except Exception:  # one message that cannot be sent must not hold up the rest
                log.exception("ipygenui widget could not sync message %s", message_id)

    def _ops_for_browser(self, message_id: str, ops: list[PatchOp]) -> list[PatchOp]:
        return ops_for_browser(ops, self._runtime.thread.message(message_id))

    def _send_frame(self, frame: dict[str, Any]) -> None:
        send_safely(self._send, frame)

    def _refresh_always_allowed(self) -> None:
        names = sorted(self._runtime.always_allowed)
        if names != list(self._chat.always_allowed):
            self._chat.always_allowed = names

    def refresh_data_names(self) -> None:
        """The names the ``@`` menu offers: the chat's data, as it is now."""
        names = notebook_data.data_names(self._runtime.data)
        if names != list(self._chat.data_names):
            self._chat.data_names = names
        details = notebook_data.data_details(self._runtime.data)
        if details != self._chat.data_details:  # a frame may grow under the same name
            self._chat.data_details = details

    def snapshot(self) -> None:
        """Answer ``hello``: the live state of messages whose traits are behind."""
        self._coalescer.flush()
        seq = self._coalescer.seq
        items: list[SnapshotItem] = []
        for message_id in sorted(self._dirty):
            message = self._runtime.thread.message(message_id)
            if message is not None:
                items.append({"message": self._wire(message), "rev": seq})
        send_safely(self._send, snapshot_message(seq, items))

    # --- loop plumbing -------------------------------------------------------------

    def _clock(self) -> float:
        loop = self.loop or current_loop()
        return loop.time() if loop is not None else 0.0

    def _call_later(self, delay: float, fn: Any) -> Any:
        loop = self.loop or current_loop()
        if loop is None:  # no event loop (a plain script): send at once
            fn()
            return _NoTimer()
        self.loop = loop
        return loop.call_later(delay, fn)

    def close(self) -> None:
        """Stop the timers and close the messages' models (the chat closes)."""
        self._coalescer.close()
        if self._catch_up_timer is not None:
            self._catch_up_timer.cancel()
            self._catch_up_timer = None
        for model in self._models.values():
            model.close()


def send_safely(send: Callable[[Any], Any], value: Any) -> Any:
    """``send(value)`` (a message dumped first); if the kernel's serializer
    refuses it (a lone surrogate, a huge int, NaN that got past the runtime's
    checks), send its JSON-safe copy: an odd value never stops the sync."""
    data = message_for_browser(value) if isinstance(value, Message) else value
    try:
        return send(data)
    except (ValueError, TypeError, RecursionError) as exc:
        log.warning("ipygenui widget sends a cleaned copy: %s", exc)
    return send(json_safe(data))


def thread_list(threads: Any) -> list[dict[str, Any]]:
    return [
        {"id": t.id, "title": t.title, "messages": t.messages, "updated_at": t.updated_at}
        for t in threads
    ]


class _NoTimer:
    def cancel(self) -> None:
        pass


def current_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
