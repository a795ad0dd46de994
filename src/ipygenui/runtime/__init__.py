"""The runtime: a thread, a model, tools, and the loop that drives them.

One reply is a *run*: an assistant message inserted empty (status running)
before the model answers, then a loop of roundtrips. A roundtrip streams one
model step into the message, then runs every ready tool call of that step (in
parallel). The loop goes on while every call has its answer, and stops when a
call waits for the user (approval or a human tool), when the model answers in
text, or when a limit is hit. Approving, rejecting or answering a call
resumes the loop when nothing else is pending (``should_continue``).

Everything here runs on one asyncio event loop (the kernel's in a notebook,
one of its own per ``run_sync`` or ``asyncio.run`` in a script);
sync tools run in worker threads so the loop never blocks.

This module is the façade and the run lifecycle (start, finish, cancel).
Beside it in this package, parts with one job each: ``run`` (the ``Run``
handle), ``_thread_list`` (many threads, one shown), ``_suggesting`` (follow-up
suggestions), ``_conversation`` (which message an edit, a regenerate or a
rating takes); ``persistence.autosave`` keeps the autosave and the save
status (the runtime knows no files); AG-UI attaches from outside
through the public events (``agui/runtime_link.py``). The loop's work lives
in the internal package ``ipygenui.runtime._loop``: ``run_loop`` (roundtrips,
``should_continue`` and the limits; it owns each step's toolset and its
``tool_runner``), ``decisions`` (the user's approve / reject / answer),
``ending`` (final statuses), ``run_events`` (what the views hear) and
``suggestions``. Every changed message goes out and is saved through one
call, ``_commit``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import time
from collections.abc import (
    AsyncIterator,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any

from .._internal.loop_clients import close_owned
from .._internal.sanitize import clean_text, json_safe
from ..components.component import Component
from ..components.interactive import apply_app_context, apply_component_state, unreported_states
from ..components.shown import ShownComponent, shown_components
from ..components.shown_apps import ShownApp, shown_apps
from ..data import DataStore, ToolResult, conversation_data, tool_results
from ..data.attachments import make_attachment_parts
from ..events import (
    ActivePathChanged,
    AgentStateChanged,
    AlwaysAllowedChanged,
    FeedbackChanged,
    ModelChanged,
    RunEnded,
    RunPhase,
    RunStarted,
    SuggestionsChanged,
    ThreadListener,
    ThreadSummary,
)
from ..messages import (
    BranchError,
    Complete,
    DecidedBy,
    Incomplete,
    Message,
    Part,
    RequiresAction,
    Running,
    TextPart,
    Thread,
    new_id,
)
from ..models.agent import Agent
from ..models.base import Model
from ..models.history import DEFAULT_MAX_RESULT_CHARS
from ..models.select import resolve_model
from ..persistence import PersistenceConflictError, ThreadFileError, load_thread
from ..persistence.autosave import Persisting
from ..persistence.store import ThreadStore, end_interrupted, is_folder
from ..tools import Tool, as_tool, expand_tools
from ._conversation import check_role, rate, reply_to_regenerate, user_text
from ._loop.branches import check_version, show_version, start_version
from ._loop.decisions import (
    DecisionError,
    always_allowed_tools,
    answer_call,
    approve_call,
    distrust_loaded,
    reject_call,
    set_always_allowed,
)
from ._loop.ending import CANCELLED
from ._loop.run_events import RunEvents
from ._loop.run_loop import RunLoop
from ._loop.suggestions import ask_for_suggestions
from ._loop.tool_choice import resolve_tool_choice
from ._loop.tool_runner import MAX_IDENTICAL_CALLS
from ._model_choices import SAVED_CHOICE, ModelChoices
from ._server_requests import ServerRequests, settle_orphans
from ._suggesting import Suggesting
from ._thread_list import ThreadList
from ._transcript import thread_to_markdown
from .arguments import check_model, check_runtime_arguments, take_renamed, warn_renamed
from .run import PendingRun, Run, loop_or_none
from .usage import UsageRow, UsageTotal, usage_rows, usage_total

if TYPE_CHECKING:
    from ag_ui.core import BaseEvent

    from ..agui.runtime_link import AGUIApp

AGUIListener = Callable[["BaseEvent"], None]

__all__ = [
    "CANCELLED",
    "MAX_IDENTICAL_CALLS",
    "BranchError",
    "DecisionError",
    "PersistenceConflictError",
    "Run",
    "Runtime",
]

logger = logging.getLogger("ipygenui")


class Runtime:
    """The headless chat runtime (``gu.Chat`` is this plus a widget).

    ``send`` while a run is active cancels that run first (as assistant-ui
    does); a send while calls wait for the user answers them with a
    cancelled error, so the history stays valid. ``persist=path`` saves the
    thread atomically after every step, result and decision, and resumes
    the saved thread when the file exists and no ``thread`` is given; the
    newest runtime on a path owns it, and an older one's saves are refused
    (``save_error`` says so). A failed save never stops a run.

    A thread read from a file grants nothing: calls it left approved but not
    run ask again, and its "always allow" grants are restored only with
    ``restore_always_allowed=True`` (``restore_approvals=`` is its old name,
    taken for one release with a ``DeprecationWarning``).
    ``tool_choice`` applies to the first model step of each run; later
    steps use ``"auto"`` so a forced tool cannot loop. A tool result longer
    than ``max_result_chars`` reaches the model cut there, with a notice of
    how much was left out (``None``: no limit); the thread keeps it whole.

    A tool result that is not JSON (a DataFrame, a figure) is kept in
    ``data`` under a short reference the model reads with a summary;
    ``data={"sales": df}`` names objects, ``data=True`` adds the notebook's
    DataFrames, Series and arrays. The model reads their catalogue each turn.

    Where no event loop runs (a plain script), ``send``, ``retry`` and the
    decisions return a Run that starts when awaited
    (``asyncio.run(rt.send("hi"))``), and ``run_sync`` runs one reply.

    Conversation control: ``edit`` a user message or ``regenerate`` a reply
    to start a new branch there (the old one is kept: ``thread.branches``,
    ``switch_branch``); ``feedback`` rates a reply; ``new_thread``,
    ``switch_thread`` and ``threads`` keep several threads (with
    ``persist=`` a folder, one file each); ``starters`` are the prompts an
    empty thread offers; ``to_markdown`` gives the transcript.

    ``rt.model = ...`` (a model or a ``"provider:model"`` name) makes the next
    reply use another model; a run in progress keeps its own. ``models=[...]``
    lists the models a chat offers (names are made only when chosen);
    ``model=`` picks the first one (default: the first listed). The choice is
    saved with the thread and restored with it when it is still listed.
    """

    def __init__(
        self,
        model: Model | str | None = None,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        components: Sequence[Any] = (),
        instructions: str | None = None,
        suggestions: bool = False,
        persist: str | os.PathLike[str] | None = None,
        max_steps: int = 10,
        thread: Thread | None = None,
        tool_choice: str | None = None,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        restore_always_allowed: bool = False,
        starters: Sequence[str] | None = None,
        agent: Agent | None = None,
        data: Mapping[str, Any] | bool | None = None,
        models: Sequence[Model | str] | None = None,
        *,
        restore_approvals: bool | None = None,
    ) -> None:
        checked = check_runtime_arguments(
            "Runtime",
            {
                "model": model,
                "models": models,
                "tools": tools,
                "components": components,
                "instructions": instructions,
                "suggestions": suggestions,
                "persist": persist,
                "max_steps": max_steps,
                "thread": thread,
                "tool_choice": tool_choice,
                "max_result_chars": max_result_chars,
                "restore_always_allowed": restore_always_allowed,
                "restore_approvals": restore_approvals,
                "starters": starters,
                "agent": agent,
                "data": data,
            },
        )
        tools, components = checked["tools"], checked["components"]
        self.max_result_chars: int | None = max_result_chars
        self._choices = ModelChoices(checked["models"] or ())
        self._model: Model = self._first_model(model)
        self._used_models: list[Model] = [self._model]
        """Every model this runtime used (closed with it)."""
        self.agent: Agent | None = agent
        """An external agent that runs its own loop (``gu.AGUIAgent``): when set,
        each model step of a run is one run of the agent instead of a model call."""
        self.agent_state: dict[str, Any] = {}
        """The state shared with an agent (AG-UI's ``state``): it sends snapshots
        and JSON Patch deltas, and gets it back on every run. Yours to read and
        change; ``set_agent_state`` replaces it and tells the listeners."""
        self.components = list(components)
        self._tools: dict[str, Tool] = {}
        self._tool_sources: list[Any] = [t for t in tools if callable(getattr(t, "as_tools", None))]
        """Tool sources (``gu.MCPTools``) whose connection ends with ``close()``."""
        self._server_requests = ServerRequests(
            lambda: self.thread,
            lambda: self._run_message,
            lambda: self.model,
            lambda part, result, is_error: self._events.answer(part, result, is_error),
            self._commit,
        )
        """A tool server's requests during its calls (MCP sampling, elicitation)."""
        for source in self._tool_sources:  # before connecting: what the client advertises
            answer_with = getattr(source, "answer_requests_with", None)
            if callable(answer_with):
                answer_with(self._server_requests)
        try:
            for tool in [*expand_tools(tools), *map(as_tool, components)]:
                if tool.name in self._tools:
                    raise ValueError(f"two tools are named {tool.name!r}")
                self._tools[tool.name] = tool
        except BaseException:  # no runtime to close later: end what was opened
            self._close_tool_sources()
            raise
        self.tool_choice = tool_choice
        self._tool_choice = resolve_tool_choice(tool_choice, list(self._tools))
        self.instructions = instructions
        self.suggestions = suggestions
        self.max_steps = max_steps
        self._starters: list[str] | None = checked["starters"]
        self._store = ThreadStore(persist)
        self.persist = self._store.persist
        """The thread file, or the folder of thread files (None: not saved)."""
        shown = self._store.open(thread)
        for saved in self._store.threads.values():
            if saved is not thread:  # read from a file: untrusted
                distrust_loaded(saved, self._tools, checked["restore_always_allowed"])
        self._thread: Thread = shown
        self._restore_choice(shown, announce=False)
        self.data: DataStore = conversation_data(data)
        """Every named object the conversation can reference (tool results kept by reference)."""
        self._events = RunEvents()
        # the parts with one job each; they reach the runtime only through what is handed in
        self._persisting = Persisting(self._store, lambda: self.thread, self._events.emit)
        self._thread_list = ThreadList(
            self._store,
            lambda: self._thread,
            self._show_thread,
            self._persisting.save_thread,
            self._events.emit,
        )
        self._run_loop = RunLoop(
            self,
            self._tools,
            self._events,
            self._commit,
            always_allowed=lambda: self.always_allowed,
            tool_choice=self._tool_choice,
        )
        self._task: asyncio.Task[None] | None = None
        self._run: Run | None = None
        self._pending: PendingRun | None = None
        self._run_message: Message | None = None
        self._generation = 0
        """Bumped by every start and cancel: a task of an older generation is stale."""
        self._cancel_event = asyncio.Event()
        self._suggesting = Suggesting(
            lambda: ask_for_suggestions(self.model, self.thread, self.instructions),
            lambda: self.thread,
            self._events.emit,
            self._persisting.autosave,
        )
        self._recover()

    # --- the model ----------------------------------------------------------

    @property
    def model(self) -> Model:
        """The model the next reply uses; set it to a model or a
        ``"provider:model"`` name (checked as ``model=`` is). A run in
        progress keeps the model it started with."""
        return self._model

    @model.setter
    def model(self, value: Model | str | None) -> None:
        if not self._is_listed(value):  # a listed id may be any model's name
            check_model("Runtime", value)
        self._use_model(value)

    def _is_listed(self, value: object) -> bool:
        return isinstance(value, str) and value.strip() in self._choices.ids

    @property
    def models(self) -> list[str]:
        """The ids of the models ``models=`` lists (what a picker offers)."""
        return self._choices.ids

    @property
    def model_choice(self) -> str | None:
        """The id of the listed model in use, or None (none listed, or set from code)."""
        return self._choices.id_of(self._model)

    @property
    def model_choices(self) -> list[dict[str, str]]:
        """``{id, name, provider}`` per listed model: what a picker shows."""
        return self._choices.entries()

    def _first_model(self, chosen: Model | str | None) -> Model:
        if not self._choices:
            return resolve_model(chosen)
        if chosen is None:
            return self._choices.build(self._choices.ids[0])
        if isinstance(chosen, str) and chosen.strip() in self._choices.ids:
            return self._choices.build(chosen.strip())
        model = resolve_model(chosen)
        self._choices.add_first(model)  # model= not in the list joins it, first
        return model

    def _use_model(self, value: Model | str | None) -> None:
        """Make ``value`` the model of the next reply (a listed id is made once,
        when first chosen; ``ModelChoiceError`` keeps the model in use)."""
        if isinstance(value, str) and self._is_listed(value):
            model = self._choices.build(value.strip(), self._model)
        else:
            model = resolve_model(value)
        if model is self._model:
            return
        self._set_model(model)
        self._save_choice(self._thread)
        choice = self._choices.id_of(model)
        name = str(getattr(self.agent or model, "name", "") or "")
        offline = bool(getattr(self.agent or model, "offline", False))
        self._events.emit(ModelChanged(name, offline, choice))
        self._persisting.autosave()

    def _save_choice(self, thread: Thread) -> None:
        """The thread keeps the listed model it uses (restored when shown again)."""
        choice = self._choices.id_of(self._model)
        if choice is not None and thread.metadata.get(SAVED_CHOICE) != choice:
            thread.metadata[SAVED_CHOICE] = choice

    def _set_model(self, model: Model) -> None:
        self._model = model
        if all(used is not model for used in self._used_models):
            self._used_models.append(model)

    def _restore_choice(self, thread: Thread, *, announce: bool = True) -> None:
        """Use the listed model ``thread`` saved, when there is one (``announce``:
        tell the views; not while the runtime is being made). A model that
        cannot be made now leaves the one in use (logged)."""
        saved = self._choices.saved(thread.metadata)
        if saved is None or saved == self._choices.id_of(self._model):
            return
        try:
            if announce:
                self._use_model(saved)
            else:
                self._set_model(self._choices.build(saved, self._model))
        except ValueError:
            logger.warning("the thread's model %r cannot be used now", saved, exc_info=True)

    # --- public state -----------------------------------------------------

    @property
    def thread(self) -> Thread:
        """The live pydantic thread, exact even while a reply streams."""
        self._run_loop.materialize()  # streamed text is joined on read, not per delta
        return self._thread

    @property
    def tools(self) -> dict[str, Tool]:
        return dict(self._tools)

    @property
    def running(self) -> bool:
        return self._task is not None

    @property
    def phase(self) -> RunPhase:
        return self._events.phase

    @property
    def always_allowed(self) -> frozenset[str]:
        """The tools always allowed in this thread (``approve(..., always=True)``;
        ``revoke_always`` takes one back): their calls run without asking."""
        return always_allowed_tools(self.thread)

    @property
    def always_approved(self) -> frozenset[str]:
        """Deprecated: the old name of :attr:`always_allowed`."""
        warn_renamed("Runtime.always_approved", "Runtime.always_allowed")
        return self.always_allowed

    @property
    def save_error(self) -> str | None:
        """Why the last save to ``persist`` failed (naming the file), or None
        when it succeeded (or nothing is persisted)."""
        return self._persisting.error

    @property
    def current_suggestions(self) -> list[str]:
        return self._suggesting.current()

    @property
    def human_tool_names(self) -> list[str]:
        return [t.name for t in self._tools.values() if t.human]

    @property
    def starters(self) -> list[str]:
        """Prompts an empty thread offers (``starters=``, else the model's own
        and the prompts of tool sources such as an MCP server's)."""
        if self._starters is not None:
            return list(self._starters)
        offered = [*getattr(self.model, "starters", ())]
        for source in self._tool_sources:
            offered.extend(getattr(source, "starters", ()))
        return list(dict.fromkeys(clean_text(s) for s in offered if isinstance(s, str)))

    @property
    def threads(self) -> list[ThreadSummary]:
        """This chat's threads (id, title, message count, last update): those
        read from a folder oldest first, then those made since."""
        return self._thread_list.summaries()

    # --- listeners --------------------------------------------------------

    def subscribe(self, listener: ThreadListener) -> Callable[[], None]:
        """Call ``listener`` with every thread event; returns the unsubscribe function."""
        return self._events.subscribe(listener)

    def subscribe_agui(self, listener: AGUIListener) -> Callable[[], None]:
        """Call ``listener`` with every AG-UI event (``ag_ui.core`` models) of
        the runs from now on; returns the unsubscribe function. The stream
        ends with a RUN_ERROR, as the protocol says: subscribe again after one."""
        from ..agui.runtime_link import subscribe_agui

        return subscribe_agui(self, listener)

    def agui_events(self) -> AsyncIterator[BaseEvent]:
        """An async iterator of every AG-UI event from now on (ends after a RUN_ERROR)."""
        from ..agui.runtime_link import agui_events

        return agui_events(self)

    def ag_ui_app(
        self,
        token: str | None = None,
        allow_origins: Iterable[str] = (),
        allow_hosts: Collection[str] | None = None,
        max_body_bytes: int | None = None,
        max_depth: int | None = None,
    ) -> AGUIApp:
        """An ASGI app (Starlette) serving this runtime to any AG-UI client:
        POST a ``RunAgentInput``, read the run's events as server-sent events.
        Needs the ``agui`` extra (starlette; uvicorn to serve it).

        As Jupyter Server does, every request must send the app's ``token``
        (``app.token``, made per app unless ``token=`` sets it) as
        ``Authorization: Bearer <token>`` or ``?token=<token>`` (``app.url(base)``):
        401 without it, 403 when wrong. ``Host`` must be a loopback name
        unless ``allow_hosts`` lists more; a web page of another origin is
        refused unless ``allow_origins`` lists it (those get CORS headers and
        a preflight answer); bodies only as ``application/json`` (415), at
        most ``max_body_bytes`` (413; None: 1 MB) and nested at most
        ``max_depth`` (400; None: 64 levels).
        A client may answer only a human tool's calls; a call waiting for
        approval is decided in the notebook or by the client's AG-UI
        ``resume`` (approve, edit, reject). A client that disconnects
        cancels its run. See ``docs/agui-server.md``."""
        from ..agui.runtime_link import serve

        return serve(self, token, allow_origins, allow_hosts, max_body_bytes, max_depth)

    def _serve_client_tools(self, tools: Mapping[str, Tool]) -> None:
        """Offer an AG-UI client's declared tools (checked by ``agui/_client_tools.py``)
        to the model while the client is served; ``{}`` withdraws them."""
        self._run_loop.client_tools = dict(tools)

    @property
    def _client_tool_names(self) -> frozenset[str]:
        return frozenset(self._run_loop.client_tools)

    def _add_client_result(self, tool_call_id: str, result: Any) -> Run | None:
        """An AG-UI client's tool message: as ``add_tool_result``, and it may
        also answer a call to one of the tools the client declared."""
        return self._answer_call(tool_call_id, result, False, self._client_tool_names)

    def set_agent_state(self, state: dict[str, Any]) -> None:
        """Replace the state shared with the agent (``agent_state``, sent on its
        next run); listeners hear ``AgentStateChanged``."""
        self.agent_state = json_safe(dict(state))
        self._events.emit(AgentStateChanged(self.agent_state))

    @property
    def state(self) -> dict[str, Any]:
        """Deprecated: the old name of :attr:`agent_state`."""
        warn_renamed("Runtime.state", "Runtime.agent_state")
        return self.agent_state

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        warn_renamed("Runtime.state", "Runtime.agent_state")
        self.agent_state = value

    def set_state(self, state: dict[str, Any]) -> None:
        """Deprecated: the old name of :meth:`set_agent_state`."""
        warn_renamed("Runtime.set_state", "Runtime.set_agent_state")
        self.set_agent_state(state)

    def _add(self, message: Message) -> None:
        self.thread.messages.append(message)
        self._events.added(message)

    def _commit(self, message: Message) -> None:
        """Tell the views ``message`` changed, then save: after every step,
        result and decision."""
        self._events.replace(message)
        self._persisting.autosave()

    # --- starting runs ------------------------------------------------------

    def send(self, text: str, attachments: Sequence[Any] | None = None) -> Run:
        """Add a user message and start a run answering it.

        ``attachments``: DataFrames (the model reads a summary; the object is
        kept in ``data``), images (PNG/JPEG bytes, PIL images, matplotlib
        figures, image files: sent as image content parts), CSV files (loaded
        as DataFrames) and text files (inlined up to a budget); see
        ``ipygenui.data.attachments``. An unsupported one raises before anything
        is sent.

        With no event loop running (a plain script) the text is kept at once
        and the run starts when the returned Run is awaited:
        ``asyncio.run(rt.send("hi"))``.
        """
        if not isinstance(text, str) or not (text.strip() or attachments):
            raise ValueError("send() needs a non-empty text (or attachments)")
        text = clean_text(text)  # a lone surrogate would make the thread unsavable
        attached = make_attachment_parts(attachments, self.data) if attachments else []
        self._settle("The user sent a new message.")
        parts: list[Part] = [TextPart(text=text), *attached] if text else [*attached]
        self._add(Message(role="user", parts=parts, metadata=self._state_report()))
        self._thread_list.changed()  # its length, and the first user message names it
        return self._answer()

    def _settle(self, reason: str) -> None:
        """Before a new user action: stop a streaming run (or one about to
        start) and end a reply waiting for the user, its calls answered with
        ``reason``, so the history stays valid whatever comes next."""
        self._suggesting.stop()
        if self.running or self._pending is not None:
            self.cancel()
        self._end_waiting(reason)

    def _answer(self) -> Run:
        """Start a run with a new reply at the end of the active branch."""
        message = Message(role="assistant", status=Running())
        run = self._launch(message, functools.partial(self._add_reply, message))
        self._persisting.autosave()
        return run

    # --- branches -------------------------------------------------------------

    def edit(self, message_id: str, text: str) -> Run:
        """Replace the user message ``message_id`` with ``text`` and answer it
        again, as a new branch: what followed the old text stays as another
        (``thread.branches(id)``, ``switch_branch``). A streaming run is
        cancelled first, as by ``send``. ``BranchError`` (nothing changes)
        for a message that is not a user message on the active branch."""
        text = user_text("edit", text)
        self._new_version(
            message_id,
            "user",
            "only user messages can be edited (regenerate(message_id) answers again)",
            "The user edited an earlier message.",
        )
        self._add(Message(role="user", parts=[TextPart(text=text)], metadata=self._state_report()))
        self._thread_list.changed()  # the first user message names the thread
        return self._answer()

    def regenerate(self, message_id: str | None = None) -> Run:
        """Answer again in place of the assistant reply ``message_id`` (default:
        the last one), as a new branch: the old reply and what followed it
        stay as another (``switch_branch``). A streaming run is cancelled
        first. ``BranchError`` for a message that is not an assistant reply on
        the active branch."""
        self._new_version(
            reply_to_regenerate(self._thread, message_id),
            "assistant",
            "regenerate takes an assistant reply (edit(message_id, text) changes a user message)",
            "The user asked for another reply.",
        )
        return self._answer()

    def _new_version(self, message_id: str, role: str, wrong_role: str, why: str) -> None:
        """Start a new version of the ``role`` message ``message_id`` (the old one
        and what followed it become a branch), once a streaming run has ended
        (``why`` goes to the model). ``BranchError``, nothing changed, for a
        message of another role (``wrong_role`` says what to do instead)."""
        index = check_role(self._thread, message_id, role, wrong_role)
        self._settle(why)
        start_version(self.thread, index)
        self._path_changed(index)

    def switch_branch(self, message_id: str, index: int) -> None:
        """Show version ``index`` (0-based) of the message ``message_id`` and
        what followed it; ``thread.branches(message_id)`` lists them. A
        streaming run is cancelled first. ``BranchError`` for a message not
        on the active branch or an index out of range (the error names it)."""
        position = self._thread.index_of(message_id)
        where = self._thread.branch_position(message_id)
        check_version(self._thread.messages[position], index, where.count)
        if index == where.index:
            return
        self._settle("The user switched to another branch.")
        show_version(self._thread, position, index)
        self._path_changed(position)
        self._persisting.autosave()

    def _path_changed(self, start: int) -> None:
        self._events.emit(ActivePathChanged(self._thread.id, start, tuple(self._thread.messages)))

    # --- feedback ---------------------------------------------------------------

    def feedback(self, message_id: str, rating: str | None, comment: str | None = None) -> None:
        """Rate the assistant reply ``message_id`` (on any branch): ``"up"`` or
        ``"down"``, with an optional comment; ``None`` takes a rating back.
        Stored on the message (``message.feedback``), saved, and announced
        (``FeedbackChanged``); ``thread.feedback()`` gives every rating as rows."""
        message, feedback = rate(self._thread, message_id, rating, comment)
        self._events.emit(FeedbackChanged(message_id, feedback))
        if self._thread.message(message_id) is message:
            self._commit(message)
        else:
            self._persisting.autosave()

    # --- threads ------------------------------------------------------------------

    def new_thread(self) -> str:
        """Start a new, empty thread and show it; returns its id. The one shown
        so far is kept (``threads``, ``switch_thread``): a run streaming in it
        is cancelled first, a reply waiting for the user keeps waiting. With
        ``persist=`` a single file, ``ValueError``: give a folder to keep several."""
        return self._thread_list.new_thread()

    def switch_thread(self, thread_id: str) -> None:
        """Show the thread ``thread_id`` (one of ``threads``); a run streaming
        in the one shown so far is cancelled first. ``UnknownThreadError`` (a
        ``KeyError``) names the chat's threads when there is no such thread."""
        self._thread_list.switch_thread(thread_id)

    def rename_thread(self, thread_id: str, title: str | None) -> None:
        """Give thread ``thread_id`` a title (``None`` or blank: named by its
        first user message again)."""
        self._thread_list.rename_thread(thread_id, title)

    def _show_thread(self, thread: Thread) -> None:
        self._suggesting.stop()
        if self.running or self._pending is not None:
            self.cancel()
        self._thread = thread
        self._restore_choice(thread)
        self._events.emit(ActivePathChanged(thread.id, 0, tuple(thread.messages)))
        self._events.emit(SuggestionsChanged(self.current_suggestions))
        waiting = thread.last_assistant
        phase: RunPhase = (
            "waiting"
            if waiting is not None and isinstance(waiting.status, RequiresAction)
            else "idle"
        )
        self._events.set_phase(phase)
        self._thread_list.changed()

    # --- transcript -----------------------------------------------------------------

    def usage(self) -> list[UsageRow]:
        """One row per reply of the thread shown: its model, its tokens
        (input, output, reasoning, cache read and written), its cost in USD
        (None when the model is not priced: see ``ipygenui.runtime.usage``), how much
        of the context window its last request took, and its seconds.
        ``pandas.DataFrame(rt.usage())`` takes the rows."""
        return usage_rows(self.thread.messages)

    def usage_total(self) -> UsageTotal:
        """The sums of :meth:`usage`'s rows: the thread's tokens and cost so far."""
        return usage_total(self.usage())

    def to_markdown(self) -> str:
        """The active branch as a markdown transcript (tool calls summarized on
        one line each): what "download transcript" saves."""
        return thread_to_markdown(self.thread)

    def run_sync(self, text: str) -> Message:
        """``send(text)`` and wait for the run's end: for plain scripts.

        Runs on a private event loop and returns the final assistant message
        (complete, incomplete, or requires-action), after the suggestions the
        run asked for. Not for a notebook cell or async code, where a loop
        already runs: ``await`` the Run of ``send`` there.
        """
        if loop_or_none() is not None:
            raise RuntimeError(
                "run_sync() cannot run while an event loop runs in this thread (a notebook "
                "cell or async code): use `await rt.send(...)` there, "
                "`await chat.send(...)` in a notebook"
            )
        return asyncio.run(self._send_and_settle(text))

    async def _send_and_settle(self, text: str) -> Message:
        message = await self.send(text)
        suggesting = self._suggesting.task
        if suggesting is not None:  # the private loop closes next: let them arrive
            with contextlib.suppress(asyncio.CancelledError):
                await suggesting
        return message

    def retry(self) -> Run:
        """Answer the last user message again, replacing the last assistant reply."""
        if self.running or self._pending is not None:
            self.cancel()
        self._suggesting.stop()
        if not self.thread.messages:
            raise ValueError("nothing to retry: the thread is empty")
        last = self.thread.messages[-1]
        if last.role == "assistant":
            return self._launch(last, functools.partial(self._reset_reply, last))
        message = Message(role="assistant", status=Running())
        return self._launch(message, functools.partial(self._add_reply, message))

    def _add_reply(self, message: Message) -> None:
        self._save_choice(self._thread)
        message.created_at = time.time()
        message.metadata = self._fresh_metadata()
        self._add(message)

    def _reset_reply(self, message: Message) -> None:
        message.parts = []
        message.status = Running()
        message.metadata = self._fresh_metadata()
        self._events.replace(message)

    def _fresh_metadata(self) -> dict[str, Any]:
        # the model's name goes with the reply: a rating of it says which model wrote it
        name = getattr(self.model, "name", None)
        model = {"model": name} if isinstance(name, str) and name else {}
        spec = getattr(self.model, "spec", None)  # and its "provider:model", for usage()
        if isinstance(spec, str) and spec:
            model["model_spec"] = spec
        return {"steps": [], "started_at": time.time(), **model}

    def _launch(self, message: Message, prepare: Callable[[], None] | None = None) -> Run:
        """A run on ``message``: started now when a loop runs, else when awaited.

        ``prepare`` puts the message in the thread, ready to run; a run that
        waits for a loop changes nothing until it starts (or is cancelled).
        """
        run = Run(message.id, new_id("run"))
        prepare = prepare or (lambda: None)
        loop = loop_or_none()
        if loop is None:
            self._pending = PendingRun(run, message, prepare)
            run._starter = functools.partial(self._start_pending, run)
            return run
        prepare()
        self._start(message, run, loop)
        return run

    def _start_pending(self, run: Run) -> None:
        """Start a waiting run on the loop that awaits it, unless it ended meanwhile."""
        pending = self._pending
        if pending is None or pending.run is not run:
            return  # cancelled or replaced before it started: the Run has its message
        self._pending = None
        if self.running:
            self.cancel()
        pending.prepare()
        self._start(pending.message, run, asyncio.get_running_loop())

    def _end_pending(self) -> None:
        """A run that never started ends as if it had started and been cancelled."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        pending.prepare()
        message = pending.message
        self._events.end(message, Incomplete(reason="cancelled", error=CANCELLED))
        message.metadata["ended_at"] = time.time()
        self._commit(message)
        self._events.set_phase("idle")
        pending.run._resolve(message)

    def _start(self, message: Message, run: Run, loop: asyncio.AbstractEventLoop) -> None:
        self._generation += 1
        generation = self._generation
        self._cancel_event = asyncio.Event()
        run._future = loop.create_future()
        self._run = run
        self._run_message = message
        if not isinstance(message.status, Running):
            message.status = Running()
            self._events.replace(message)
        message.metadata.pop("ended_at", None)
        self._events.emit(RunStarted(run.run_id, message))
        self._task = loop.create_task(self._drive(message, generation, run, self._cancel_event))

    async def _drive(
        self, message: Message, generation: int, run: Run, cancel: asyncio.Event
    ) -> None:
        def is_current() -> bool:
            return generation == self._generation

        try:
            await self._run_loop.run(message, is_current, cancel)
        except asyncio.CancelledError:
            if is_current():  # cancelled from outside, not by cancel()
                self._end_safely(message, Incomplete(reason="cancelled", error=CANCELLED))
                self._finish_run(message, run)
            raise
        except Exception as exc:  # a bug in the loop: keep the thread valid and say what broke
            if not is_current():
                return
            logger.exception("run failed")
            error = f"{type(exc).__name__}: {exc}"
            self._end_safely(message, Incomplete(reason="error", error=error))
        if is_current():
            self._finish_run(message, run)

    def _end_safely(self, message: Message, status: Incomplete) -> None:
        try:
            self._events.end(message, status)
        except Exception:  # the run must still end: at least its status
            logger.exception("ending the run failed")
            message.status = status

    def _finish_run(self, message: Message, run: Run) -> None:
        """End the run; its future resolves whatever a view or a save does."""
        self._task = None
        self._run = None
        self._run_message = None
        self._server_requests.cancel_all()  # the calls that asked have ended
        try:
            message.metadata["ended_at"] = time.time()
            self._commit(message)
            self._events.emit(RunEnded(run.run_id, message))
            phase: RunPhase = "waiting" if isinstance(message.status, RequiresAction) else "idle"
            self._events.set_phase(phase)
        except Exception:  # a view or listener failing must not leave the run unresolved
            logger.exception("finishing the run failed")
        finally:
            run._resolve(message)
        if self.suggestions and isinstance(message.status, Complete):
            self._suggesting.start()

    def cancel(self) -> None:
        """Stop the model stream and running tools now; keep what streamed.

        The message becomes incomplete/cancelled and every unanswered call
        gets a cancelled error result. Also ends a message waiting for the
        user. Does nothing when there is nothing to cancel.
        """
        self._suggesting.stop()
        self._end_pending()
        task, run, message = self._task, self._run, self._run_message
        if task is None or run is None or message is None:
            if self._end_waiting(CANCELLED):
                self._events.set_phase("idle")
            return
        self._run_loop.stop(message)  # every streamed character kept, stopped threads answered
        self._generation += 1  # the old task now ignores everything it still sees
        self._cancel_event.set()
        task.cancel()
        self._events.end(message, Incomplete(reason="cancelled", error=CANCELLED))
        self._finish_run(message, run)

    def _end_waiting(self, error: str) -> bool:
        """End a reply that waits for the user as cancelled with ``error``
        (its open calls answered so), when there is one."""
        last = self.thread.last_assistant
        if last is None or not isinstance(last.status, RequiresAction):
            return False
        self._events.end(last, Incomplete(reason="cancelled", error=error))
        self._commit(last)
        return True

    def close(self) -> None:
        """Cancel a run in progress, close the tool sources of ``tools=``
        (an MCP server's connection ends) and the HTTP clients the model and
        the agent made (their ``close()``). Idempotent."""
        if self.running or self._pending is not None:
            self.cancel()
        self._close_tool_sources()
        for model in self._used_models:
            close_owned(model)
        if self.agent is not None:
            close_owned(self.agent)

    def _close_tool_sources(self) -> None:
        for source in self._tool_sources:
            try:
                source.close()
            except Exception:  # one failing must not keep the others open
                logger.exception("closing %r failed", source)

    # --- decisions ------------------------------------------------------------

    def approve(
        self,
        tool_call_id: str,
        args: dict[str, Any] | None = None,
        always: bool = False,
        *,
        by: DecidedBy = "code",
    ) -> Run | None:
        """Approve a pending call, optionally with edited arguments (validated
        again); ``always=True`` trusts this tool for the rest of the chat.
        ``by`` is who decided, as the call's card says ("Approved from code";
        the chat's own buttons pass ``"user"``).

        Returns the run that continues the loop, or None while other calls
        still wait for the user.
        """
        if self._server_requests.owns(tool_call_id):  # a server's sampling request
            self._server_requests.approve(tool_call_id, by)
            return self._run
        if args is not None:
            args = json_safe(args)  # what the file and the widget can hold
        allowed = self.always_allowed
        message = approve_call(self.thread, self._tools, tool_call_id, args, always, by)
        self._always_allowed_changed(allowed)
        return self._decided(message)

    def reject(
        self, tool_call_id: str, reason: str | None = None, *, by: DecidedBy = "code"
    ) -> Run | None:
        """Reject a pending call: the model gets an error result with the reason.
        ``by`` is who decided, as for :meth:`approve`."""
        if reason is not None:
            reason = clean_text(str(reason))
        if self._server_requests.owns(tool_call_id):
            self._server_requests.reject(tool_call_id, reason, by)
            return self._run
        message = reject_call(self.thread, tool_call_id, reason, self._events.answer, by)
        return self._decided(message)

    def add_tool_result(self, tool_call_id: str, result: Any, is_error: bool = False) -> Run | None:
        """Answer a human tool's call with ``result``; resumes the loop when it can.

        Only a human tool's call is answered this way (so by the widget and an
        AG-UI client too): a call waiting for approval is decided by
        ``approve`` / ``reject``, and a call to any other tool of the chat is
        run by the kernel. Those raise ``DecisionError``, nothing changed.

        A tool server's form (an MCP elicitation card) is answered so too:
        ``{"action": "accept", "content": {...}}`` (or the content alone),
        ``{"action": "decline"}``, ``{"action": "cancel"}``.
        """
        if self._server_requests.owns(tool_call_id):
            self._server_requests.answer(tool_call_id, result)
            return self._run
        return self._answer_call(tool_call_id, result, is_error)

    def _answer_call(
        self, tool_call_id: str, result: Any, is_error: bool, client_tools: Collection[str] = ()
    ) -> Run | None:
        """Answer a call from outside the kernel (``answer_call``'s gates) and go on."""
        message = answer_call(
            self.thread,
            self._run_loop.step_toolset().all(),
            tool_call_id,
            result,
            is_error,
            executing=self._run_loop.executing,
            streaming=self._run_message,
            answer=self._events.answer,
            client_tools=client_tools,
        )
        return self._decided(message)

    def revoke_always(self, tool_name: str) -> None:
        """Stop trusting ``tool_name``: its next calls need approval again."""
        allowed = self.always_allowed
        set_always_allowed(self.thread, allowed - {tool_name})
        self._always_allowed_changed(allowed)
        self._persisting.autosave()

    def _always_allowed_changed(self, before: frozenset[str]) -> None:
        if self.always_allowed != before:
            self._events.emit(AlwaysAllowedChanged(tuple(sorted(self.always_allowed))))

    def _decided(self, message: Message) -> Run | None:
        self._commit(message)
        if self.running:
            return self._run  # the active loop picks the decision up
        if self._pending is not None:
            return self._pending.run  # so does the run about to start
        if self._run_loop.resumes(message):  # the loop's own rule (continuation.goes_on)
            return self._launch(message)
        return None

    # --- components -------------------------------------------------------------

    def _components(self) -> list[Component]:
        return [c for c in self.components if isinstance(c, Component)]

    def _state_report(self) -> dict[str, Any]:
        """The component states the user changed since the model last saw them.

        They ride on the next user message (rendered as ``<component_state>``
        by the history), so the model reads each change once, in order, and
        the system prompt stays the same from turn to turn.
        """
        changed = unreported_states(self.thread)
        return {"component_state": changed} if changed else {}

    def shown_components(self) -> list[ShownComponent]:
        """The components shown so far, oldest first: name, validated props model
        instance, user state, and ``data``: the objects its reference props name
        (see ``ipygenui.components.shown``)."""
        return shown_components(self.thread, self._components(), data=self.data)

    def surfaces(self) -> list[dict[str, Any]]:
        """The A2UI surfaces shown so far (``ipygenui.a2ui``): each one's
        ``surface_id``, ``components`` and ``data`` model, with what the user
        entered in the browser."""
        from ..a2ui import thread_surfaces  # only chats that show A2UI load it

        return thread_surfaces(self.thread)

    def apps(self) -> list[ShownApp]:
        """The MCP apps shown so far, oldest first (``ipygenui.mcp``): each
        one's call, server, ``ui://`` URI, the tool's input, its result (text
        and structured content; never the HTML) and the app's last model
        context (``ui/update-model-context``)."""
        return shown_apps(self.thread)

    def results(self) -> list[ToolResult]:
        """Every answered tool call, oldest first: tool name, call id, the
        reference its object is kept under (or None) and ``value``, the object
        the tool returned (None in a thread loaded from a file)."""
        return tool_results(self.thread, self.data)

    def set_app_context(self, tool_call_id: str, context: Any) -> None:
        """An MCP app's ``ui/update-model-context`` for the call that shows it:
        the last one before the next turn reaches the model (``ValueError``
        for a call that shows no app)."""
        self._commit(apply_app_context(self.thread, tool_call_id, json_safe(context)))

    def set_component_state(self, tool_call_id: str, state: Any) -> None:
        """Store the user's state for an interactable component (validated
        against its state model); the model reads it on its next turn.
        Raises ``ValueError`` (nothing changes) for an unknown call or bad state."""
        state = json_safe(state)
        message, _, _ = apply_component_state(self.thread, self._components(), tool_call_id, state)
        self._commit(message)

    # --- persistence ----------------------------------------------------------

    def _recover(self) -> None:
        """A thread saved mid-run (the kernel died): end that run (``persistence.store``)."""
        for thread in self._store.threads.values():
            end_interrupted(thread, self._events.end)
            settle_orphans(thread)  # a server's request nobody waits for now

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the thread to ``path`` (atomically). To the ``persist`` path this
        is an autosave that raises: ``PersistenceConflictError`` when another
        chat took the path over."""
        self._persisting.save_as(path)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        restore_always_allowed: bool = False,
        restore_approvals: bool | None = None,
        **kwargs: Any,
    ) -> Runtime:
        """A runtime on the thread saved at ``path``; ``kwargs`` as for the constructor.

        The file is untrusted: a call it left approved but not run asks again,
        and its "always allow" grants are restored only with
        ``restore_always_allowed=True`` (``restore_approvals=`` is its old name,
        deprecated). A file that cannot be read raises ``ThreadFileError``
        naming it."""
        restore = take_renamed(
            "Runtime.load",
            {
                "restore_always_allowed": restore_always_allowed,
                "restore_approvals": restore_approvals,
            },
        )["restore_always_allowed"]
        if is_folder(path):
            raise ThreadFileError(
                f"{path} is a folder of threads: open them with persist={os.fspath(path)!r}"
            )
        thread = load_thread(path)
        runtime = cls(thread=thread, restore_always_allowed=restore, **kwargs)
        distrust_loaded(runtime._thread, runtime._tools, restore)
        return runtime
