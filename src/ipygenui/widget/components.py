"""The widget side of components: specs for the browser, kernel outputs, user state.

- ``component_specs`` (a Chat trait): what the browser needs to render each
  registered component (kind, ES module source or built-in id), sent once.
- Kernel outputs (a Python component's MIME bundle, a DataFrame's rows) from
  :class:`~ipygenui.components.live.ComponentHost`: live ones as
  ``component_output`` custom messages, final ones also in the
  ``component_outputs`` trait so a reload or a saved notebook shows them.
- ``component_props`` (a Chat trait): the effective props of every component
  an update call changed (``components.shown.updated_props``), rewritten when
  a call's arguments or result land; the browser renders them, merging nothing.
- ``component_state`` messages from the browser (a Form's values), validated
  and stored on the call's part by :meth:`Runtime.set_component_state`.
- ``a2ui_action`` messages from an A2UI surface's button: what the user
  entered is stored as the call's state, then the button's event (read from
  the surface the kernel holds, its context resolved) starts the next turn.
- ``data_window`` messages from a Table of a large kernel table: rows of one
  window, sorted and filtered in the kernel (``data.RowWindows``) in a worker
  thread so a first sort or filter of a million rows never holds up the
  event loop.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from .._internal.worker_threads import can_start_threads
from ..components.component import Component
from ..components.live import ComponentHost, ComponentOutput
from ..components.shown import effective_props, updated_props
from ..data import RowWindows, using_data
from ..events import ActivePathChanged, MessageAdded, MessagePatched, MessageReplaced, ThreadEvent
from ..runtime import Runtime
from ..tools.component_names import component_id_of, component_name_of
from ._protocol import (
    MAX_WINDOW,
    A2UIActionMsg,
    ComponentStateMsg,
    DataWindowMsg,
    component_output_message,
    data_window_message,
)

log = logging.getLogger(__name__)

__all__ = ["ComponentBridge"]


# A patch of one of these fields may change a component's effective props.
_PROPS_FIELDS = frozenset({"args", "has_result", "is_error"})


class _Widget(Protocol):
    component_outputs: dict[str, Any]
    component_props: dict[str, Any]

    def send(self, content: Any, buffers: Any = None) -> Any: ...


class ComponentBridge:
    """Connects one Chat widget to its runtime's components."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        components = [c for c in runtime.components if isinstance(c, Component)]
        self.specs: list[dict[str, Any]] = [c.spec() for c in components]
        self.host = ComponentHost(
            components, lambda: runtime.thread, self._output, data=lambda: runtime.data
        )
        self._components = {c.name: c for c in components}
        self.windows = RowWindows(max_rows=MAX_WINDOW)
        self._widget: _Widget | None = None
        self._unsubscribe = runtime.subscribe(self.host.handle) if self.host.active else None
        self._unsubscribe_props = runtime.subscribe(self._props_event)

    def attach(self, widget: _Widget) -> None:
        """Start sending outputs and props to ``widget`` (once its comm is open)."""
        self._widget = widget
        self._send_props()

    def _props_event(self, event: ThreadEvent) -> None:
        if isinstance(event, MessagePatched):
            if not any(
                op.get("op") == "add_part" or op.get("field") in _PROPS_FIELDS for op in event.ops
            ):
                return  # streaming text or arguments: no update's result moved
        elif not isinstance(event, MessageAdded | MessageReplaced | ActivePathChanged):
            return
        try:
            self._send_props()
        except Exception:  # a listener never raises into the loop
            log.exception("component props failed on %r", type(event).__name__)

    def _send_props(self) -> None:
        widget = self._widget
        if widget is None:
            return
        props = updated_props(self.runtime.thread)
        if "A2UI" in self._components:  # a surface later calls changed: redrawn where it is
            from ..a2ui import redrawn_props

            props.update(redrawn_props(self.runtime.thread))
        if props != widget.component_props:
            widget.component_props = props

    def render_saved(self) -> None:
        """Render the kernel outputs of a thread that was loaded, not streamed."""
        if self.host.active:
            self.host.render_thread()

    def set_state(self, msg: ComponentStateMsg) -> None:
        """Apply a ``component_state`` (``ValueError``, which the widget
        answers, when the state is invalid; nothing changes then)."""
        self.runtime.set_component_state(msg.tool_call_id, msg.state)

    def a2ui_action(self, msg: A2UIActionMsg) -> None:
        """Store what the user entered, then start a turn with the button's
        event (its context resolved against the surface's data model)."""
        from ..a2ui import action_event, action_summary, action_text

        if msg.data is not None:
            self.runtime.set_component_state(msg.tool_call_id, {"data": msg.data})
        thread = self.runtime.thread
        event = action_event(thread, msg.tool_call_id, msg.surface_id, msg.component_id)
        if self.runtime.running:
            raise ValueError("a reply is still running: press the button again once it ends")
        self.runtime._send_summarized(action_text(event), action_summary(thread, event))

    def source(self, msg: DataWindowMsg) -> Any:
        """The object the table of ``msg``'s call shows (``ValueError`` naming what is wrong)."""
        thread = self.runtime.thread
        calls = (p for m in thread.messages for p in m.tool_calls)
        part = next((p for p in calls if p.tool_call_id == msg.tool_call_id), None)
        if part is None:
            raise ValueError(f"no tool call {msg.tool_call_id!r} in this chat")
        spec = self._components.get(component_name_of(part.tool_name) or "")
        source = getattr(spec, "source_object", None)
        obj = None
        if spec is not None and source is not None:
            args = effective_props(thread).get(component_id_of(part.tool_call_id), part.args)
            with using_data(self.runtime.data):
                obj = source(spec.validate_props(dict(args)))
        if obj is None:
            raise ValueError(f"tool call {msg.tool_call_id!r} shows no table of kernel data")
        return obj

    def answer_window(self, msg: DataWindowMsg) -> None:
        """Answer on the loop; a window that needs a first sort is cut in a worker thread."""

        def send(answer: Any) -> None:
            if self._widget is not None:
                self._widget.send(answer)

        try:
            obj = self.source(msg)
        except Exception as exc:  # the browser shows it; the chat goes on
            send(data_window_message(msg, error=str(exc) or type(exc).__name__))
            return

        def compute() -> Any:
            try:
                window = self.windows.window(
                    obj, msg.offset, msg.limit, msg.sort, msg.descending, msg.filter
                )
                return data_window_message(msg, window)
            except KeyError as exc:
                return data_window_message(msg, error=str(exc.args[0]))
            except Exception as exc:
                return data_window_message(msg, error=f"{type(exc).__name__}: {exc}")

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test driving the bridge directly): answer now
            send(compute())
            return
        if not self.windows.needs_sorting(obj, msg.sort, msg.descending, msg.filter):
            send(compute())  # a slice of a kept order: under a millisecond, no thread hop
            return
        if not can_start_threads():  # a browser kernel: the loop is the only thread
            send(compute())
            return
        future = loop.run_in_executor(None, compute)
        future.add_done_callback(lambda f: None if f.cancelled() else send(f.result()))

    def _output(self, output: ComponentOutput) -> None:
        widget = self._widget
        if widget is None:
            return
        data = output.to_json()
        widget.send(component_output_message(data))
        if output.final:
            widget.component_outputs = {**widget.component_outputs, output.tool_call_id: data}

    def close(self) -> None:
        self._unsubscribe_props()
        self._unsubscribe_props = lambda: None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.host.close()
