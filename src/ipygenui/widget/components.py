"""The widget side of components: specs for the browser, kernel outputs, user state.

- ``component_specs`` (a Chat trait): what the browser needs to render each
  registered component (kind, ES module source or built-in id), sent once.
- Kernel outputs (a Python component's MIME bundle, a DataFrame's rows) from
  :class:`~ipygenui.components.live.ComponentHost`: live ones as
  ``component_output`` custom messages, final ones also in the
  ``component_outputs`` trait so a reload or a saved notebook shows them.
- ``component_state`` messages from the browser (a Form's values), validated
  and stored on the call's part by :meth:`Runtime.set_component_state`.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import ValidationError

from ..components.component import Component
from ..components.live import ComponentHost, ComponentOutput
from ..runtime import Runtime
from .protocol import ComponentStateMsg, component_output_message

__all__ = ["ComponentBridge"]


class _Widget(Protocol):
    component_outputs: dict[str, Any]

    def send(self, content: Any, buffers: Any = None) -> Any: ...


class ComponentBridge:
    """Connects one Chat widget to its runtime's components."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        components = [c for c in runtime.components if isinstance(c, Component)]
        self.specs: list[dict[str, Any]] = [c.spec() for c in components]
        self.host = ComponentHost(components, lambda: runtime.thread, self._output)
        self._widget: _Widget | None = None
        self._unsubscribe = runtime.subscribe(self.host.handle) if self.host.active else None

    def attach(self, widget: _Widget) -> None:
        """Start sending outputs to ``widget`` (once its comm is open)."""
        self._widget = widget

    def render_saved(self) -> None:
        """Render the kernel outputs of a thread that was loaded, not streamed."""
        if self.host.active:
            self.host.render_thread()

    def handles(self, content: Any) -> bool:
        """Apply a ``component_state`` message; False for any other message.

        Raises ``ValueError`` (the widget answers it) when the message or the
        state is invalid; nothing changes then.
        """
        if not (isinstance(content, dict) and content.get("type") == "component_state"):
            return False
        try:
            msg = ComponentStateMsg.model_validate(content)
        except ValidationError as exc:
            raise ValueError(f"invalid component_state message: {exc.errors()[0]['msg']}") from None
        self.runtime.set_component_state(msg.tool_call_id, msg.state)
        return True

    def _output(self, output: ComponentOutput) -> None:
        widget = self._widget
        if widget is None:
            return
        data = output.to_json()
        widget.send(component_output_message(data))
        if output.final:
            widget.component_outputs = {**widget.component_outputs, output.tool_call_id: data}

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.host.close()
