"""``gu.Chat``: the notebook widget around a :class:`~ipygenui.runtime.Runtime`.

The facade: the synced traits, the runtime's members (``chat.approve`` is
``chat.runtime.approve``), ``load`` and ``close``. What keeps the views in step
with the runtime is :class:`._sync.ViewSync` (events -> traits and frames);
what a view sends is handled by :class:`._handlers.ClientHandlers`. See
docs/architecture.md.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload
from urllib.parse import urlsplit

import anywidget
from ipywidgets import widget_serialization
from traitlets import Bool, Dict, Instance, List, TraitError, Unicode, validate

from .._internal.browser_writes import ignore_browser_writes, ignore_browser_writes_of
from ..data import DataStore
from ..events import ThreadSummary
from ..messages import Thread
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
from ._handlers import ClientHandlers
from ._mcp_apps import AppBridge
from ._protocol import STANDARD_PARAM_NAMES, WIRE_LIMITS
from ._sign_ins import SignInCards
from ._starter_forms import StarterForms, form_entries
from ._sync import ViewSync, thread_list
from .components import ComponentBridge
from .message_model import MessageModel
from .static_files import LOADER

log = logging.getLogger(__name__)

_LENGTH = r"\d+(\.\d+)?(px|rem|em|vh)"
# A length, or min()/max() of lengths ("min(640px, 80vh)"): digits and units
# only, so nothing but a size reaches the style.
_CSS_LENGTH = re.compile(rf"{_LENGTH}|(min|max)\(\s*{_LENGTH}(\s*,\s*{_LENGTH})+\s*\)")
_APP_ORIGIN = re.compile(
    r"(https://[^\s\"'<>]+|http://(localhost|127\.0\.0\.1)(:\d+)?(/[^\s\"'<>]*)?)"
)
"""A sandbox proxy's URL: https, or plain http on this machine only."""
_JUPYTER_PATH = re.compile(
    r"/(files|lab|tree|notebooks|api|view|edit|voila|user|hub|nbextensions)(/|$)"
)
"""Paths the notebook server itself serves (``/files/`` anywhere: a file the
server hands out is on its origin), JupyterHub's ``/user/`` and ``/hub/`` too."""
_LOOPBACK = frozenset({"localhost", "127.0.0.1"})
_JUPYTER_PORT = 8888


def _notebook_server_form(url: str) -> str | None:
    """How ``url`` is plainly on the notebook server's origin, or None. The page's
    origin is known only in the browser (which checks it too); here: a path the
    server serves, or this machine on Jupyter's default port or a running
    server's port."""
    parts = urlsplit(url)
    if _JUPYTER_PATH.search(parts.path):
        return f"its path {parts.path!r} is one the notebook server serves"
    if (parts.hostname or "") in _LOOPBACK:
        port = parts.port or 80
        if port == _JUPYTER_PORT or port in _running_jupyter_ports():
            return f"it is this machine on port {port}, a Jupyter server's"
    return None


def _running_jupyter_ports() -> set[int]:
    """The ports of the Jupyter servers running on this machine (none known
    when jupyter_server cannot say)."""
    try:
        from jupyter_server.serverapp import list_running_servers

        return {int(s["port"]) for s in list_running_servers() if "port" in s}
    except Exception:
        return set()


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
    cannot drift (what a click does goes through the same method).

    ``held``: the method changes which messages show (a reply leaves as its
    new version starts): the browser gets one update with both, so it never
    draws the thread without either (a frame that would shrink it).
    """

    def __init__(self, method: Callable[Concatenate[Runtime, P], R], *, held: bool = False) -> None:
        self.__wrapped__ = method  # inspect.signature and help() read the runtime's
        self.__name__ = method.__name__
        self.__doc__ = method.__doc__
        self._held = held

    @overload
    def __get__(self, chat: None, owner: type[Any]) -> _FromRuntime[P, R]: ...
    @overload
    def __get__(self, chat: Chat, owner: type[Any]) -> Callable[P, R]: ...
    def __get__(self, chat: Chat | None, owner: type[Any]) -> Any:
        if chat is None:
            return self
        method: Callable[P, R] = getattr(chat.runtime, self.__name__)
        if not self._held:
            return method

        @functools.wraps(method)
        def held(*args: P.args, **kwargs: P.kwargs) -> R:
            with chat.hold_sync():
                return method(*args, **kwargs)

        return held

    def __call__(self, chat: Chat, /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``Chat.approve(chat, ...)``, as for a plain method."""
        method: Callable[P, R] = self.__get__(chat, type(chat))
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
    """Prompts an empty thread offers as chips (``Runtime.starters``); they
    follow a tool source's lists (an MCP server's ``list_changed``)."""
    starter_forms = List(Dict()).tag(sync=True)
    """Starters with a form: a tool source's prompts that need arguments
    (``{id, title, description, arguments: [{name, description, required}]}``
    each, the server's text), filled by their server when submitted
    (``_starter_forms.py``)."""
    always_allowed = List(Unicode()).tag(sync=True)
    """The tools this thread runs without asking: ``Runtime.always_allowed``,
    sorted, following it (``AlwaysAllowedChanged``, another thread shown); the
    view shows it so the user can take each grant back (``revoke_always``)."""
    thread_list = List(Dict()).tag(sync=True)
    """The chat's threads for the thread menu: ``{id, title, messages,
    updated_at}`` each (``Runtime.threads``)."""
    thread_id = Unicode("").tag(sync=True)
    """The id of the thread shown."""
    persist_kind = Unicode("").tag(sync=True)
    """"folder" or "file" when the chat saves its threads (``persist=``), else
    "": the header shows the thread controls for a saved chat, or for more than
    one thread; a chat of one unsaved thread has none."""
    mcp_apps = Dict().tag(sync=True)
    """MCP Apps: tool name -> ``{uri, html, csp}`` of the tools whose calls
    show an app (read when the chat is built), so a card shows it while its
    arguments stream."""
    sign_ins = List(Dict()).tag(sync=True)
    """Tool servers asking the user to sign in (``gu.MCPOAuth()`` without
    ``redirect``): one card each, ``{id, server, url, redirect_uri, listening,
    error}``; the authorization URL only, never a code or a token."""
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
        same = _notebook_server_form(value) if value else None
        if same:
            raise TraitError(
                f"Chat app_origin={proposal['value']!r}: {same}, the notebook's own origin: "
                "the proxy page would run every app with the notebook server's powers. "
                "Serve it from another origin (another host or port), or give '' for none"
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
        send = super().send  # ipywidgets' custom message to the frontend
        self._sync = ViewSync(self, runtime, send)
        # Initial values go in the comm_open message itself, not in updates after it.
        self._components = ComponentBridge(runtime)
        self._apps = AppBridge(runtime, self)
        self._sign_ins = SignInCards(self, runtime.sign_ins, lambda: self._sync.loop, send)
        self._forms = StarterForms(
            runtime, self, send, lambda text: self._handlers.start(text), lambda: self._sync.loop
        )
        self._handlers = ClientHandlers(
            self,
            runtime,
            self._sync,
            self._components,
            self._apps,
            send,
            self._forms,
            self._sign_ins,
        )
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
            messages=[self._sync.new_model(m) for m in runtime.thread.messages],
            phase=runtime.phase,
            running=runtime.running,
            save_error=runtime.save_error or "",
            starters=runtime.starters,
            starter_forms=form_entries(runtime),
            thread_list=thread_list(runtime.threads),
            thread_id=runtime.thread.id,
            persist_kind=_persist_kind(runtime),
            data_names=notebook_data.data_names(runtime.data),
            data_details=notebook_data.data_details(runtime.data),
            always_allowed=sorted(runtime.always_allowed),
            mcp_apps=_mcp_apps(runtime),
            sign_ins=runtime.sign_ins.pending,
            **widget_kwargs,
        )
        ignore_browser_writes_of(self)  # the loader: a page's view may not swap it
        self._unsubscribe: Callable[[], None] | None = runtime.subscribe(self._sync.on_event)
        self.on_msg(self._handlers.on_comm_msg)
        # the @ menu lists the notebook's tables as they are after each cell
        self._stop_watching_cells = notebook_data.watch_cells(self._sync.refresh_data_names)
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
    retry = _FromRuntime(Runtime.retry, held=True)
    shown_components = _FromRuntime(Runtime.shown_components)
    surfaces = _FromRuntime(Runtime.surfaces)
    apps = _FromRuntime(Runtime.apps)
    results = _FromRuntime(Runtime.results)
    set_component_state = _FromRuntime(Runtime.set_component_state)
    set_app_context = _FromRuntime(Runtime.set_app_context)
    save = _FromRuntime(Runtime.save)
    edit = _FromRuntime(Runtime.edit, held=True)
    regenerate = _FromRuntime(Runtime.regenerate, held=True)
    switch_branch = _FromRuntime(Runtime.switch_branch, held=True)
    feedback = _FromRuntime(Runtime.feedback)
    new_thread = _FromRuntime(Runtime.new_thread, held=True)
    switch_thread = _FromRuntime(Runtime.switch_thread, held=True)
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
        if hasattr(self, "_sign_ins"):
            self._sign_ins.close()
        if hasattr(self, "_forms"):
            self._forms.close()
        getattr(self, "_stop_watching_cells", lambda: None)()
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        if hasattr(self, "_sync"):
            self._sync.close()
        if hasattr(self, "_runtime"):  # its tool servers' connections end with the chat
            self._runtime.close()
        super().close()

    def __repr__(self) -> str:
        n = len(self._runtime.thread.messages) if hasattr(self, "_runtime") else 0
        return f"Chat(model={self.model_name!r}, messages={n})"


BROWSER_WRITABLE = frozenset({"height"})
"""Chat's synced traits a browser ``update`` may change (a ``jslink``, a view's
own resize): the rest are the kernel's picture of the run and the thread."""


ignore_browser_writes(Chat, writable=BROWSER_WRITABLE)


def _persist_kind(runtime: Runtime) -> str:
    """The ``persist_kind`` trait: the store made a folder's directory when it opened."""
    if runtime.persist is None:
        return ""
    return "folder" if runtime.persist.is_dir() else "file"


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
