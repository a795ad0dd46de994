"""``gu.Chat``: the notebook widget around a :class:`~ipygenui.runtime.Runtime`.

Kernel side of the sync (the browser side is ``js/src/sync.js``; see
docs/architecture.md):
- durable state in traits: one :class:`MessageModel` per message, updated at
  message boundaries (added, replaced) and whenever the run changes phase;
  messages and ops go out in their wire form (:mod:`._protocol`);
- while a reply streams, patch ops are coalesced into ``frame`` custom
  messages (at most ~30 a second, see :mod:`._sync`);
- a view that opens mid-stream sends ``hello`` and gets a ``snapshot`` of the
  messages whose traits are behind.

Clicks arrive as custom messages: validated (:mod:`._protocol`), hopped onto
the kernel's event loop (comm handlers may run on another thread with
JupyterLab ≥ 4.4 and ipykernel ≥ 7), then applied to the runtime. A message
that changes nothing is answered with ``{"type": "error"}``, never raised.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Concatenate, Generic, ParamSpec, TypeVar, overload

import anywidget
from ipywidgets import widget_serialization
from pydantic import BaseModel
from traitlets import Bool, Dict, Instance, List, TraitError, Unicode, validate

from .._internal.sanitize import json_safe
from ..data import DataStore
from ..data.attachments import data_attachment
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
    ThreadSummary,
)
from ..messages import Message, Thread
from ..models.base import Model
from ..runtime import Run, Runtime
from ..runtime.arguments import (
    check_model,
    check_runtime_arguments,
    check_type,
    take_renamed,
    warn_renamed,
)
from . import _notebook_data as notebook_data
from ._bundle import Bundle, shared_bundle
from ._mcp_apps import AppBridge
from ._protocol import (
    STANDARD_PARAM_NAMES,
    WIRE_LIMITS,
    A2UIActionMsg,
    AlwaysMsg,
    ApproveMsg,
    CancelMsg,
    ChooseModelMsg,
    ComponentStateMsg,
    DataPick,
    DataWindowMsg,
    EditMsg,
    FeedbackMsg,
    HelloMsg,
    LoadModuleMsg,
    McpAppMsg,
    NewThreadMsg,
    PatchOp,
    ProtocolError,
    RegenerateMsg,
    RejectMsg,
    RenameThreadMsg,
    RetryMsg,
    RevokeAlwaysMsg,
    SendMsg,
    SnapshotItem,
    SuggestionMsg,
    SwitchBranchMsg,
    SwitchThreadMsg,
    ToolResultMsg,
    TranscriptMsg,
    accepted_message,
    error_message,
    message_for_browser,
    module_message,
    ops_for_browser,
    parse_client_message,
    snapshot_message,
    transcript_message,
    uploads_for_runtime,
)
from ._sync import FrameCoalescer
from .components import ComponentBridge
from .message_model import MessageModel
from .static_files import LOADER, lazy_module_source

log = logging.getLogger(__name__)


CATCH_UP_INTERVAL = 0.25
"""Mid-run boundaries (a step's end, a tool result, a phase change) write the
traits at most this often; a run's end writes them at once. A tool round
trip then costs one snapshot of the message, not one per event."""

_SETTLED_PHASES = ("idle", "waiting")

_WITHOUT_LOOP: frozenset[type[BaseModel]] = frozenset(
    {HelloMsg, LoadModuleMsg, ComponentStateMsg, A2UIActionMsg, DataWindowMsg, McpAppMsg}
)
"""Browser messages handled with no event loop running: they start or resume
no run (the bridges' own messages answer or refuse by themselves)."""

_LENGTH = r"\d+(\.\d+)?(px|rem|em|vh)"
# A length, or min()/max() of lengths ("min(640px, 80vh)"): digits and units
# only, so nothing but a size reaches the style.
_CSS_LENGTH = re.compile(rf"{_LENGTH}|(min|max)\(\s*{_LENGTH}(\s*,\s*{_LENGTH})+\s*\)")
_APP_ORIGIN = re.compile(
    r"(https://[^\s\"'<>]+|http://(localhost|127\.0\.0\.1)(:\d+)?(/[^\s\"'<>]*)?)"
)
"""A sandbox proxy's URL: https, or plain http on this machine only."""
DEFAULT_HEIGHT = "min(640px, 80vh)"
"""The chat's height unless ``height=`` says otherwise: its thread scrolls inside."""
GROW = "auto"
"""``height="auto"`` (or ``None``): no bound, the chat grows with its thread."""


class _Height(Unicode):
    """A CSS length; ``None`` reads as "auto" (no bound)."""

    def validate(self, obj: Any, value: Any) -> Any:
        return super().validate(obj, GROW if value is None else value)


P = ParamSpec("P")
R = TypeVar("R")


class _FromRuntime(Generic[P, R]):
    """A Chat method that is its runtime's: ``chat.approve`` is
    ``chat.runtime.approve``, with its signature and docstring, so the two
    cannot drift (what a click does goes through the same method)."""

    def __init__(self, method: Callable[Concatenate[Runtime, P], R]) -> None:
        self.__wrapped__ = method  # inspect.signature and help() read the runtime's
        self.__name__ = method.__name__
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, chat: None, owner: type[Any]) -> _FromRuntime[P, R]: ...
    @overload
    def __get__(self, chat: Chat, owner: type[Any]) -> Callable[P, R]: ...
    def __get__(self, chat: Chat | None, owner: type[Any]) -> Any:
        if chat is None:
            return self
        method: Callable[P, R] = getattr(chat.runtime, self.__name__)
        return method

    def __call__(self, chat: Chat, /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``Chat.approve(chat, ...)``, as for a plain method."""
        method: Callable[P, R] = getattr(chat.runtime, self.__name__)
        return method(*args, **kwargs)


class Chat(anywidget.AnyWidget):
    """A chat thread in the notebook: an LLM tool loop with a live view.

    ``Chat(model=None, tools=[...], components=[...], instructions=...,
    suggestions=..., persist=...)`` takes the same arguments as
    :class:`~ipygenui.runtime.Runtime` (or an existing ``runtime=``). Display it
    to get the thread, a composer and approval buttons; drive it from code
    with the runtime's own methods (``send``, ``approve``, ...: the same
    objects, not copies). Listeners and ``run_sync`` (a notebook always runs
    an event loop: ``await chat.send(...)``) stay on ``chat.runtime``.

    No name of the runtime's hides one of the widget's. ``chat.set_state``,
    ``get_state`` and ``open`` are ipywidgets' (the widget's synced traits;
    every browser ``update`` goes through ``set_state``); the state shared with
    an agent is ``chat.agent_state`` / ``chat.set_agent_state(...)``.
    ``send`` is the one name with two forms, kept on purpose: ``chat.send("hi")``
    (text, optional attachments) starts a run and returns it, as
    ``Runtime.send`` does; ``chat.send({...}, buffers)`` (a dict) is
    ipywidgets' custom message to the frontend, unchanged, so ipywidgets' own
    callers keep working. ``close`` closes the widget and its runtime.

    ``models=["openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5", "demo"]``
    (names or model objects) puts a model picker in the header; the choice
    applies to the next reply and is saved with the thread. ``chat.model =
    ...`` switches from code.

    The chat is at most ``min(640px, 80vh)`` tall by default: its thread
    scrolls inside, the composer stays in view at the bottom, and the thread
    follows a streaming reply unless the user scrolled up ("Jump to latest"
    brings it back). ``height="30rem"`` (a CSS length in ``px``, ``rem``,
    ``em`` or ``vh``, or ``min(...)``/``max(...)`` of them) sets another
    bound; ``height="auto"`` (or ``None``) lets the chat grow with its thread
    and the notebook scroll instead. It can be changed later (``chat.height
    = "auto"``).
    """

    _esm = LOADER  # the bundle comes from the kernel's one Bundle model (_bundle.py)
    _bundle = Instance(Bundle).tag(sync=True, **widget_serialization)

    messages = List(Instance(MessageModel)).tag(sync=True, **widget_serialization)
    phase = Unicode("idle").tag(sync=True)
    phase_detail = Unicode("").tag(sync=True)
    """What the phase is about, e.g. the tools running."""
    running = Bool(False).tag(sync=True)
    suggestions = List(Unicode()).tag(sync=True)
    model_name = Unicode("").tag(sync=True)
    offline = Bool(False).tag(sync=True)
    model_choices = List(Dict()).tag(sync=True)
    """The models the header's picker offers: ``{id, name, provider}`` each
    (``Runtime.models``); empty: no picker, the model's name only."""
    model_choice = Unicode("").tag(sync=True)
    """The id of the listed model in use ("" when the model is not listed)."""
    human_tools = List(Unicode()).tag(sync=True)
    standard_params = List(Unicode(), default_value=list(STANDARD_PARAM_NAMES)).tag(sync=True)
    """Argument names of every tool call that are for the UI: the view hides them."""
    limits = Dict(default_value=dict(WIRE_LIMITS)).tag(sync=True)
    """The limits the view applies before it sends (``protocol.WIRE_LIMITS``)."""
    component_specs = List(Dict()).tag(sync=True)
    component_outputs = Dict().tag(sync=True)
    component_props = Dict().tag(sync=True)
    """Component id -> effective props, for components an update changed (the kernel merges)."""
    _chat_key = Unicode("").tag(sync=True)
    """Names this chat to its views: what the user allowed to load is kept per chat."""
    height = _Height(DEFAULT_HEIGHT).tag(sync=True)
    """The chat's greatest height as a CSS length ("30rem"); "auto" (or "",
    ``None``) grows with the thread."""
    data_names = List(Unicode()).tag(sync=True)
    """The names in the chat's data (``runtime.data``), for the composer's ``@``
    menu; refreshed when a run settles and after each send."""
    data_details = Dict().tag(sync=True)
    """Name -> ``{"kind", "shape"}`` of each of ``data_names`` ("DataFrame",
    ``[1200, 5]``): the ``@`` menu says what each one is."""
    save_error = Unicode("").tag(sync=True)
    """Why the last save to ``persist`` failed ("" once a save succeeds): a
    trait, so a view opened later (or a reload) still shows it."""
    starters = List(Unicode()).tag(sync=True)
    """Prompts an empty thread offers as chips (``Runtime.starters``)."""
    always_allowed = List(Unicode()).tag(sync=True)
    """The tools this thread runs without asking: ``Runtime.always_allowed``,
    sorted, following it (``AlwaysAllowedChanged``, another thread shown); the
    view shows it so the user can take each grant back (``revoke_always``)."""
    thread_list = List(Dict()).tag(sync=True)
    """The chat's threads for the thread menu: ``{id, title, messages,
    updated_at}`` each (``Runtime.threads``)."""
    thread_id = Unicode("").tag(sync=True)
    """The id of the thread shown."""
    mcp_apps = Dict().tag(sync=True)
    """MCP Apps: tool name -> ``{uri, html, csp}`` of the tools whose calls
    show an app (read when the chat is built), so a card shows it while its
    arguments stream."""
    app_origin = Unicode("").tag(sync=True)
    """MCP Apps: the URL of a sandbox proxy on another origin (the spec's
    double iframe, docs/mcp-apps.md); "" renders each app in an iframe of
    its own with an opaque origin."""

    @validate("app_origin")
    def _check_app_origin(self, proposal: Any) -> str:
        value = str(proposal["value"]).strip()
        if value and not _APP_ORIGIN.fullmatch(value):
            raise TraitError(
                f"Chat app_origin={proposal['value']!r}: give the https:// (or http://localhost) "
                "URL of an MCP Apps sandbox proxy page on another origin, or '' for none"
            )
        return value

    @validate("height")
    def _check_height(self, proposal: Any) -> str:
        value = proposal["value"].strip()
        if value and value != GROW and not _CSS_LENGTH.fullmatch(value):
            raise TraitError(
                f"Chat height={proposal['value']!r}: give a CSS length such as '30rem', "
                f"'480px', '60vh' or {DEFAULT_HEIGHT!r}, or 'auto' to let the chat grow "
                "with its thread"
            )
        return str(value)

    def __init__(self, model: Any = None, *, runtime: Runtime | None = None, **kwargs: Any):
        widget_kwargs = {
            k: kwargs.pop(k) for k in ("layout", "height", "app_origin") if k in kwargs
        }
        if runtime is None:
            # checked here too, so a mistake is reported as Chat(...)'s
            checked = check_runtime_arguments(
                "Chat",
                {"model": model, **kwargs},
                also=("runtime", "layout", "height", "app_origin"),
            )
            runtime = Runtime(**checked)
        elif model is not None or kwargs:
            raise TypeError("pass either runtime= or the Runtime arguments, not both")
        check_type("Chat", "runtime", runtime, Runtime, "a gu.Runtime or None")
        self._runtime = runtime
        self._loop = _current_loop()
        self._models: dict[str, MessageModel] = {}
        self._dirty: set[str] = set()
        """Messages patched or replaced since their trait was last written."""
        self._catch_up_timer: Any = None
        self._coalescer = FrameCoalescer(
            self._send_frame, self._call_later, self._clock, prepare=self._ops_for_browser
        )
        # Initial values go in the comm_open message itself, not in updates after it.
        self._components = ComponentBridge(runtime)
        self._apps = AppBridge(runtime, self)
        super().__init__(
            component_specs=self._components.specs,
            model_name=str(getattr(runtime.agent or runtime.model, "name", "") or ""),
            offline=bool(getattr(runtime.agent or runtime.model, "offline", False)),
            model_choices=runtime.model_choices,
            model_choice=runtime.model_choice or "",
            human_tools=list(runtime.human_tool_names),
            _chat_key=uuid.uuid4().hex,
            _bundle=shared_bundle(),
            suggestions=list(runtime.current_suggestions),
            messages=[self._new_model(m) for m in runtime.thread.messages],
            phase=runtime.phase,
            running=runtime.running,
            save_error=runtime.save_error or "",
            starters=runtime.starters,
            thread_list=_thread_list(runtime.threads),
            thread_id=runtime.thread.id,
            data_names=_data_names(runtime),
            data_details=notebook_data.data_details(runtime.data),
            always_allowed=sorted(runtime.always_allowed),
            mcp_apps=_mcp_apps(runtime),
            **widget_kwargs,
        )
        self._unsubscribe: Callable[[], None] | None = runtime.subscribe(self._on_event)
        self.on_msg(self._on_comm_msg)
        # the @ menu lists the notebook's tables as they are after each cell
        self._stop_watching_cells = notebook_data.watch_cells(self._refresh_data_names)
        self._components.attach(self)
        self._components.render_saved()

    # --- public API: the runtime's, so code and clicks drive the same loop ----

    @property
    def runtime(self) -> Runtime:
        return self._runtime

    @property
    def thread(self) -> Thread:
        """The pydantic thread (live: it changes as runs stream)."""
        return self._runtime.thread

    @property
    def model(self) -> Model:
        """The model the next reply uses (``Runtime.model``); set it to a model
        or a ``"provider:model"`` name, checked as ``Chat(model=...)`` is."""
        return self._runtime.model

    @model.setter
    def model(self, value: Model | str | None) -> None:
        if not (isinstance(value, str) and value.strip() in self._runtime.models):
            check_model("Chat", value)  # so a mistake is reported as Chat's
        self._runtime.model = value

    @property
    def models(self) -> list[str]:
        """The ids of the models the header's picker offers (``Runtime.models``)."""
        return self._runtime.models

    @property
    def agent_state(self) -> dict[str, Any]:
        """The state shared with an external agent (``Runtime.agent_state``);
        ``set_agent_state`` replaces it."""
        return self._runtime.agent_state

    @property
    def state(self) -> dict[str, Any]:
        """Deprecated: the old name of :attr:`agent_state`."""
        warn_renamed("Chat.state", "Chat.agent_state")
        return self._runtime.agent_state

    @property
    def data(self) -> DataStore:
        """The objects the conversation can reference (``Runtime.data``)."""
        return self._runtime.data

    @overload
    def send(self, text: str, attachments: Sequence[Any] | None = None) -> Run: ...
    @overload
    def send(self, content: dict[str, Any], /, buffers: list[Any] | None = None) -> None: ...
    # mypy cannot map the dict form's positional ``buffers`` onto ``attachments``
    # (which carries it, see below) and its keyword onto ``buffers``
    def send(  # type: ignore[misc]
        self,
        text: str | dict[str, Any],
        attachments: Sequence[Any] | None = None,
        buffers: list[Any] | None = None,
    ) -> Run | None:
        """:meth:`Runtime.send`: start a run answering ``text`` (with
        ``attachments``); ``await`` the Run for its final message. A dict is
        ipywidgets' ``send(content, buffers)``: a custom message to the
        frontend (returns None)."""
        if isinstance(text, dict):
            # ipywidgets passes buffers by position: they arrive as ``attachments``
            super().send(text, buffers if buffers is not None else attachments)
            return None
        if buffers is not None:
            raise TypeError("buffers go with a dict (a custom message to the frontend), not text")
        return self._runtime.send(text, attachments)

    approve = _FromRuntime(Runtime.approve)
    reject = _FromRuntime(Runtime.reject)
    add_tool_result = _FromRuntime(Runtime.add_tool_result)

    revoke_always = _FromRuntime(Runtime.revoke_always)
    cancel = _FromRuntime(Runtime.cancel)
    retry = _FromRuntime(Runtime.retry)
    shown_components = _FromRuntime(Runtime.shown_components)
    surfaces = _FromRuntime(Runtime.surfaces)
    apps = _FromRuntime(Runtime.apps)
    results = _FromRuntime(Runtime.results)
    set_component_state = _FromRuntime(Runtime.set_component_state)
    set_app_context = _FromRuntime(Runtime.set_app_context)
    save = _FromRuntime(Runtime.save)
    edit = _FromRuntime(Runtime.edit)
    regenerate = _FromRuntime(Runtime.regenerate)
    switch_branch = _FromRuntime(Runtime.switch_branch)
    feedback = _FromRuntime(Runtime.feedback)
    new_thread = _FromRuntime(Runtime.new_thread)
    switch_thread = _FromRuntime(Runtime.switch_thread)
    rename_thread = _FromRuntime(Runtime.rename_thread)
    to_markdown = _FromRuntime(Runtime.to_markdown)
    usage = _FromRuntime(Runtime.usage)
    usage_total = _FromRuntime(Runtime.usage_total)
    set_agent_state = _FromRuntime(Runtime.set_agent_state)
    # No ``set_state`` here: that name is ipywidgets' (every browser ``update``
    # goes through it); the runtime's deprecated ``set_state`` stays on ``chat.runtime``.

    @property
    def threads(self) -> list[ThreadSummary]:
        """:attr:`Runtime.threads` (the synced form is the ``thread_list`` trait)."""
        return self._runtime.threads

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        restore_always_allowed: bool = False,
        restore_approvals: bool | None = None,
        **kwargs: Any,
    ) -> Chat:
        """A chat showing the thread saved at ``path`` (kwargs as for ``Chat``).

        The file is untrusted (see ``Runtime.load``): calls it left approved
        but not run ask again; ``restore_always_allowed=True`` keeps its
        "always allow" grants (``restore_approvals=`` is its old name, deprecated)."""
        restore = take_renamed(
            "Chat.load",
            {
                "restore_always_allowed": restore_always_allowed,
                "restore_approvals": restore_approvals,
            },
        )["restore_always_allowed"]
        widget_kwargs = {k: kwargs.pop(k) for k in ("layout", "height") if k in kwargs}
        runtime = Runtime.load(path, restore_always_allowed=restore, **kwargs)
        return cls(runtime=runtime, **widget_kwargs)

    def close(self) -> None:
        """Close the widget and its runtime (``Runtime.close``: a run in
        progress is cancelled and MCP servers' connections end)."""
        if hasattr(self, "_components"):
            self._components.close()
        if hasattr(self, "_apps"):
            self._apps.close()
        getattr(self, "_stop_watching_cells", lambda: None)()
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        if hasattr(self, "_coalescer"):
            self._coalescer.close()
        if getattr(self, "_catch_up_timer", None) is not None:
            self._catch_up_timer.cancel()
            self._catch_up_timer = None
        for model in getattr(self, "_models", {}).values():
            model.close()
        if hasattr(self, "_runtime"):  # its tool servers' connections end with the chat
            self._runtime.close()
        super().close()

    def __repr__(self) -> str:
        n = len(self._runtime.thread.messages) if hasattr(self, "_runtime") else 0
        return f"Chat(model={self.model_name!r}, messages={n})"

    # --- runtime events -> traits and frames -----------------------------------

    def _on_event(self, event: ThreadEvent) -> None:
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
            self.suggestions = list(event.suggestions)
        elif isinstance(event, SaveStatusChanged):
            self.save_error = event.error or ""
        elif isinstance(event, ActivePathChanged):
            self._show_path(event)
        elif isinstance(event, AlwaysAllowedChanged):
            self.always_allowed = list(event.tools)
        elif isinstance(event, FeedbackChanged):
            # A thumb pressed shows at once, not at the next catch-up.
            rated = self._runtime.thread.message(event.message_id)
            if rated is not None and rated.id in self._models:
                self._write(rated)
        elif isinstance(event, ThreadsChanged):
            with self.hold_sync():
                self.thread_list = _thread_list(event.threads)
                self.thread_id = event.active
        elif isinstance(event, ModelChanged):
            with self.hold_sync():
                self.model_name = event.name
                self.offline = event.offline
                self.model_choice = event.choice or ""
        if not isinstance(event, MessagePatched):  # patches never start or end a run
            self.running = self._runtime.running

    def _write(self, message: Message) -> None:
        """Write a message's full state to its trait (a boundary)."""
        # Pending ops for it are inside this snapshot: drop them, stamp the seq.
        self._coalescer.drop(message.id)
        self._dirty.discard(message.id)
        model = self._models.get(message.id)
        if model is None:
            self.messages = [*self.messages, self._new_model(message)]
        else:
            seq = self._coalescer.seq
            _send_safely(lambda data: model.set_snapshot(data, seq), self._wire(message))

    def _new_model(self, message: Message) -> MessageModel:
        seq = self._coalescer.seq
        model: MessageModel = _send_safely(
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
        models = [self._models.get(m.id) or self._new_model(m) for m in event.messages]
        self.messages = models
        if event.thread_id != self.thread_id:
            for message_id in [i for i in self._models if i not in shown]:
                self._coalescer.drop(message_id)
                self._dirty.discard(message_id)
                self._models.pop(message_id).close()

    def _on_run_changed(self, phase: str, detail: str | None) -> None:
        # When the run settles the traits catch up at once, so the final state
        # is durable whatever events came before; mid-run they catch up soon.
        if phase in _SETTLED_PHASES:
            self._catch_up()
            self._refresh_data_names()  # a tool result or attachment may have named one
        else:
            self._schedule_catch_up()
        with self.hold_sync():
            self.phase_detail = detail or ""
            self.phase = phase

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
        _send_safely(super().send, frame)

    # --- frontend messages -------------------------------------------------------

    def _on_comm_msg(self, _widget: Any, content: Any, buffers: Any) -> None:
        """Comm handler: may run on a subshell thread; never raises."""
        try:
            buffers = list(buffers or [])  # a send's attached files
            loop = self._loop
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._dispatch, content, buffers)
            else:
                self._dispatch(content, buffers)
        except Exception:
            log.exception("ipygenui widget could not schedule a frontend message")

    def _dispatch(self, content: Any, buffers: list[Any] | None = None) -> None:
        """Apply one frontend message on the kernel loop; answer errors.

        One validation for every message (``parse_client_message``: the whole
        message against its model), then its handler from ``_HANDLERS``."""
        if isinstance(content, dict) and content.get("kind") == "anywidget-command":
            return  # anywidget's own RPC, answered by its handler
        # A lone surrogate ("\ud83d" in the browser's JSON) would fail validation
        # and lose what the user typed: it becomes U+FFFD, as everywhere else.
        content = json_safe(content)
        try:
            msg = parse_client_message(content)
            if type(msg) not in _WITHOUT_LOOP and _current_loop() is None:
                # the runtime would keep the run until an await that never comes
                raise ProtocolError(
                    "no event loop runs for this chat: it cannot start or resume a run"
                )
            self._HANDLERS[type(msg)](self, msg, buffers or [])
        except (
            ProtocolError,
            ValueError,
            KeyError,
            TypeError,
            RuntimeError,
            OSError,
            ImportError,
        ) as exc:
            self._error(str(exc) or type(exc).__name__, content)
        except Exception as exc:
            log.exception("ipygenui widget failed on a frontend message")
            self._error(f"{type(exc).__name__}: {exc}", content)

    # One handler per browser message (``_HANDLERS`` maps each model to its
    # handler); each takes the parsed message and the comm's binary buffers.

    def _on_hello(self, msg: HelloMsg, buffers: list[Any]) -> None:
        self._snapshot()

    def _on_load_module(self, msg: LoadModuleMsg, buffers: list[Any]) -> None:
        try:
            super().send(module_message(msg.name, lazy_module_source(msg.name)))
        except OSError as exc:  # the view keeps showing code plain
            super().send(module_message(msg.name, error=str(exc)))

    def _on_send(self, msg: SendMsg, buffers: list[Any]) -> None:
        self._start(msg.text, self._attachments(msg, buffers))
        # The view clears its box only now: a refused send keeps the text.
        super().send(accepted_message(msg.ref))

    def _on_suggestion(self, msg: SuggestionMsg, buffers: list[Any]) -> None:
        if msg.text not in self.suggestions:
            raise ProtocolError("that suggestion is no longer offered")
        self._start(msg.text)

    def _on_approve(self, msg: ApproveMsg | AlwaysMsg, buffers: list[Any]) -> None:
        always = msg.type == "always"
        self._runtime.approve(msg.tool_call_id, args=msg.args, always=always, by="user")

    def _on_reject(self, msg: RejectMsg, buffers: list[Any]) -> None:
        self._runtime.reject(msg.tool_call_id, reason=msg.reason, by="user")

    def _on_revoke_always(self, msg: RevokeAlwaysMsg, buffers: list[Any]) -> None:
        if msg.tool_name not in self._runtime.always_allowed:
            raise ProtocolError(f"{msg.tool_name} is not always allowed in this chat")
        self._runtime.revoke_always(msg.tool_name)

    def _on_tool_result(self, msg: ToolResultMsg, buffers: list[Any]) -> None:
        self._runtime.add_tool_result(msg.tool_call_id, msg.result)

    def _on_cancel(self, msg: CancelMsg, buffers: list[Any]) -> None:
        if not self._runtime.running and self._runtime.phase != "waiting":
            raise ProtocolError("nothing to stop: no run is streaming")
        self._runtime.cancel()

    def _on_retry(self, msg: RetryMsg, buffers: list[Any]) -> None:
        if self._runtime.running:
            raise ProtocolError("a run is streaming: stop it before retrying")
        self._runtime.retry()

    # The conversation controls: versions of a message, ratings, threads. The
    # runtime checks the ids (an unknown one raises a clear error, which the
    # view shows) and stops a streaming run first where it must.

    def _on_edit(self, msg: EditMsg, buffers: list[Any]) -> None:
        self._runtime.edit(msg.message_id, msg.text)
        # The view's editor closes only now: a refused edit keeps the text.
        super().send(accepted_message(msg.ref, "edit"))

    def _on_regenerate(self, msg: RegenerateMsg, buffers: list[Any]) -> None:
        self._runtime.regenerate(msg.message_id)

    def _on_switch_branch(self, msg: SwitchBranchMsg, buffers: list[Any]) -> None:
        self._runtime.switch_branch(msg.message_id, msg.index)

    def _on_feedback(self, msg: FeedbackMsg, buffers: list[Any]) -> None:
        self._runtime.feedback(msg.message_id, msg.rating)

    def _on_new_thread(self, msg: NewThreadMsg, buffers: list[Any]) -> None:
        self._runtime.new_thread()

    def _on_switch_thread(self, msg: SwitchThreadMsg, buffers: list[Any]) -> None:
        self._runtime.switch_thread(msg.thread_id)

    def _on_rename_thread(self, msg: RenameThreadMsg, buffers: list[Any]) -> None:
        self._runtime.rename_thread(msg.thread_id, msg.title)

    def _on_choose_model(self, msg: ChooseModelMsg, buffers: list[Any]) -> None:
        # untrusted: only a model this chat lists, made now (its error is shown)
        if msg.model not in self._runtime.models:
            raise ProtocolError(f"the model {msg.model[:80]!r} is not offered in this chat")
        self._runtime.model = msg.model

    def _on_transcript(self, msg: TranscriptMsg, buffers: list[Any]) -> None:
        rt = self._runtime
        _send_safely(
            super().send, transcript_message(rt.to_markdown(), _transcript_name(rt.thread))
        )

    # What a shown component or MCP app sends goes to its bridge.

    def _on_component_state(self, msg: ComponentStateMsg, buffers: list[Any]) -> None:
        self._components.set_state(msg)

    def _on_a2ui_action(self, msg: A2UIActionMsg, buffers: list[Any]) -> None:
        self._components.a2ui_action(msg)

    def _on_data_window(self, msg: DataWindowMsg, buffers: list[Any]) -> None:
        self._components.answer_window(msg)

    def _on_mcp_app(self, msg: McpAppMsg, buffers: list[Any]) -> None:
        self._apps.answer(msg)

    _HANDLERS: ClassVar[dict[type[BaseModel], Callable[[Chat, Any, list[Any]], None]]] = {
        HelloMsg: _on_hello,
        LoadModuleMsg: _on_load_module,
        SendMsg: _on_send,
        SuggestionMsg: _on_suggestion,
        ApproveMsg: _on_approve,
        AlwaysMsg: _on_approve,
        RejectMsg: _on_reject,
        RevokeAlwaysMsg: _on_revoke_always,
        ToolResultMsg: _on_tool_result,
        CancelMsg: _on_cancel,
        RetryMsg: _on_retry,
        EditMsg: _on_edit,
        RegenerateMsg: _on_regenerate,
        SwitchBranchMsg: _on_switch_branch,
        FeedbackMsg: _on_feedback,
        NewThreadMsg: _on_new_thread,
        SwitchThreadMsg: _on_switch_thread,
        RenameThreadMsg: _on_rename_thread,
        ChooseModelMsg: _on_choose_model,
        TranscriptMsg: _on_transcript,
        ComponentStateMsg: _on_component_state,
        A2UIActionMsg: _on_a2ui_action,
        DataWindowMsg: _on_data_window,
        McpAppMsg: _on_mcp_app,
    }
    """The handler of each browser message (``_protocol.CLIENT_MESSAGES``; a
    test checks that every one has its handler)."""

    def _start(self, text: str, attachments: list[Any] | None = None) -> None:
        if self._runtime.running:
            raise ProtocolError("a run is already streaming: wait for it or stop it")
        # a background task; its errors end up in the message (a bad attachment
        # raises here, before anything is sent: the view keeps the text)
        self._runtime.send(text, attachments or None)
        self._refresh_data_names()

    def _attachments(self, msg: SendMsg, buffers: list[Any]) -> list[Any]:
        """The send's uploads as parts or files; a picked name must be in the data."""
        out: list[Any] = []
        for item in uploads_for_runtime(msg, buffers):
            if isinstance(item, DataPick):
                try:
                    notebook_data.pick_from_notebook(self._runtime.data, item.name)
                    out.append(data_attachment(self._runtime.data, item.name))
                except KeyError as exc:  # UnknownReference says which names there are
                    raise ProtocolError(str(exc)) from None
            else:
                out.append(item)
        return out

    def _refresh_always_allowed(self) -> None:
        names = sorted(self._runtime.always_allowed)
        if names != list(self.always_allowed):
            self.always_allowed = names

    def _refresh_data_names(self) -> None:
        """The names the ``@`` menu offers: the chat's data, as it is now."""
        names = _data_names(self._runtime)
        if names != list(self.data_names):
            self.data_names = names
        details = notebook_data.data_details(self._runtime.data)
        if details != self.data_details:  # a frame may grow under the same name
            self.data_details = details

    def _snapshot(self) -> None:
        """Answer ``hello``: the live state of messages whose traits are behind."""
        self._coalescer.flush()
        seq = self._coalescer.seq
        items: list[SnapshotItem] = []
        for message_id in sorted(self._dirty):
            message = self._runtime.thread.message(message_id)
            if message is not None:
                items.append({"message": self._wire(message), "rev": seq})
        _send_safely(super().send, snapshot_message(seq, items))

    def _error(self, text: str, content: Any) -> None:
        try:
            _send_safely(super().send, error_message(text, content))
        except Exception:
            log.exception("ipygenui widget could not send an error to the frontend")

    # --- loop plumbing -------------------------------------------------------------

    def _clock(self) -> float:
        loop = self._loop or _current_loop()
        return loop.time() if loop is not None else 0.0

    def _call_later(self, delay: float, fn: Any) -> Any:
        loop = self._loop or _current_loop()
        if loop is None:  # no event loop (a plain script): send at once
            fn()
            return _NoTimer()
        self._loop = loop
        return loop.call_later(delay, fn)


BROWSER_WRITABLE = frozenset({"height"})
"""Chat's synced traits a browser ``update`` may change (a ``jslink``, a view's
own resize): the rest are the kernel's picture of the run and the thread."""


def _keep_kernel_value(name: str) -> Callable[[Any, Any], Any]:
    """A trait's ``from_json`` that reads an update from the browser as the
    kernel's own value: ipywidgets' ``set_state`` then changes nothing."""

    def keep(_value: Any, chat: Any) -> Any:
        return getattr(chat, name)

    return keep


def _ignore_browser_writes(cls: type[anywidget.AnyWidget]) -> None:
    """Tag the traits ``cls`` defines, but for ``BROWSER_WRITABLE``, so that a
    browser ``update`` of one (a buggy or hostile view) is dropped, not echoed
    to other views and never raises in the comm handler, as every frontend
    message is. ipywidgets reads ``from_json`` and ``echo_update`` per trait."""
    for name, trait in cls.class_traits(sync=True).items():
        if name in vars(cls) and name not in BROWSER_WRITABLE:
            trait.metadata["from_json"] = _keep_kernel_value(name)
            trait.metadata["echo_update"] = False


_ignore_browser_writes(Chat)


def _data_names(runtime: Runtime) -> list[str]:
    """The chat's data names, then the notebook's tables (``_notebook_data``)."""
    return notebook_data.data_names(runtime.data)


def _send_safely(send: Callable[[Any], Any], value: Any) -> Any:
    """``send(value)`` (a message dumped first); if the kernel's serializer
    refuses it (a lone surrogate, a huge int, NaN that got past the runtime's
    checks), send its JSON-safe copy: an odd value never stops the sync."""
    data = message_for_browser(value) if isinstance(value, Message) else value
    try:
        return send(data)
    except (ValueError, TypeError, RecursionError) as exc:
        log.warning("ipygenui widget sends a cleaned copy: %s", exc)
    return send(json_safe(data))


def _transcript_name(thread: Thread) -> str:
    """A file name for the thread's transcript: its title, in safe characters."""
    title = thread.title or next((m.text for m in thread.messages if m.role == "user"), "")
    slug = "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())[:60]
    return f"{slug or 'chat'}.md"


def _thread_list(threads: Any) -> list[dict[str, Any]]:
    return [
        {"id": t.id, "title": t.title, "messages": t.messages, "updated_at": t.updated_at}
        for t in threads
    ]


class _NoTimer:
    def cancel(self) -> None:
        pass


def _mcp_apps(runtime: Runtime) -> dict[str, Any]:
    """The apps of the chat's MCP tools, by tool name (none when a server cannot say)."""
    apps: dict[str, Any] = {}
    for source in runtime._tools.sources:  # the tool sources of tools= (MCP servers)
        specs = getattr(source, "app_specs", None)
        if callable(specs):
            try:
                apps.update(specs())
            except Exception:  # the calls still show their app once their result is in
                log.warning("the MCP apps of %r could not be read", source, exc_info=True)
    return apps


def _current_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
