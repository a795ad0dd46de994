"""The loop of one run: ``do { roundtrip } while goes_on(message)``.

A roundtrip is one model step streamed into the assistant message (recorded
in ``metadata["steps"]``), then the tool phase that runs the step's ready
calls. After it the message requires action for its calls, and ``goes_on``
(``continuation``: ``should_continue``, assistant-ui's rule, and no call
left open) decides whether the loop answers that itself or a call waits for
the user; the runtime asks the loop the same after a decision (``resumes``).
The limits are stops of their own: ``max_steps``, the identical-call limit
(tool phase), and a step the model ends by length or content filter
(``max_run_seconds``, the wall clock, is the run lifecycle's). A run
resumed after the user decided starts with the tool phase it stopped in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from ...data import DataStore
from ...events import AgentCustomEvent, AgentStateChanged
from ...messages import (
    Complete,
    Incomplete,
    Message,
    RequiresAction,
    Running,
    Thread,
    ToolCallPart,
)
from ...models.agent import Agent, AgentRequest
from ...models.base import Model, ModelDelta, ModelError, ModelRequest, delta_batches
from ...models.history import CATALOGUE_KEY, HistoryCache, assistant_messages
from ...tools import Tool
from ..continuation import goes_on
from ..prompts import system_prompt
from ..usage import load_prices, record_step
from .accumulator import Accumulator
from .agent_interrupts import abandoned, ask_user, decisions, settle
from .decisions import may_answer
from .run_events import RunEvents
from .tool_runner import ToolRunner
from .toolset import Toolset, step_toolset

logger = logging.getLogger("ipygenui")
_T = TypeVar("_T")


@contextlib.asynccontextmanager
async def _closing(stream: AsyncIterator[_T]) -> AsyncIterator[AsyncIterator[_T]]:
    """``stream``, closed on the way out when it can be (an async generator can)."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


class RunSettings(Protocol):
    """What the loop reads from its runtime at every step (users may change them)."""

    model: Model
    agent: Agent | None
    agent_state: dict[str, Any]
    instructions: str | None
    max_steps: int
    max_run_seconds: float | None
    max_result_chars: int | None
    components: list[Any]

    @property
    def thread(self) -> Thread: ...

    @property
    def always_allowed(self) -> frozenset[str]:
        """The tools the user allowed for the whole chat."""
        ...


class RunLoop:
    """Drives a run's message through roundtrips; the runtime owns the task around it.

    ``tools`` are the runtime's own; before each model step the loop adds the
    shown components' update tools (``step_toolset``) and hands that toolset
    to the step's request, its accumulator and its tool phase. ``commit``
    publishes and saves a changed message. ``tool_choice`` applies to the
    first step of a run only, so a forced tool cannot loop.
    """

    def __init__(
        self,
        settings: RunSettings,
        tools: Mapping[str, Tool],
        events: RunEvents,
        commit: Callable[[Message], None],
        tool_choice: str | dict[str, Any],
    ) -> None:
        self._settings = settings
        self._own_tools = tools
        self._human_tools = [t.name for t in tools.values() if t.human]
        self._always_allowed = lambda: settings.always_allowed
        self._tool_runner = ToolRunner(
            events, commit, self._always_allowed, data=lambda: getattr(settings, "data", None)
        )
        self._events = events
        self._commit = commit
        self._tool_choice = tool_choice
        self._schemas = [t.openai_schema(standard_parameters=True) for t in tools.values()]
        self._component_names = [t.component for t in tools.values() if t.component]
        self._toolset = Toolset(tools)
        """The current step's tools (its tool phase runs with them too)."""
        self.client_tools: dict[str, Tool] = {}
        """An AG-UI client's declared tools, offered while it is served (see
        ``agui/_client_tools.py``); the client answers their calls."""
        self._streaming: Accumulator | None = None
        self.history = HistoryCache()
        """The chat messages of the thread's messages, built once (see HistoryCache)."""

    @property
    def max_run_seconds(self) -> float | None:
        """The runtime's wall-clock limit of one run (``RunLifecycle`` applies it)."""
        return self._settings.max_run_seconds

    @property
    def executing(self) -> frozenset[str]:
        """The ids of the calls running now."""
        return frozenset(self._tool_runner.executing)

    def _take_changed_tools(self) -> None:
        """Before a step only: the runtime's own tools read again when a source
        of them changed (an MCP server's ``list_changed``); a step under way
        keeps its toolset."""
        refresh = getattr(self._own_tools, "refresh", None)
        if callable(refresh) and refresh():
            tools = self._own_tools
            self._human_tools = [t.name for t in tools.values() if t.human]
            self._schemas = [t.openai_schema(standard_parameters=True) for t in tools.values()]

    def step_toolset(self) -> Toolset:
        """The tools a model step would be offered now."""
        settings = self._settings
        return step_toolset(
            self._own_tools, settings.thread, settings.components, self.client_tools
        )

    def materialize(self) -> None:
        """Make the streaming message's text fields exact (see Accumulator.materialize)."""
        if self._streaming is not None:
            self._streaming.materialize()

    def stop(self, message: Message) -> None:
        """The run is being cancelled: keep every streamed character, and answer
        the calls whose sync function cannot be stopped (before the rest are
        answered as cancelled)."""
        self.materialize()
        self._tool_runner.answer_stopped_threads(message, self._toolset)

    async def run(
        self, message: Message, is_current: Callable[[], bool], cancel: asyncio.Event
    ) -> None:
        """Loop until the message has its final status (or requires action).

        ``cancel`` is set by ``Runtime.cancel()``, which has then ended the
        message itself: a step that sees it raises ``CancelledError``. Every
        step uses the model the run started with (a switch applies to the next run).
        """
        run_model = self._settings.model
        self._tool_runner.executing.clear()  # a cancelled run's threads are answered already
        resumed = bool(message.tool_calls)
        if resumed:
            self._take_changed_tools()
            self._toolset = self.step_toolset()
        while True:  # do { roundtrip } while goes_on(message)
            if not resumed and await self._model_step(message, cancel, run_model):
                return  # answered in text, or ended by an error or a finish limit
            resumed = False
            limit = await self._tool_runner.run(message, self._toolset, is_current)
            if limit is not None:  # the identical-call limit
                self._events.end(message, Incomplete(reason="other", error=limit))
                return
            message.status = RequiresAction()  # the step's calls, answered or waiting
            if not goes_on(message, self._human_tools, self._toolset):
                return  # a call waits for the user
            if self._answered_in_text(message):
                message.status = Complete(reason="unknown")
                return
            if self._out_of_steps(message):
                return
            message.status = Running()

    def resumes(self, message: Message) -> bool:
        """Whether a decision on ``message`` (between runs) resumes it: the loop's
        own ``goes_on``, with the tools a step would be offered now."""
        return goes_on(message, self._human_tools, self.step_toolset())

    @staticmethod
    def _answered_in_text(message: Message) -> bool:
        """A resumed message whose last step had no calls: the model had answered."""
        steps = message.metadata.setdefault("steps", [])
        return bool(steps) and not steps[-1].get("tool_calls")

    def _out_of_steps(self, message: Message) -> bool:
        """The ``max_steps`` limit: ends the message when it is reached."""
        max_steps = self._settings.max_steps
        if len(message.metadata["steps"]) < max_steps:
            return False
        error = f"Stopped after {max_steps} model steps (max_steps): the model kept calling tools."
        self._events.end(message, Incomplete(reason="other", error=error))
        return True

    def _history(self, message: Message) -> list[dict[str, Any]]:
        """The chat messages before ``message``, then what ``message`` holds so far."""
        settings = self._settings
        messages = settings.thread.messages
        index = index_of(messages, message)
        stamp_catalogue(messages[:index], getattr(settings, "data", None))
        system = system_prompt(settings.instructions, component_names=self._component_names)
        budget = settings.max_result_chars
        return self.history.messages(
            messages, system, max_result_chars=budget, stop=index
        ) + assistant_messages(message, max_result_chars=budget)

    async def _model_step(self, message: Message, cancel: asyncio.Event, run_model: Model) -> bool:
        """One model step of ``run_model`` with a fresh toolset; True when the run ends with it."""
        self._events.set_phase("thinking")
        steps: list[dict[str, Any]] = message.metadata.setdefault("steps", [])
        self._take_changed_tools()
        tools = self._toolset = self.step_toolset()
        streaming = True

        def status(text: str) -> None:
            # What the model waits for, as the phase detail; never after its step.
            if streaming and not cancel.is_set():
                self._events.set_phase("thinking", text)

        schemas = self._schemas + tools.update_schemas()
        agent = self._settings.agent
        agent_request: AgentRequest | None = None
        batches: AsyncIterator[list[ModelDelta]] | None = None
        source: AsyncIterator[ModelDelta] | None = None
        if agent is None:
            request = ModelRequest(
                messages=self._history(message),
                tools=schemas,
                tool_choice=self._tool_choice if not steps else "auto",
                cancel=cancel,
                status=status,
            )
            batches = delta_batches(run_model, request)
            if batches is None:
                source = run_model.stream(request)
        else:  # an external agent: one of its runs is the step
            agent_request = self._agent_request(message, schemas, cancel, status)
            source = agent.run(agent_request)
        taken = (p.tool_call_id for m in self._settings.thread.messages for p in m.tool_calls)
        accumulator = Accumulator(message, tools.offered(), taken_ids=taken)
        step: dict[str, Any] = {"start": len(message.parts), "end": None, "started_at": time.time()}
        steps.append(step)
        error: str | None = None
        patch = self._events.patch  # the hot path: one bound method per delta
        self._streaming = accumulator
        try:
            # aclosing: a stopped run closes the stream (its connection, its
            # watchdog) now, not whenever the generator is collected
            if batches is not None:  # one change per network read (see BatchStreaming)
                async with _closing(batches) as stream:
                    async for batch in stream:
                        ops = accumulator.apply_batch(batch)
                        if ops:
                            patch(message, ops)
            elif source is not None:
                async with _closing(source) as deltas:
                    async for delta in deltas:
                        ops = accumulator.apply(delta)
                        if ops:
                            patch(message, ops)
        except ModelError as exc:
            error = str(exc) or type(exc).__name__
        except Exception as exc:  # provider bugs and network errors reach the user too
            error = f"{type(exc).__name__}: {exc}"
        finally:  # cancelled too: the message keeps every streamed character
            streaming = False
            accumulator.materialize()
            self._streaming = None
        ops = accumulator.finish()
        if ops:
            patch(message, ops)
        calls = accumulator.tool_call_parts
        if agent_request is not None:
            settle(message, agent_request, self._events.answer)
            ask_user(message, agent_request, calls, self._always_allowed())
            calls = self._answer_server_calls(agent_request, calls)
        step.update(
            end=len(message.parts),
            ended_at=time.time(),
            tool_calls=len(calls),
            finish_reason=accumulator.finish_reason,
        )
        if accumulator.has_usage:  # an agent's model is its own: not priced
            earlier = self._settings.thread.messages
            earlier = earlier[: index_of(earlier, message, 0)]
            model = run_model if agent is None else None
            await load_prices(model)
            record_step(message, step, accumulator.usage, model, earlier)
        if cancel.is_set():
            raise asyncio.CancelledError  # cancel() already ended the message
        if error is not None:
            self._events.end(message, Incomplete(reason="error", error=error))
            return True
        if accumulator.finish_reason in ("length", "content_filter"):  # a finish limit
            reason = "length" if accumulator.finish_reason == "length" else "content-filter"
            self._events.end(message, Incomplete(reason=reason))
            return True
        if calls:
            self._commit(message)
            return False
        message.status = Complete(
            reason="stop" if accumulator.finish_reason == "stop" else "unknown"
        )
        return True

    def _agent_request(
        self,
        message: Message,
        schemas: list[dict[str, Any]],
        cancel: asyncio.Event,
        status: Callable[[str], None],
    ) -> AgentRequest:
        settings = self._settings
        messages = settings.thread.messages
        index = index_of(messages, message)

        def set_agent_state(state: dict[str, Any]) -> None:
            settings.agent_state = state
            self._events.emit(AgentStateChanged(state))

        def custom(name: str, value: Any) -> None:
            self._events.emit(AgentCustomEvent(name, value))

        return AgentRequest(
            thread_id=settings.thread.id,
            messages=messages[: index + 1],
            tools=schemas,
            state=settings.agent_state,
            cancel=cancel,
            status=status,
            set_state=set_agent_state,
            custom=custom,
            resume=[
                *abandoned(messages[:index], self._toolset.all()),
                *decisions(message, self._toolset.all()),
            ],
        )

    def _answer_server_calls(
        self, request: AgentRequest, calls: list[ToolCallPart]
    ) -> list[ToolCallPart]:
        """Answer the calls the agent ran itself; the rest (the kernel's) remain.

        ``may_answer`` decides which: a result for one of the chat's own tools
        is dropped, and the tool phase runs that call behind its usual gate.
        """
        tools = self._toolset.all()
        for index, (result, is_error) in request.server_results.items():
            if index >= len(calls) or calls[index].has_result:
                continue
            refused = may_answer(calls[index], tools, by_agent=True)
            if refused is None:
                self._events.answer(calls[index], result, is_error)
            else:
                logger.warning("the agent's result ignored: %s", refused)
        return [part for part in calls if not part.has_result]


def index_of(messages: Sequence[Message], message: Message, missing: int | None = None) -> int:
    """Where ``message`` (the object) is in ``messages``, searched from the end
    (a run's message is the last or near it); ``missing`` when it is not there
    (None: ``StopIteration``)."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i] is message:
            return i
    if missing is None:
        raise StopIteration
    return missing


def stamp_catalogue(messages: Sequence[Message], store: DataStore | None) -> None:
    """Give the turn's user message the data catalogue as it is now, once.

    It rides on that message (as component state does), not in the system
    prompt: earlier messages keep the catalogue they were sent with, so the
    prompt's prefix stays the same from turn to turn (provider caches hit),
    and the model still reads the names as they are this turn.
    """
    if store is None:
        return
    user = next((m for m in reversed(messages) if m.role == "user"), None)
    if user is None or CATALOGUE_KEY in user.metadata:
        return
    try:
        catalogue = store.catalogue()
    except Exception:  # a namespace that cannot be read must not stop the run
        logger.exception("the data catalogue could not be read")
        return
    if catalogue:
        user.metadata[CATALOGUE_KEY] = catalogue
