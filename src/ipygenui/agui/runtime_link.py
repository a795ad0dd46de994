"""AG-UI attached to a runtime from outside, through its public thread events.

``Runtime.subscribe_agui``, ``agui_events`` and ``ag_ui_app`` hand the runtime
to the functions here: one ``AGUIEmitter`` per runtime, made on first use and
subscribed as a thread listener, following the thread shown
(``ActivePathChanged`` names it). The runtime keeps no AG-UI state.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable, Collection, Iterable
from typing import Any, Protocol

from ag_ui.core import BaseEvent

from ..events import ActivePathChanged, ThreadEvent, ThreadListener
from ..messages import Thread
from ._emitter import AGUIEmitter, AGUIListener
from .server import AGUIApp, ServedRuntime
from .server import ag_ui_app as _ag_ui_app

__all__ = ["agui_events", "serve", "subscribe_agui"]


class EmittingRuntime(Protocol):
    """What the emitter reads of a runtime."""

    @property
    def thread(self) -> Thread: ...

    @property
    def agent_state(self) -> dict[str, Any]: ...

    def subscribe(self, listener: ThreadListener) -> Callable[[], None]: ...


_emitters: weakref.WeakKeyDictionary[Any, weakref.ref[AGUIEmitter]] = weakref.WeakKeyDictionary()
"""Each runtime's emitter, held weakly: the runtime holds it (as a listener)."""


def _emitter(runtime: EmittingRuntime) -> AGUIEmitter:
    known = _emitters.get(runtime)
    emitter = known() if known is not None else None
    if emitter is None:
        emitter = AGUIEmitter(
            runtime.thread.id,
            lambda: runtime.thread,
            lambda: runtime.agent_state,
            lambda: getattr(runtime, "_client_tool_names", frozenset()),
        )

        def listen(event: ThreadEvent) -> None:
            if isinstance(event, ActivePathChanged):  # AG-UI events name the thread shown
                emitter.thread_id = event.thread_id
            emitter(event)

        runtime.subscribe(listen)
        _emitters[runtime] = weakref.ref(emitter)
    return emitter


def subscribe_agui(runtime: EmittingRuntime, listener: AGUIListener) -> Callable[[], None]:
    return _emitter(runtime).subscribe(listener)


def agui_events(runtime: EmittingRuntime) -> AsyncIterator[BaseEvent]:
    return _emitter(runtime).events()


def serve(
    runtime: ServedRuntime,
    token: str | None,
    allow_origins: Iterable[str],
    allow_hosts: Collection[str] | None,
    max_body_bytes: int | None,
    max_depth: int | None,
) -> AGUIApp:
    """``Runtime.ag_ui_app``: a limit left None is the guard's default (``_http_guard.py``).

    As Jupyter Server does, every request must send the app's ``token``
    (``app.token``, made per app unless ``token=`` sets it) as
    ``Authorization: Bearer <token>`` or ``?token=<token>`` (``app.url(base)``):
    401 without it, 403 when wrong. ``Host`` must be a loopback name unless
    ``allow_hosts`` lists more; a web page of another origin is refused unless
    ``allow_origins`` lists it (those get CORS headers and a preflight answer);
    bodies only as ``application/json`` (415), at most ``max_body_bytes`` (413;
    None: 1 MB) and nested at most ``max_depth`` (400; None: 64 levels). A client
    may answer only a human tool's calls; a call waiting for approval is decided
    in the notebook or by the client's AG-UI ``resume`` (approve, edit, reject).
    A client that disconnects cancels its run. See ``docs/agui-server.md``.
    """
    limits = {"max_body_bytes": max_body_bytes, "max_depth": max_depth}
    given = {name: value for name, value in limits.items() if value is not None}
    return _ag_ui_app(runtime, token, allow_origins, allow_hosts, **given)
