"""Kernel-side rendering of components while their props stream in.

``ComponentHost`` listens to a runtime's thread events. For a Python-rendered
component it re-runs the function as props stream (throttled, skipped when
the props did not change, in a thread of its own so the stream never waits) and
once more with the final validated props; for a component that computes data
in the kernel (``Component.resolve``, e.g. a Table of a kernel DataFrame) it
resolves once the props are final. Every result goes to a *sink* callback as a
``ComponentOutput``; the widget forwards it to the browser, a test records it.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from .._internal.timed_wait import wait_set
from .._internal.worker_threads import call_in_thread
from ..data import DataStore, data_ref_fields, using_data
from ..events import (
    ActivePathChanged,
    MessageAdded,
    MessagePatched,
    MessageReplaced,
    ThreadEvent,
)
from ..messages import Message, Thread, ToolCallPart
from ..tools import ToolArgumentsError
from ..tools.component_names import component_id_of, component_name_of, update_of
from .component import Component
from .python_component import PythonComponent, partial_props
from .shown import effective_props

__all__ = ["ComponentHost", "ComponentOutput", "LiveRender"]

log = logging.getLogger(__name__)

# One sequence for every output, so a view can tell newer from older whatever renderer sent it.
_SEQ = itertools.count(1)

_WATCHED_FIELDS = frozenset({"args", "args_complete", "has_result", "is_error"})


@dataclass(frozen=True)
class ComponentOutput:
    """What the kernel computed for one shown component.

    ``bundle``: a MIME bundle from a Python component's function; ``props``:
    extra props computed in the kernel; ``error``: why the render failed;
    ``final``: rendered from the final validated props (no more updates
    unless the model updates the component).
    """

    tool_call_id: str
    component: str
    bundle: dict[str, Any] | None = None
    props: dict[str, Any] | None = None
    error: str | None = None
    final: bool = False
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Sink = Callable[[ComponentOutput], None]


def _props_key(args: dict[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, default=repr)


class LiveRender:
    """Renders one Python component call as its props stream in.

    ``push(args)`` only records the (live, shared) args and wakes the render
    task: it never blocks. The task snapshots the args, skips unchanged props,
    runs the function in a worker thread, waits ``min_interval``, repeats;
    ``finish(props)`` renders once more with the validated props and stops.
    """

    def __init__(
        self,
        component: PythonComponent,
        tool_call_id: str,
        sink: Sink,
        *,
        min_interval: float = 0.25,
    ) -> None:
        self.component = component
        self.tool_call_id = tool_call_id
        self.sink = sink
        self.min_interval = min_interval
        self.renders = 0
        self._args: dict[str, Any] | None = None
        self._dirty = False
        self._final: Any = None
        self._last_key: str | None = None
        self._wake = asyncio.Event()
        self._final_set = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def done(self) -> bool:
        return self._task is not None and self._task.done()

    def push(self, args: dict[str, Any]) -> None:
        """New partial props (not copied: read when the next render starts)."""
        if self._final is not None:
            return
        self._args = args
        self._dirty = True
        self._start()

    def finish(self, props: Any) -> None:
        """The final validated props model: render once with them, then stop."""
        self._final = props
        self._final_set.set()
        self._start()

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def _start(self) -> None:
        self._wake.set()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            if self._final is None and not self._dirty:
                self._wake.clear()
                await self._wake.wait()
            if self._final is not None:
                await self._render(self._final, final=True)
                return
            self._dirty = False
            args = copy.deepcopy(self._args or {})
            key = _props_key(args)
            if key == self._last_key or not args:
                continue
            self._last_key = key
            await self._render(partial_props(self.component.props, args), final=False)
            # Throttle: later pushes wait; the final props cut the wait short.
            await wait_set(self._final_set, self.min_interval)

    async def _render(self, props: Any, *, final: bool) -> None:
        try:
            # a thread of its own: hung renders cannot use up a shared pool
            bundle = await call_in_thread(self.component.render_bundle, props)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # SystemExit too: a render must not end the kernel
            if not final:  # half-formed props often break a function: keep the last good output
                return
            log.debug("component %s failed", self.component.name, exc_info=True)
            error = f"{self.component.name} failed: {type(exc).__name__}: {exc}"
            self._emit(
                ComponentOutput(self.tool_call_id, self.component.name, error=error, final=True)
            )
            return
        self._emit(
            ComponentOutput(self.tool_call_id, self.component.name, bundle=bundle, final=final)
        )

    def _emit(self, output: ComponentOutput) -> None:
        self.renders += 1
        output = ComponentOutput(**{**asdict(output), "seq": next(_SEQ)})
        try:
            self.sink(output)
        except Exception:  # a broken view must not break the run
            log.exception("component output sink failed")


class ComponentHost:
    """Drives kernel-side rendering for the components of one runtime.

    Feed it the runtime's events (``handle`` is a ``ThreadListener``).
    ``thread`` returns the current thread (to read the patched parts).
    Keeps the latest output of each call in ``outputs`` (a fresh view needs it).
    """

    def __init__(
        self,
        components: Iterable[Component],
        thread: Callable[[], Thread],
        sink: Sink,
        *,
        min_interval: float = 0.25,
        data: Callable[[], DataStore | None] | None = None,
    ) -> None:
        self.components = {
            c.name: c
            for c in components
            if isinstance(c, PythonComponent)
            or type(c).resolve is not Component.resolve
            or data_ref_fields(c.props)
        }
        self.data = data
        """The conversation's data store: references in props resolve there."""
        self.thread = thread
        self.sink = sink
        self.min_interval = min_interval
        self.outputs: dict[str, ComponentOutput] = {}
        self._live: dict[str, LiveRender] = {}
        self._finished: dict[str, str] = {}  # tool call id -> props key of its final render

    @property
    def active(self) -> bool:
        """Whether any component needs the kernel (else events can be ignored)."""
        return bool(self.components)

    def handle(self, event: ThreadEvent) -> None:
        """React to a thread event; never raises."""
        if not self.components:
            return
        try:
            if isinstance(event, MessageAdded | MessageReplaced):
                for part in event.message.tool_calls:
                    self._sync(part)
            elif isinstance(event, MessagePatched):
                self._patched(event)
            elif isinstance(event, ActivePathChanged):  # another branch or thread shown
                for message in event.messages[event.start :]:
                    for part in message.tool_calls:
                        if part.args_complete:
                            self._sync(part)  # rendered already: nothing happens
        except Exception:
            log.exception("component host failed on %r", type(event).__name__)

    def _patched(self, event: MessagePatched) -> None:
        message: Message | None = event.message  # no thread lookup per delta
        for op in event.ops:
            index = op.get("part")
            if index is None or (
                op.get("op") != "add_part" and op.get("field") not in _WATCHED_FIELDS
            ):
                continue
            message = message or self.thread().message(event.message_id)
            if message is None or not 0 <= index < len(message.parts):
                return
            part = message.parts[index]
            if isinstance(part, ToolCallPart):
                self._sync(part)

    def _sync(self, part: ToolCallPart) -> None:
        target_id = update_of(part.tool_name)
        if target_id is not None:  # a successful update re-renders its target
            if part.has_result and not part.is_error:
                self._rerender(target_id)
            return
        spec = self.components.get(component_name_of(part.tool_name) or "")
        if spec is None:
            return
        if not part.args_complete:
            if isinstance(spec, PythonComponent):
                self._live_render(spec, part.tool_call_id).push(part.args)
            return
        # after an update, the step's end replays the original call: use current props
        args = effective_props(self.thread()).get(component_id_of(part.tool_call_id), part.args)
        self._finish(spec, part.tool_call_id, dict(args))

    def _live_render(self, spec: PythonComponent, tool_call_id: str) -> LiveRender:
        live = self._live.get(tool_call_id)
        if live is None or live.done:
            live = LiveRender(spec, tool_call_id, self._record, min_interval=self.min_interval)
            self._live[tool_call_id] = live
        return live

    def _finish(self, spec: Component, tool_call_id: str, args: dict[str, Any]) -> None:
        key = _props_key(args)
        if self._finished.get(tool_call_id) == key:
            return  # the step's end replays a call already rendered
        self._finished[tool_call_id] = key
        try:
            props = spec.validate_props(args)
        except ToolArgumentsError as exc:
            live = self._live.pop(tool_call_id, None)
            if live is not None:
                live.cancel()
            self._record(ComponentOutput(tool_call_id, spec.name, error=str(exc), final=True))
            return
        if isinstance(spec, PythonComponent):
            self._live_render(spec, tool_call_id).finish(props)
            return
        try:
            with using_data(self.data() if self.data is not None else None):
                extra = spec.resolve(props)
        except Exception as exc:
            self._record(ComponentOutput(tool_call_id, spec.name, error=str(exc), final=True))
            return
        if extra is not None:
            self._record(ComponentOutput(tool_call_id, spec.name, props=extra, final=True))

    def _rerender(self, component_id: str) -> None:
        thread = self.thread()
        props = effective_props(thread).get(component_id)
        if props is None:
            return
        for message in thread.messages:
            for part in message.tool_calls:
                spec = self.components.get(component_name_of(part.tool_name) or "")
                if spec is not None and component_id_of(part.tool_call_id) == component_id:
                    self._finish(spec, part.tool_call_id, props)
                    return

    def render_thread(self) -> None:
        """Render every finished component call of the current thread (after a load)."""
        try:
            for message in self.thread().messages:
                for part in message.tool_calls:
                    if part.args_complete:
                        self._sync(part)
        except RuntimeError:  # no running event loop (a plain script): nothing to render into
            log.warning("components of the loaded thread not rendered: no running event loop")

    def _record(self, output: ComponentOutput) -> None:
        if not output.seq:
            output = ComponentOutput(**{**asdict(output), "seq": next(_SEQ)})
        self.outputs[output.tool_call_id] = output
        try:
            self.sink(output)
        except Exception:
            log.exception("component output sink failed")

    def close(self) -> None:
        """Stop every render in progress."""
        for live in self._live.values():
            live.cancel()
        self._live.clear()
