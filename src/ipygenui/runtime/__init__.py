"""The runtime: a thread, a model, tools, and the loop that drives them.

One reply is a *run*: an assistant message inserted empty (status running)
before the model answers, then a loop of roundtrips. A roundtrip streams one
model step into the message, then runs every ready tool call of that step (in
parallel). The loop goes on while every call has its answer, and stops when a
call waits for the user (approval or a human tool), when the model answers in
text, or when a limit is hit. Approving, rejecting or answering a call
resumes the loop when its rule says it goes on (``continuation.goes_on``).

Everything here runs on one asyncio event loop (the kernel's in a notebook,
one of its own per ``run_sync`` or ``asyncio.run`` in a script);
sync tools run in worker threads so the loop never blocks.

This module is the façade: ``Runtime`` keeps the loop's verbs and hands the
rest to parts with one job each, beside it in this package: ``run`` (the
``Run`` handle), ``_run_lifecycle`` (start, finish, cancel), ``_deciding``
(approve, reject, answer, grants), ``_model_slot`` (the model, ``models=``),
``_own_tools`` (``tools=`` and their sources), ``_replies`` (user turns and
replies), ``_branching`` (edit,
regenerate, switch_branch, feedback), ``_thread_list`` (many threads, one
shown), ``_suggesting`` (follow-up suggestions), ``_server_requests`` (a tool
server's requests as cards); ``persistence.autosave`` keeps the autosave and
the save status (the runtime knows no files); AG-UI attaches from outside
through the public events (``agui/runtime_link.py``). The loop's work lives
in the internal package ``ipygenui.runtime._loop``: ``run_loop`` (roundtrips,
``goes_on`` and the limits; it owns each step's toolset and its
``tool_runner``), ``decisions`` (the rules of approve / reject / answer),
``ending`` (final statuses), ``run_events`` (what the views hear) and
``suggestions``. Every changed message goes out and is saved through one
call, ``Host.commit`` (``_host``).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._internal.loop_clients import close_owned
from .._internal.sanitize import json_safe
from ..components.component import Component
from ..components.interactive import apply_app_context, apply_component_state, record_app_call
from ..components.shown import ShownComponent, shown_components
from ..components.shown_apps import ShownApp, shown_apps
from ..data import DataStore, ToolResult, conversation_data, tool_results
from ..events import (
    ActivePathChanged,
    AgentStateChanged,
    RunPhase,
    SuggestionsChanged,
    ThreadListener,
    ThreadSummary,
)
from ..messages import (
    BranchError,
    DecidedBy,
    Message,
    TextPart,
    Thread,
)
from ..models.agent import Agent
from ..models.base import Model
from ..models.history import DEFAULT_MAX_RESULT_CHARS
from ..persistence import PersistenceConflictError
from ..persistence.autosave import Persisting
from ..persistence.store import ThreadStore, load_thread_file
from ..tools import Tool
from ._branching import Branching
from ._conversation import user_text
from ._deciding import Decisions
from ._host import Host
from ._loop.decisions import DecisionError, distrust_loaded
from ._loop.ending import CANCELLED
from ._loop.run_events import RunEvents
from ._loop.run_loop import RunLoop
from ._loop.tool_choice import resolve_tool_choice
from ._loop.tool_runner import MAX_IDENTICAL_CALLS
from ._model_slot import ModelSlot
from ._own_tools import OwnTools
from ._replies import Replies
from ._run_lifecycle import RunLifecycle
from ._server_requests import ServerRequests
from ._suggesting import Suggesting
from ._thread_list import ThreadList
from ._transcript import thread_to_markdown
from .arguments import check_runtime_arguments, renamed_attribute, renamed_method, take_renamed
from .run import Run
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


def _read_later(tools: OwnTools, always: bool, runs: RunLifecycle, saved: Thread) -> None:
    """A folder's thread read when first shown: as untrusted as those read at opening."""
    distrust_loaded(saved, tools, always)
    runs.recover([saved])


class Runtime:
    """The headless chat runtime (``gu.Chat`` is this plus a widget).

    ``send`` while a run is active cancels that run first (as assistant-ui
    does); a send while calls wait for the user answers them with a
    cancelled error, so the history stays valid. ``persist=path`` saves the
    thread atomically after every step, result and decision, and resumes it
    when the file exists and no ``thread`` is given; the newest runtime on a
    path owns it, an older one's saves are refused (``save_error`` says so),
    and a failed save never stops a run. A thread read from a file grants
    nothing: calls it left approved but not run ask again, and its "always
    allow" grants are restored only with ``restore_always_allowed=True``
    (``restore_approvals=``: its old name, deprecated for one release).

    ``tool_choice`` applies to the first model step of each run; later steps
    use ``"auto"`` so a forced tool cannot loop. A tool result longer than
    ``max_result_chars`` reaches the model cut there, with a notice of how
    much was left out (``None``: no limit); the thread keeps it whole. A
    result that is not JSON (a DataFrame, a figure) is kept in ``data`` under
    a short reference the model reads with a summary; ``data={"sales": df}``
    names objects, ``data=True`` adds the notebook's DataFrames, Series and
    arrays. The model reads their catalogue each turn.

    ``suggestions=True`` asks the model for follow-up prompts after each
    reply, shown as chips; ``None`` (the default) leaves it to the model:
    on for one that offers them itself (the offline demo's ``suggests``).

    Where no event loop runs (a plain script), ``send``, ``retry`` and the
    decisions return a Run that starts when awaited
    (``asyncio.run(rt.send("hi"))``), and ``run_sync`` runs one reply. With
    ``persist=`` a folder, each thread (``new_thread``) has a file of its own.
    Each verb's details are in the module of the part that does it
    (``help(ipygenui.runtime)`` names them).
    """

    def __init__(
        self,
        model: Model | str | None = None,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        components: Sequence[Any] = (),
        instructions: str | None = None,
        suggestions: bool | None = None,
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
        max_run_seconds: float | None = None,
        restore_approvals: bool | None = None,
    ) -> None:
        given = {name: value for name, value in locals().items() if name != "self"}
        checked = check_runtime_arguments("Runtime", given)  # every keyword, by its name
        self.max_result_chars: int | None = max_result_chars
        events = self._events = RunEvents()
        host = self._host = Host(lambda: self.thread, events, lambda: self._persisting.autosave())
        self._models = ModelSlot(model, checked["models"] or (), host, lambda: self.agent)
        self.agent: Agent | None = agent
        """An external agent that runs its own loop (``gu.AGUIAgent``): when set,
        each model step of a run is one run of the agent instead of a model call."""
        self.agent_state: dict[str, Any] = {}
        """The state shared with an agent (AG-UI's ``state``): it sends snapshots
        and JSON Patch deltas, and gets it back on every run. Yours to read and
        change; ``set_agent_state`` replaces it and tells the listeners."""
        self.components = list(checked["components"])
        requests = self._server_requests = ServerRequests(
            host.thread, lambda: self._runs.message, lambda: self.model, events.answer, host.commit
        )
        self._tools = OwnTools(checked["tools"], self.components, requests, checked["starters"])
        self.sign_ins = self._tools.sign_ins  # a tool server's sign-in cards (a chat shows them)
        self.tool_choice = tool_choice
        first_step = resolve_tool_choice(tool_choice, list(self._tools))
        self.instructions = instructions
        self.suggestions: bool | None = checked["suggestions"]
        self.max_steps = max_steps
        self.max_run_seconds: float | None = checked["max_run_seconds"]
        """A run's wall-clock limit in seconds (None: none), as ``max_steps`` stops it."""
        self._store = ThreadStore(persist)
        self.persist = self._store.persist
        """The thread file, or the folder of thread files (None: not saved)."""
        self._thread: Thread = self._store.open(thread)
        for saved in self._store.threads.values():
            if saved is not thread:  # read from a file: untrusted
                distrust_loaded(saved, self._tools, checked["restore_always_allowed"])
        self._models.restore(self._thread, announce=False)
        self.data: DataStore = conversation_data(data)
        """Every named object the conversation can reference (tool results kept by reference)."""
        # the parts with one job each; they reach the runtime only through what is handed in
        self._persisting = Persisting(
            self._store, host.thread, events.emit, running=lambda: self._runs.task is not None
        )
        self._thread_list = ThreadList(self._store, host, self._show_thread, self._persisting)
        loop = self._run_loop = RunLoop(self, self._tools, events, host.commit, first_step)
        self._suggesting = Suggesting(self, host)
        runs = self._runs = RunLifecycle(host, loop, self._suggesting, requests)
        self._decisions = Decisions(host, self._tools, loop, runs, requests)
        self._branching = Branching(host, runs.settle)
        self._replies = Replies(host, self._models, runs, self._thread_list.changed)
        runs.recover(self._store.threads.values())
        always = checked["restore_always_allowed"]
        self._store.on_read = functools.partial(_read_later, self._tools, always, runs)

    # --- the model ----------------------------------------------------------

    @property
    def model(self) -> Model:
        """The model the next reply uses; set it to a model or a ``"provider:model"``
        name (checked as ``model=`` is). A run in progress keeps its own."""
        return self._models.current

    @model.setter
    def model(self, value: Model | str | None) -> None:
        self._models.choose(value)

    @property
    def models(self) -> list[str]:
        """The ids of the models ``models=`` lists (what a picker offers)."""
        return self._models.ids

    @property
    def model_choice(self) -> str | None:
        """The id of the listed model in use, or None (none listed, or set from code)."""
        return self._models.choice

    @property
    def model_choices(self) -> list[dict[str, str]]:
        """``{id, name, provider}`` per listed model: what a picker shows."""
        return self._models.entries()

    # --- state and listeners ----------------------------------------------

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
        return self._runs.task is not None

    @property
    def phase(self) -> RunPhase:
        return self._events.phase

    @property
    def always_allowed(self) -> frozenset[str]:
        """The tools always allowed in this thread (``approve(..., always=True)``;
        ``revoke_always`` takes one back): their calls run without asking."""
        return self._decisions.always_allowed()

    always_approved = renamed_attribute("always_allowed")

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
        return self._tools.human_names()

    @property
    def starters(self) -> list[str]:
        """Prompts an empty thread offers (``starters=``, else the model's own
        and the prompts of tool sources such as an MCP server's)."""
        return self._tools.starters(self.model)

    @property
    def threads(self) -> list[ThreadSummary]:
        """This chat's threads (id, title, message count, last update): those
        read from a folder oldest first, then those made since."""
        return self._thread_list.summaries()

    def subscribe(self, listener: ThreadListener) -> Callable[[], None]:
        """Call ``listener`` with every thread event; returns the unsubscribe function."""
        return self._events.subscribe(listener)

    def subscribe_agui(self, listener: AGUIListener) -> Callable[[], None]:
        """Call ``listener`` with every AG-UI event (``ag_ui.core`` models) from now on;
        returns the unsubscribe function. A RUN_ERROR ends it: subscribe again then."""
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
        """An ASGI app (Starlette; the ``agui`` extra) serving this runtime to any AG-UI
        client: POST a ``RunAgentInput``, read the run's events as server-sent events.
        Every request sends the app's ``token`` (``app.token``) as ``Authorization:
        Bearer`` or ``?token=`` (401 without, 403 wrong); ``Host`` must be loopback
        unless in ``allow_hosts``, a page of another origin is refused unless in
        ``allow_origins``; a body is JSON of at most ``max_body_bytes`` (None: 1 MB)
        nested at most ``max_depth`` (None: 64). A client answers only a human tool's
        calls (approvals: the notebook or its ``resume``); one that disconnects
        cancels its run. The whole of it: ``agui/runtime_link.serve``, docs/agui-server.md."""
        from ..agui.runtime_link import serve

        return serve(self, token, allow_origins, allow_hosts, max_body_bytes, max_depth)

    def _serve_client_tools(self, tools: Mapping[str, Tool]) -> None:
        """Offer an AG-UI client's declared tools to the model while it is served."""
        self._run_loop.client_tools = dict(tools)

    @property
    def _client_tool_names(self) -> frozenset[str]:
        return frozenset(self._run_loop.client_tools)

    def _add_client_result(self, tool_call_id: str, result: Any) -> Run | None:
        """An AG-UI client's tool message: may also answer a tool it declared."""
        return self._decisions.answer(tool_call_id, result, False, self._client_tool_names)

    def set_agent_state(self, state: dict[str, Any]) -> None:
        """Replace the state shared with the agent (``agent_state``, sent on its
        next run); listeners hear ``AgentStateChanged``."""
        self.agent_state = json_safe(dict(state))
        self._events.emit(AgentStateChanged(self.agent_state))

    state = renamed_attribute("agent_state")
    set_state = renamed_method("set_agent_state")

    # --- the loop's verbs -------------------------------------------------------

    def send(self, text: str, attachments: Sequence[Any] | None = None) -> Run:
        """Add a user message and start a run answering it. ``attachments``: DataFrames,
        images, CSV and text files (``_replies``; one unsupported raises, nothing sent)."""
        return self._replies.send(text, attachments, self.data)

    def _send_summarized(self, text: str, summary: str) -> Run:
        """``send(text)``, shown in the chat as the line ``summary`` with the text
        behind Details (the widget's A2UI button press: ``_replies.SUMMARY_KEY``)."""
        return self._replies.send(text, None, self.data, summary)

    def retry(self) -> Run:
        """Answer the last user message again, replacing the last assistant reply."""
        return self._replies.retry()

    def run_sync(self, text: str) -> Message:
        """``send(text)`` and wait for the run's end, on a private event loop: for
        plain scripts (in a notebook or async code, ``await`` the Run of ``send``).
        Returns the final assistant message, after the suggestions the run asked for."""
        return self._runs.run_to_end(lambda: self.send(text))

    def cancel(self) -> None:
        """Stop the model stream and running tools now; keep what streamed.
        Every unanswered call gets a cancelled error; a reply waiting for the
        user ends too (``_run_lifecycle``)."""
        self._runs.cancel()

    def approve(
        self,
        tool_call_id: str,
        args: dict[str, Any] | None = None,
        always: bool = False,
        *,
        by: DecidedBy = "code",
    ) -> Run | None:
        """Approve a pending call, optionally with edited arguments; ``always=True`` trusts
        its tool for the rest of the chat, ``by`` says who decided (``_deciding``).
        Returns the run that continues, or None while other calls wait for the user."""
        return self._decisions.approve(tool_call_id, args, always, by)

    def reject(
        self, tool_call_id: str, reason: str | None = None, *, by: DecidedBy = "code"
    ) -> Run | None:
        """Reject a pending call: the model gets an error result with the reason.
        ``by`` is who decided, as for :meth:`approve`."""
        return self._decisions.reject(tool_call_id, reason, by)

    def add_tool_result(self, tool_call_id: str, result: Any, is_error: bool = False) -> Run | None:
        """Answer a human tool's call (or a tool server's form) with ``result``; resumes
        the loop when it can. Any other call raises ``DecisionError`` (``_deciding``)."""
        return self._decisions.add_tool_result(tool_call_id, result, is_error)

    def revoke_always(self, tool_name: str) -> None:
        """Stop trusting ``tool_name``: its next calls need approval again."""
        self._decisions.revoke_always(tool_name)

    def close(self) -> None:
        """Cancel a run in progress, close the tool sources of ``tools=`` (an MCP server's
        connection ends) and the HTTP clients the models and the agent made. Idempotent."""
        if self._runs.busy:
            self.cancel()
        self._persisting.close()
        self._tools.close()
        self._models.close()
        if self.agent is not None:
            close_owned(self.agent)

    # --- branches, feedback, threads ---------------------------------------------

    def edit(self, message_id: str, text: str) -> Run:
        """Replace the user message ``message_id`` with ``text`` and answer it
        again, as a new branch (``_branching``); ``BranchError`` for a message
        that is not a user message on the active branch."""
        text = user_text("edit", text)
        self._branching.edit(message_id)
        return self._replies.user_turn([TextPart(text=text)])

    def regenerate(self, message_id: str | None = None) -> Run:
        """Answer again in place of the assistant reply ``message_id`` (default: the last
        one), as a new branch; ``BranchError`` for any other message (``_branching``)."""
        self._branching.regenerate(message_id)
        return self._replies.answer()

    def switch_branch(self, message_id: str, index: int) -> None:
        """Show version ``index`` (0-based) of the message ``message_id`` and what
        followed it (``thread.branches(message_id)`` lists them; ``_branching``)."""
        self._branching.switch(message_id, index)

    def feedback(self, message_id: str, rating: str | None, comment: str | None = None) -> None:
        """Rate the assistant reply ``message_id``: ``"up"``, ``"down"`` or ``None``
        (taken back), with an optional comment; saved and announced (``_branching``)."""
        self._branching.feedback(message_id, rating, comment)

    def new_thread(self) -> str:
        """Start a new, empty thread and show it; returns its id. The one shown so far
        is kept (``threads``, ``switch_thread``): a run streaming in it is cancelled,
        a reply waiting keeps waiting. ``persist=`` one file: ``ValueError``."""
        return self._thread_list.new_thread()

    def switch_thread(self, thread_id: str) -> None:
        """Show the thread ``thread_id`` (one of ``threads``; a run streaming is cancelled
        first). No such thread: ``UnknownThreadError`` (a ``KeyError``) names them."""
        self._thread_list.switch_thread(thread_id)

    def rename_thread(self, thread_id: str, title: str | None) -> None:
        """Give thread ``thread_id`` a title (``None`` or blank: named by its
        first user message again)."""
        self._thread_list.rename_thread(thread_id, title)

    def _show_thread(self, thread: Thread) -> None:
        self._runs.stop()
        self._thread = thread
        self._models.restore(thread)
        self._events.emit(ActivePathChanged(thread.id, 0, tuple(thread.messages)))
        self._events.emit(SuggestionsChanged(self.current_suggestions))
        self._runs.waiting_phase()
        self._thread_list.changed()

    # --- reads and files ------------------------------------------------------------

    def usage(self) -> list[UsageRow]:
        """One row per reply of the thread shown: model, tokens, cost in USD (None: not
        priced), context used, seconds (``ipygenui.runtime.usage``); a DataFrame takes them."""
        return usage_rows(self.thread.messages)

    def usage_total(self) -> UsageTotal:
        """The sums of :meth:`usage`'s rows: the thread's tokens and cost so far."""
        return usage_total(self.usage())

    def to_markdown(self) -> str:
        """The active branch as a markdown transcript (tool calls summarized on
        one line each): what "download transcript" saves."""
        return thread_to_markdown(self.thread)

    def _components(self) -> list[Component]:
        return [c for c in self.components if isinstance(c, Component)]

    def shown_components(self) -> list[ShownComponent]:
        """The components shown so far, oldest first: name, validated props, user
        state, and the objects its reference props name (``ipygenui.components.shown``)."""
        return shown_components(self.thread, self._components(), data=self.data)

    def surfaces(self) -> list[dict[str, Any]]:
        """The A2UI surfaces shown so far (``ipygenui.a2ui``): each one's ``surface_id``,
        ``components`` and ``data`` model, with what the user entered in the browser."""
        from ..a2ui import thread_surfaces  # only chats that show A2UI load it

        return thread_surfaces(self.thread)

    def apps(self) -> list[ShownApp]:
        """The MCP apps shown so far, oldest first (``ipygenui.components.shown_apps``):
        call, server, ``ui://`` URI, input, result (never the HTML), last model context."""
        return shown_apps(self.thread)

    def results(self) -> list[ToolResult]:
        """Every answered tool call, oldest first: tool name, call id, the reference its
        object is kept under (or None), ``value`` (None in a thread loaded from a file)."""
        return tool_results(self.thread, self.data)

    def set_app_context(self, tool_call_id: str, context: Any) -> None:
        """An MCP app's ``ui/update-model-context`` for its call: the last one before
        the next turn reaches the model (``ValueError`` for a call that shows no app)."""
        self._host.commit(apply_app_context(self.thread, tool_call_id, json_safe(context)))

    def _record_app_call(self, app_call_id: str, *call: Any) -> None:
        """Record a ``tools/call`` an MCP app started that its server ran (the widget's
        app bridge): ``components/interactive.py``'s ``record_app_call``."""
        self._host.commit(record_app_call(self.thread, app_call_id, *call))

    def set_component_state(self, tool_call_id: str, state: Any) -> None:
        """Store the user's state for an interactable component (checked by its state model)
        for the model's next turn; ``ValueError``, nothing changed: unknown call, bad state."""
        state = json_safe(state)
        message, _, _ = apply_component_state(self.thread, self._components(), tool_call_id, state)
        self._host.commit(message)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the thread to ``path`` (atomically). To the ``persist`` path: an autosave
        that raises (``PersistenceConflictError`` when another chat took it over)."""
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
        """A runtime on the thread saved at ``path`` (``kwargs`` as for the constructor).
        The file is untrusted, as ``persist=`` files are (see the class); one that
        cannot be read raises ``ThreadFileError`` naming it."""
        given = dict(
            restore_always_allowed=restore_always_allowed, restore_approvals=restore_approvals
        )
        restore = take_renamed("Runtime.load", given)["restore_always_allowed"]
        runtime = cls(thread=load_thread_file(path), restore_always_allowed=restore, **kwargs)
        distrust_loaded(runtime._thread, runtime._tools, restore)
        return runtime
