"""The runtime: a thread, a model, tools, and the loop that drives them.

One reply is a *run*: an assistant message inserted empty (status running)
before the model answers, then a loop of roundtrips. A roundtrip streams one
model step into the message, then runs every ready tool call of that step (in
parallel). The loop goes on while every call has its answer, and stops when a
call waits for the user (approval or a human tool), when the model answers in
text, or when a limit is hit. Approving, rejecting or answering a call
resumes the loop when nothing else is pending (``should_continue``).

Everything here runs on one asyncio event loop (the kernel's in a notebook);
sync tools run in worker threads so the loop never blocks.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Generator, Sequence
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent
from pydantic import BaseModel

from .accumulator import Accumulator, Op
from .agui import AGUIEmitter, AGUIListener
from .components.component import Component
from .components.interactive import apply_component_state, unreported_states, update_tools
from .components.shown import ShownComponent, shown_components
from .continuation import should_continue
from .events import (
    MessageAdded,
    MessagePatched,
    MessageReplaced,
    RunChanged,
    RunPhase,
    SuggestionsChanged,
    ThreadEvent,
    ThreadListener,
)
from .history import assistant_messages, to_openai_messages
from .messages import (
    Approval,
    Complete,
    Incomplete,
    Message,
    RequiresAction,
    Running,
    TextPart,
    Thread,
    ToolCallPart,
    Usage,
    new_id,
)
from .models.base import Model, ModelError, ModelRequest, TextDelta
from .models.select import resolve_model
from .persistence import load_thread, save_thread
from .prompts import system_prompt
from .standard_params import split_standard_arguments, with_standard_parameters
from .suggestions import SUGGESTIONS_PROMPT, parse_suggestions
from .tool_choice import resolve_tool_choice
from .tools import Tool, ToolArgumentsError, as_tool, to_jsonable

logger = logging.getLogger("ipygenui")

MAX_IDENTICAL_CALLS = 3
"""At most this many calls of one tool with the same arguments in one turn."""

CANCELLED = "Cancelled by the user before it finished."


class DecisionError(ValueError):
    """An approve / reject / result that does not fit the thread's state
    (unknown call, not pending, decided twice, invalid edited arguments).
    Nothing was changed."""


class Run:
    """A handle on one run: ``await run`` gives the assistant message when the
    run ends (complete, incomplete, or requires-action)."""

    def __init__(self, message_id: str, run_id: str, future: asyncio.Future[Message]) -> None:
        self.message_id = message_id
        self.run_id = run_id
        self._future = future

    def done(self) -> bool:
        return self._future.done()

    def result(self) -> Message:
        """The final message; raises ``asyncio.InvalidStateError`` while running."""
        return self._future.result()

    def __await__(self) -> Generator[Any, None, Message]:
        # shield: a caller that stops waiting must not cancel the run itself
        return asyncio.shield(self._future).__await__()

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return f"<Run {self.run_id} message={self.message_id} {state}>"


def _running_loop(what: str) -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(
            f"{what} needs a running asyncio event loop: call it from a notebook cell "
            "(the kernel runs one) or from async code (asyncio.run)"
        ) from None


class Runtime:
    """The headless chat runtime (``gu.Chat`` is this plus a widget).

    ``send`` while a run is active cancels that run first (as assistant-ui
    does); a send while calls wait for the user answers them with a
    cancelled error, so the history stays valid. ``persist=path`` saves the
    thread atomically after every step, result and decision, and resumes
    the saved thread when the file exists and no ``thread`` is given.
    ``tool_choice`` applies to the first model step of each run; later
    steps use ``"auto"`` so a forced tool cannot loop.
    """

    def __init__(
        self,
        model: Model | None = None,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        components: Sequence[Any] = (),
        instructions: str | None = None,
        suggestions: bool = False,
        persist: str | os.PathLike[str] | None = None,
        max_steps: int = 10,
        thread: Thread | None = None,
        tool_choice: str | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.model: Model = resolve_model(model)
        self.components = list(components)
        self._tools: dict[str, Tool] = {}
        for item in [*tools, *components]:
            tool = as_tool(item)
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool
        self._tool_schemas = [_openai_tool(t) for t in self._tools.values()]
        self._dynamic: dict[str, Tool] = {}
        """``update_component_<id>`` tools of the current step (components hook)."""
        self.tool_choice = tool_choice
        self._tool_choice = resolve_tool_choice(tool_choice, list(self._tools))
        self.instructions = instructions
        self.suggestions = suggestions
        self.max_steps = max_steps
        self.persist = Path(persist) if persist is not None else None
        if thread is None and self.persist is not None and self.persist.exists():
            thread = load_thread(self.persist)
        self.thread: Thread = thread if thread is not None else Thread()
        self._listeners: list[ThreadListener] = []
        self._agui = AGUIEmitter(self.thread.id)
        self._task: asyncio.Task[None] | None = None
        self._run: Run | None = None
        self._run_message: Message | None = None
        self._generation = 0
        self._cancel_event = asyncio.Event()
        self._executing: set[str] = set()
        self._suggest_task: asyncio.Task[None] | None = None
        self._phase: RunPhase = "idle"
        self._recover()

    # --- public state -----------------------------------------------------

    @property
    def tools(self) -> dict[str, Tool]:
        return dict(self._tools)

    @property
    def running(self) -> bool:
        return self._task is not None

    @property
    def phase(self) -> RunPhase:
        return self._phase

    @property
    def always_approved(self) -> frozenset[str]:
        """Tools the user trusted with ``approve(..., always=True)`` in this chat."""
        return frozenset(self.thread.metadata.get("always_approved", ()))

    @property
    def current_suggestions(self) -> list[str]:
        return list(self.thread.metadata.get("suggestions", ()))

    @property
    def human_tool_names(self) -> list[str]:
        return [t.name for t in self._tools.values() if t.human]

    # --- listeners --------------------------------------------------------

    def subscribe(self, listener: ThreadListener) -> Callable[[], None]:
        """Call ``listener`` with every thread event; returns the unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def subscribe_agui(self, listener: AGUIListener) -> Callable[[], None]:
        """Call ``listener`` with every AG-UI event (``ag_ui.core`` models)."""
        return self._agui.subscribe(listener)

    def agui_events(self) -> AsyncIterator[BaseEvent]:
        """An async iterator of every AG-UI event from now on."""
        return self._agui.events()

    def _emit(self, event: ThreadEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken view must not break the run
                logger.exception("thread listener failed")

    def _set_phase(self, phase: RunPhase, detail: str | None = None) -> None:
        if phase != self._phase or detail is not None:
            self._phase = phase
            self._emit(RunChanged(phase, detail))

    def _patch(self, message: Message, ops: list[Op]) -> None:
        self._emit(MessagePatched(message.id, ops))
        self._agui.ops(message, ops)

    def _replace(self, message: Message) -> None:
        self._emit(MessageReplaced(message))

    def _add(self, message: Message) -> None:
        self.thread.messages.append(message)
        self._emit(MessageAdded(message))

    def _autosave(self) -> None:
        if self.persist is None:
            return
        try:
            save_thread(self.thread, self.persist)
        except OSError:
            logger.exception("could not save the thread to %s", self.persist)

    # --- starting runs ------------------------------------------------------

    def send(self, text: str) -> Run:
        """Add a user message and start a run answering it."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("send() needs a non-empty text")
        _running_loop("send()")
        self._stop_suggestions()
        if self.running:
            self.cancel()
        last = self.thread.last_assistant
        if last is not None and isinstance(last.status, RequiresAction):
            self._end(last, Incomplete(reason="cancelled", error="The user sent a new message."))
            self._replace(last)
        self._add(Message(role="user", parts=[TextPart(text=text)], metadata=self._state_report()))
        message = Message(role="assistant", status=Running(), metadata=self._fresh_metadata())
        self._add(message)
        self._autosave()
        return self._start(message)

    def retry(self) -> Run:
        """Answer the last user message again, replacing the last assistant reply."""
        _running_loop("retry()")
        if self.running:
            self.cancel()
        self._stop_suggestions()
        if not self.thread.messages:
            raise ValueError("nothing to retry: the thread is empty")
        last = self.thread.messages[-1]
        if last.role == "assistant":
            last.parts = []
            last.status = Running()
            last.metadata = self._fresh_metadata()
            self._replace(last)
            message = last
        else:
            message = Message(role="assistant", status=Running(), metadata=self._fresh_metadata())
            self._add(message)
        return self._start(message)

    def _state_report(self) -> dict[str, Any]:
        """The component states the user changed since the model last saw them.

        They ride on the next user message (rendered as ``<component_state>``
        by the history), so the model reads each change once, in order, and
        the system prompt stays the same from turn to turn.
        """
        changed = unreported_states(self.thread)
        return {"component_state": changed} if changed else {}

    @staticmethod
    def _fresh_metadata() -> dict[str, Any]:
        return {"steps": [], "started_at": time.time()}

    def _start(self, message: Message) -> Run:
        loop = _running_loop("starting a run")
        self._generation += 1
        generation = self._generation
        self._cancel_event = asyncio.Event()
        run = Run(message.id, new_id("run"), loop.create_future())
        self._run = run
        self._run_message = message
        if not isinstance(message.status, Running):
            message.status = Running()
            self._replace(message)
        message.metadata.pop("ended_at", None)
        self._agui.run_started(run.run_id)
        self._task = loop.create_task(self._drive(message, generation, run))
        return run

    async def _drive(self, message: Message, generation: int, run: Run) -> None:
        try:
            await self._loop(message, generation)
        except asyncio.CancelledError:
            if generation == self._generation:  # cancelled from outside, not by cancel()
                self._end(message, Incomplete(reason="cancelled", error=CANCELLED))
                self._finish_run(message, run)
            raise
        except Exception as exc:  # a bug in the loop: keep the thread valid and say what broke
            if generation != self._generation:
                return
            logger.exception("run failed")
            self._end(message, Incomplete(reason="error", error=f"{type(exc).__name__}: {exc}"))
        if generation == self._generation:
            self._finish_run(message, run)

    def _finish_run(self, message: Message, run: Run) -> None:
        self._task = None
        self._run = None
        self._run_message = None
        self._executing.clear()
        message.metadata["ended_at"] = time.time()
        self._replace(message)
        self._set_phase("waiting" if isinstance(message.status, RequiresAction) else "idle")
        self._autosave()
        self._agui.run_finished(run.run_id, message)
        if not run._future.done():
            run._future.set_result(message)
        if self.suggestions and isinstance(message.status, Complete):
            self._suggest_task = asyncio.get_running_loop().create_task(self._suggest())

    # --- the loop -----------------------------------------------------------

    async def _loop(self, message: Message, generation: int) -> None:
        while True:
            stop = await self._tool_phase(message, generation)
            if stop is not None:
                self._end(message, Incomplete(reason="other", error=stop))
                return
            if any(not p.has_result for p in message.tool_calls):
                message.status = RequiresAction()
                return
            steps = message.metadata.setdefault("steps", [])
            if steps and not steps[-1].get("tool_calls"):
                if isinstance(message.status, Running):
                    message.status = Complete(reason="unknown")
                return
            if len(steps) >= self.max_steps:
                self._end(
                    message,
                    Incomplete(
                        reason="other",
                        error=f"Stopped after {self.max_steps} model steps (max_steps): "
                        "the model kept calling tools.",
                    ),
                )
                return
            if await self._roundtrip(message):
                return

    def _history(self, message: Message) -> list[dict[str, Any]]:
        index = next(i for i, m in enumerate(self.thread.messages) if m is message)
        system = system_prompt(
            self.instructions,
            component_names=[t.component for t in self._tools.values() if t.component],
        )
        return to_openai_messages(self.thread.messages[:index], system) + assistant_messages(
            message
        )

    async def _roundtrip(self, message: Message) -> bool:
        """One model step; True when the run ends with it."""
        self._set_phase("thinking")
        steps: list[dict[str, Any]] = message.metadata["steps"]
        dynamic = self._update_tools()
        request = ModelRequest(
            messages=self._history(message),
            tools=self._tool_schemas + [_openai_tool(t) for t in dynamic.values()],
            tool_choice=self._tool_choice if not steps else "auto",
            cancel=self._cancel_event,
        )
        accumulator = Accumulator(message, {**self._tools, **dynamic})
        step: dict[str, Any] = {"start": len(message.parts), "end": None, "started_at": time.time()}
        steps.append(step)
        error: str | None = None
        try:
            async for delta in self.model.stream(request):
                ops = accumulator.apply(delta)
                if ops:
                    self._patch(message, ops)
        except ModelError as exc:
            error = str(exc) or type(exc).__name__
        except Exception as exc:  # provider bugs and network errors reach the user too
            error = f"{type(exc).__name__}: {exc}"
        ops = accumulator.finish()
        if ops:
            self._patch(message, ops)
        calls = accumulator.tool_call_parts
        step.update(
            end=len(message.parts),
            ended_at=time.time(),
            tool_calls=len(calls),
            finish_reason=accumulator.finish_reason,
        )
        if accumulator.has_usage:
            step["usage"] = accumulator.usage.model_dump()
            total = Usage.model_validate(message.metadata.get("usage") or {}) + accumulator.usage
            message.metadata["usage"] = total.model_dump()
        self._agui.step_finished(calls)
        if self._cancel_event.is_set():
            raise asyncio.CancelledError  # cancel() already ended the message
        if error is not None:
            self._end(message, Incomplete(reason="error", error=error))
            return True
        if accumulator.finish_reason in ("length", "content_filter"):
            reason = "length" if accumulator.finish_reason == "length" else "content-filter"
            self._end(message, Incomplete(reason=reason))
            return True
        if calls:
            self._replace(message)
            self._autosave()
            return False
        message.status = Complete(
            reason="stop" if accumulator.finish_reason == "stop" else "unknown"
        )
        return True

    # --- tools --------------------------------------------------------------

    async def _tool_phase(self, message: Message, generation: int) -> str | None:
        """Run every ready call (again and again while decisions arrive).

        Returns why the run must stop (the identical-call limit), or None.
        """
        stop: str | None = None
        while True:
            ready: list[tuple[ToolCallPart, Tool, BaseModel]] = []
            changed = False
            for part in message.tool_calls:
                if part.has_result or part.tool_call_id in self._executing:
                    continue
                outcome = self._prepare(message, part)
                if isinstance(outcome, tuple):
                    ready.append(outcome)
                elif outcome == "answered":
                    changed = True
                elif outcome.startswith("stop:"):
                    stop = stop or outcome[5:]
                    changed = True
                elif outcome == "asked":
                    changed = True
            if changed:
                self._replace(message)
                self._autosave()
            if not ready:
                return stop
            for part, _, _ in ready:
                self._executing.add(part.tool_call_id)
            self._set_phase("running-tool", ", ".join(t.name for _, t, _ in ready))
            await asyncio.gather(
                *(
                    self._execute(message, part, tool, args, generation)
                    for part, tool, args in ready
                )
            )

    def _answer(self, message: Message, part: ToolCallPart, result: Any, is_error: bool) -> None:
        part.result = result
        part.has_result = True
        part.is_error = is_error
        self._agui.tool_result(part)

    def _fail(self, message: Message, part: ToolCallPart, text: str) -> str:
        self._answer(message, part, {"error": text}, True)
        return "answered"

    def _prepare(
        self, message: Message, part: ToolCallPart
    ) -> tuple[ToolCallPart, Tool, BaseModel] | str:
        """Decide what happens to an unanswered call.

        Returns the validated call when it may run now; otherwise "waiting"
        (for the user), "asked" (approval just requested), "answered" (an
        error result was set), or "stop:<reason>".
        """
        tool = self._tools.get(part.tool_name) or self._dynamic.get(part.tool_name)
        if tool is None:
            names = ", ".join(sorted(self._tools)) or "none"
            return self._fail(
                message, part, f"Unknown tool {part.tool_name!r}. Available tools: {names}."
            )
        text = part.args_text.strip()
        try:
            raw = json.loads(text) if text else {}
        except ValueError as exc:
            return self._fail(
                message, part, f"The arguments are not valid JSON ({exc}): {text[:200]!r}"
            )
        if not isinstance(raw, dict):
            return self._fail(message, part, "The arguments must be a JSON object.")
        args, _, _ = split_standard_arguments(raw, tool.declared)
        try:
            validated = tool.validate(args)
        except ToolArgumentsError as exc:
            return self._fail(message, part, str(exc))
        count = self._identical_calls_before(message, part, args) + 1
        if count > MAX_IDENTICAL_CALLS:
            reason = (
                f"Stopped: the model called {tool.name} with the same arguments "
                f"{count} times in one turn (the limit is {MAX_IDENTICAL_CALLS})."
            )
            self._fail(message, part, reason)
            return "stop:" + reason
        if tool.human:
            return "waiting"
        try:
            gated = tool.needs_approval(args)
        except Exception:  # a broken rule must not let a call through unapproved
            logger.exception("requires_approval rule of %s failed", tool.name)
            gated = True
        if gated:
            if tool.name in self.always_approved and part.approval is None:
                part.approval = Approval(status="approved", reason="always allowed in this chat")
            elif part.approval is None:
                part.approval = Approval(status="pending")
                return "asked"
            if part.approval.status != "approved":
                return "waiting"
        return part, tool, validated

    def _identical_calls_before(
        self, message: Message, part: ToolCallPart, args: dict[str, Any]
    ) -> int:
        key = json.dumps(args, sort_keys=True, default=str)
        count = 0
        for other in message.tool_calls:
            if other is part:
                break
            if other.tool_name == part.tool_name and (
                json.dumps(other.args, sort_keys=True, default=str) == key
            ):
                count += 1
        return count

    async def _execute(
        self, message: Message, part: ToolCallPart, tool: Tool, args: BaseModel, generation: int
    ) -> None:
        try:
            result, is_error = await tool.invoke(args), False
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the model reads the error and may try again
            result, is_error = {"error": f"{tool.name} raised {type(exc).__name__}: {exc}"}, True
        finally:
            self._executing.discard(part.tool_call_id)
        if generation != self._generation or part.has_result:
            return  # cancelled meanwhile: the call already has its cancelled answer
        self._answer(message, part, result, is_error)
        self._replace(message)
        self._autosave()

    # --- ending -------------------------------------------------------------

    def _end(self, message: Message, status: Incomplete | Complete) -> None:
        """Give ``message`` a final status; answer every open call so history stays valid."""
        message.status = status
        text = status.error if isinstance(status, Incomplete) and status.error else "Not run."
        for part in message.tool_calls:
            part.args_complete = True
            if part.has_result:
                continue
            if part.approval is not None and part.approval.status == "pending":
                part.approval = Approval(status="rejected", reason=text)
            self._answer(message, part, {"error": text}, True)
        for step in message.metadata.get("steps", ()):
            if step.get("end") is None:
                step["end"] = len(message.parts)

    def cancel(self) -> None:
        """Stop the model stream and running tools now; keep what streamed.

        The message becomes incomplete/cancelled and every unanswered call
        gets a cancelled error result. Also ends a message waiting for the
        user. Does nothing when there is nothing to cancel.
        """
        self._stop_suggestions()
        task, run, message = self._task, self._run, self._run_message
        if task is None or run is None or message is None:
            last = self.thread.last_assistant
            if last is not None and isinstance(last.status, RequiresAction):
                self._end(last, Incomplete(reason="cancelled", error=CANCELLED))
                self._replace(last)
                self._set_phase("idle")
                self._autosave()
            return
        self._generation += 1  # the old task now ignores everything it still sees
        self._cancel_event.set()
        task.cancel()
        self._end(message, Incomplete(reason="cancelled", error=CANCELLED))
        self._finish_run(message, run)

    # --- decisions ------------------------------------------------------------

    def _find(self, tool_call_id: str) -> tuple[Message, ToolCallPart]:
        found = self.thread.find_tool_call(tool_call_id)
        if found is None:
            raise DecisionError(f"no tool call with id {tool_call_id!r} in this thread")
        return found

    def _pending_approval(self, tool_call_id: str) -> tuple[Message, ToolCallPart]:
        message, part = self._find(tool_call_id)
        if part.approval is None:
            raise DecisionError(f"tool call {tool_call_id} ({part.tool_name}) needs no approval")
        if part.approval.status != "pending" or part.has_result:
            raise DecisionError(
                f"tool call {tool_call_id} ({part.tool_name}) is not waiting for approval: "
                f"it was already {part.approval.status}"
            )
        return message, part

    def approve(
        self, tool_call_id: str, args: dict[str, Any] | None = None, always: bool = False
    ) -> Run | None:
        """Approve a pending call, optionally with edited arguments (validated
        again); ``always=True`` trusts this tool for the rest of the chat.

        Returns the run that continues the loop, or None while other calls
        still wait for the user.
        """
        _running_loop("approve()")
        message, part = self._pending_approval(tool_call_id)
        if args is not None:
            tool = self._tools.get(part.tool_name)
            if tool is None:
                raise DecisionError(f"tool {part.tool_name!r} is not registered here")
            try:
                tool.validate(args)
            except ToolArgumentsError as exc:
                raise DecisionError(f"edited arguments rejected: {exc}") from None
            edited = to_jsonable(dict(args))
            part.args = edited
            part.args_text = json.dumps(edited)
        part.approval = Approval(status="approved")
        if always:
            trusted = self.always_approved | {part.tool_name}
            self.thread.metadata["always_approved"] = sorted(trusted)
        return self._decided(message)

    def reject(self, tool_call_id: str, reason: str | None = None) -> Run | None:
        """Reject a pending call: the model gets an error result with the reason."""
        _running_loop("reject()")
        message, part = self._pending_approval(tool_call_id)
        part.approval = Approval(status="rejected", reason=reason)
        text = "The user rejected this tool call" + (f": {reason}" if reason else ".")
        self._answer(message, part, {"error": text}, True)
        return self._decided(message)

    def add_tool_result(self, tool_call_id: str, result: Any, is_error: bool = False) -> Run | None:
        """Answer a call (a human tool's) with ``result``; resumes the loop when it can."""
        _running_loop("add_tool_result()")
        message, part = self._find(tool_call_id)
        if part.has_result:
            raise DecisionError(f"tool call {tool_call_id} ({part.tool_name}) already has a result")
        if tool_call_id in self._executing:
            raise DecisionError(f"tool call {tool_call_id} ({part.tool_name}) is running")
        if message is self._run_message and not part.args_complete:
            raise DecisionError(f"tool call {tool_call_id} is still streaming")
        try:
            value = to_jsonable(result)
        except Exception as exc:
            raise DecisionError(f"result is not JSON-serializable: {exc}") from None
        self._answer(message, part, value, is_error)
        return self._decided(message)

    def revoke_always(self, tool_name: str) -> None:
        """Stop trusting ``tool_name``: its next calls need approval again."""
        trusted = self.always_approved - {tool_name}
        self.thread.metadata["always_approved"] = sorted(trusted)
        self._autosave()

    def _decided(self, message: Message) -> Run | None:
        self._replace(message)
        self._autosave()
        if self.running:
            return self._run  # the active loop picks the decision up
        if should_continue(message, self.human_tool_names):
            return self._start(message)
        return None

    # --- suggestions ----------------------------------------------------------

    def _stop_suggestions(self) -> None:
        if self._suggest_task is not None:
            self._suggest_task.cancel()
            self._suggest_task = None
        if self.thread.metadata.get("suggestions"):
            self.thread.metadata["suggestions"] = []
            self._emit(SuggestionsChanged([]))

    async def _suggest(self) -> None:
        history = to_openai_messages(self.thread, system_prompt(self.instructions))
        request = ModelRequest(
            messages=[*history, {"role": "user", "content": SUGGESTIONS_PROMPT}],
            tools=[],
            tool_choice="none",
        )
        text = ""
        try:
            async for delta in self.model.stream(request):
                if isinstance(delta, TextDelta):
                    text += delta.text
        except asyncio.CancelledError:
            raise
        except Exception:  # suggestions are a nicety: never disturb the chat
            logger.warning("suggestions failed", exc_info=True)
            return
        items = parse_suggestions(text)
        self.thread.metadata["suggestions"] = items
        self._suggest_task = None
        self._emit(SuggestionsChanged(items))
        self._autosave()

    # --- components -------------------------------------------------------------

    def _components(self) -> list[Component]:
        return [c for c in self.components if isinstance(c, Component)]

    def _update_tools(self) -> dict[str, Tool]:
        """The ``update_component_<id>`` tools for the components shown so far."""
        components = self._components()
        tools = update_tools(self.thread, components) if components else []
        self._dynamic = {t.name: t for t in tools if t.name not in self._tools}
        return self._dynamic

    def shown_components(self) -> list[ShownComponent]:
        """The components shown so far, oldest first: name, validated props model
        instance and user state (see ``ipygenui.components.shown``)."""
        return shown_components(self.thread, self._components())

    def set_component_state(self, tool_call_id: str, state: Any) -> None:
        """Store the user's state for an interactable component (validated
        against its state model); the model reads it on its next turn.
        Raises ``ValueError`` (nothing changes) for an unknown call or bad state."""
        message, _, _ = apply_component_state(self.thread, self._components(), tool_call_id, state)
        self._replace(message)
        self._autosave()

    # --- persistence ----------------------------------------------------------

    def _recover(self) -> None:
        """A thread saved mid-run (the kernel died): end that run as cancelled."""
        for message in self.thread.messages:
            if isinstance(message.status, Running):
                self._end(
                    message, Incomplete(reason="cancelled", error="Interrupted before it finished.")
                )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the thread to ``path`` (atomically)."""
        save_thread(self.thread, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], **kwargs: Any) -> Runtime:
        """A runtime on the thread saved at ``path``; ``kwargs`` as for the constructor."""
        return cls(thread=load_thread(path), **kwargs)


def _openai_tool(tool: Tool) -> dict[str, Any]:
    """A tool's chat-API schema, with the standard parameters added."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": with_standard_parameters(tool.parameters_schema),
        },
    }
