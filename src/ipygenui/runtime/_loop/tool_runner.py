"""The tool phase of a roundtrip: every unanswered call of a message, checked and run.

Each call is checked in order (known tool, JSON object arguments that
validate, the identical-call limit), then gated (human tools and calls that
need approval wait for the user), and the calls that may run now run in
parallel: async tools on the event loop, sync tools each in a thread of its
own (``_internal/worker_threads.py``). Whatever a tool raises, ``SystemExit``
included, is an error result the model reads; only a real cancel of the run
cancels.

The arguments checked are the call's one parse (``ToolCallPart.parsed_args``,
recorded by the accumulator as the call streamed): never parsed again here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import traceback
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from ..._internal.standard_params import split_standard_arguments
from ..._internal.worker_threads import runs_in_thread, stopped_in_background
from ...data import DataStore, model_json, using_data
from ...messages import Approval, Message, ParsedArgs, ToolCallPart
from ...tools import Tool, ToolArgumentsError, ToolError, to_jsonable
from ...tools.call_report import CallReport
from .agent_interrupts import is_agent_gated
from .run_events import RunEvents
from .toolset import Toolset

logger = logging.getLogger("ipygenui")

MAX_IDENTICAL_CALLS = 3
"""At most this many calls of one tool with the same arguments in one turn."""


class Ready(NamedTuple):
    """A call that may run now, with its validated arguments."""

    part: ToolCallPart
    tool: Tool
    args: BaseModel


@dataclass(frozen=True, slots=True)
class Stop:
    """The call broke a limit that ends the run (its error result is set)."""

    reason: str


Held = Literal["waiting", "asked", "answered"]
"""Waiting for the user; approval just requested (or a wait shown); answered with an error."""

CLIENT_ANSWERS = "Waiting for the AG-UI client to answer"
"""The status of a call to a tool an AG-UI client declared: the client answers it."""


class ToolRunner:
    """Checks, gates and runs the tool calls of a run's message.

    Each tool phase gets the step's ``Toolset`` from the loop. ``executing``
    holds the ids of calls running now (a user may not answer those);
    ``commit`` publishes and saves a changed message; ``always_allowed``
    gives the tools the user allowed for the whole chat.
    """

    def __init__(
        self,
        events: RunEvents,
        commit: Callable[[Message], None],
        always_allowed: Callable[[], Collection[str]],
        data: Callable[[], DataStore | None] | None = None,
    ) -> None:
        self.executing: set[str] = set()
        self._events = events
        self._commit = commit
        self._always_allowed = always_allowed
        self._data = data

    async def run(
        self, message: Message, tools: Toolset, is_current: Callable[[], bool]
    ) -> str | None:
        """Run every ready call with ``tools`` (again and again while decisions arrive).

        Returns why the run must stop (the identical-call limit), or None.
        ``is_current`` turns False once the run is cancelled: a tool that
        finishes after that keeps the cancelled answer it already has.
        """
        stop: str | None = None
        while True:
            ready: list[Ready] = []
            changed = False
            for part in message.tool_calls:
                if part.has_result or part.tool_call_id in self.executing:
                    continue
                outcome = self._prepare(message, part, tools)
                if isinstance(outcome, Ready):
                    ready.append(outcome)
                elif isinstance(outcome, Stop):
                    stop = stop or outcome.reason
                    changed = True
                elif outcome in ("answered", "asked"):
                    changed = True
            if changed:
                self._commit(message)
            if not ready:
                return stop
            for call in ready:
                self.executing.add(call.part.tool_call_id)
            self._events.set_phase("running-tool", ", ".join(call.tool.name for call in ready))
            await asyncio.gather(
                *(self._execute(message, call, tools, is_current) for call in ready)
            )

    def _fail(self, part: ToolCallPart, text: str) -> Held:
        self._events.answer(part, {"error": text}, True)
        return "answered"

    def _prepare(self, message: Message, part: ToolCallPart, tools: Toolset) -> Ready | Stop | Held:
        """Decide what happens to an unanswered call."""
        tool = tools.get(part.tool_name)
        if tool is None and is_agent_gated(message, part, tools.all()):
            return "waiting"  # the agent's own call: the user decides, the agent runs it
        if tool is None:
            names = ", ".join(sorted(tools.own)) or "none"
            return self._fail(part, f"Unknown tool {part.tool_name!r}. Available tools: {names}.")
        parsed = part.parsed_args
        if parsed.error is not None:
            text = part.args_text.strip()
            return self._fail(
                part, f"The arguments are not valid JSON ({parsed.error}): {text[:200]!r}"
            )
        raw = parsed.value
        if not isinstance(raw, dict):
            return self._fail(part, "The arguments must be a JSON object.")
        args, _, _ = split_standard_arguments(raw, tool.declared)
        try:
            validated = tool.validate(args)
        except ToolArgumentsError as exc:
            return self._fail(part, str(exc))
        count = identical_calls_before(message, part, args) + 1
        if count > MAX_IDENTICAL_CALLS:
            reason = (
                f"Stopped: the model called {tool.name} with the same arguments "
                f"{count} times in one turn (the limit is {MAX_IDENTICAL_CALLS})."
            )
            self._fail(part, reason)
            return Stop(reason)
        if tool.human:
            if part.tool_name in tools.client and part.status_message != CLIENT_ANSWERS:
                part.status_message = CLIENT_ANSWERS  # the notebook has nothing to answer with
                return "asked"
            return "waiting"
        if part.approval is not None:  # decided (or asked) once: the rule is not asked again
            return Ready(part, tool, validated) if part.approval.status == "approved" else "waiting"
        try:
            gated = tool.needs_approval(validated)
        except Exception:  # a broken rule must not let a call through unapproved
            logger.exception("requires_approval rule of %s failed", tool.name)
            gated = True
        if not gated:
            return Ready(part, tool, validated)
        try:
            show_validated(part, validated)
        except Exception as exc:
            return self._fail(part, f"The arguments cannot be shown for approval: {exc}")
        if tool.name in self._always_allowed():
            part.approval = Approval(
                status="approved", reason="always allowed in this chat", decided_by="grant"
            )
            return Ready(part, tool, validated)
        part.approval = Approval(status="pending", note=tool.approval_note)
        return "asked"

    def answer_stopped_threads(self, message: Message, tools: Toolset) -> None:
        """Answer the calls whose sync function still runs as the run stops:
        a thread cannot be stopped, so their answer says it may still finish."""
        for part in message.tool_calls:
            if part.has_result or part.tool_call_id not in self.executing:
                continue
            tool = tools.get(part.tool_name)
            if tool is not None and runs_in_thread(tool.func):
                self._events.answer(part, {"error": stopped_in_background(tool.name)}, True)

    async def _execute(
        self, message: Message, call: Ready, tools: Toolset, is_current: Callable[[], bool]
    ) -> None:
        part, tool = call.part, call.tool
        trace: str | None = None
        value: Any = None
        report = CallReport(part, lambda: self._commit(message))
        token = report.bind()  # the tool's own progress and log lines go to its card
        try:
            store = self._data() if self._data is not None else None
            with using_data(store):  # references in a component's props resolve here
                if type(tool).invoke is Tool.invoke:  # a subclass's own invoke keeps its say
                    value = await tool.call(call.args)
                    result, is_error = self._model_json(value, store), False
                else:
                    result, is_error = await tool.invoke(call.args), False
        except asyncio.CancelledError as exc:
            if cancel_requested():  # the run is being stopped, not a tool's own doing
                if is_current():
                    self.answer_stopped_threads(message, tools)
                raise
            result, is_error = {"error": raised_text(tool.name, exc)}, True
        except GeneratorExit:
            raise
        except ToolError as exc:  # the tool's own error answer, read as it gave it
            result, is_error = exc.result, True
        except BaseException as exc:  # SystemExit / KeyboardInterrupt too: the model reads it
            result, is_error = {"error": raised_text(tool.name, exc)}, True
            trace = traceback_text(exc)
        finally:
            CallReport.unbind(token)
            self.executing.discard(part.tool_call_id)
        if not is_current() or part.has_result:
            return  # cancelled meanwhile: the call already has its cancelled answer
        part.value = value
        part.traceback = trace
        self._events.answer(part, result, is_error)
        self._commit(message)

    @staticmethod
    def _model_json(value: Any, store: DataStore | None) -> Any:
        """What the model reads of a result: objects that are not JSON are kept
        in the conversation's data store and read as summaries with a ``ref``."""
        return to_jsonable(value) if store is None else model_json(value, store)


MAX_TRACEBACK = 8_000
"""Characters of a failing tool's traceback kept for the user (its end)."""


def traceback_text(exc: BaseException) -> str:
    """The traceback the user may unfold under a failed call (the model reads
    only the error line: ``raised_text``)."""
    text = "".join(traceback.format_exception(exc))
    return text if len(text) <= MAX_TRACEBACK else "…" + text[-MAX_TRACEBACK:]


def show_validated(part: ToolCallPart, validated: BaseModel) -> None:
    """Store the validated arguments (JSON form) as the call's arguments, so
    the user decides on exactly what will run: the model's ``"false"`` is shown
    as ``false``, and defaults the function gets are shown too."""
    shown = validated.model_dump(mode="json")
    part.args = shown
    part.args_text = json.dumps(shown)
    part.record_parsed_args(ParsedArgs(part.args_text, shown))  # its parse is ``shown``


def cancel_requested() -> bool:
    """Whether the current task is being cancelled (a ``CancelledError`` a tool
    raises by itself, with no cancel requested, is the tool's error)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


_RAISED_NOTES = {
    SystemExit: "it tried to end the process (sys.exit, or argparse on bad arguments)",
    KeyboardInterrupt: "it was interrupted",
    asyncio.CancelledError: "the tool cancelled itself; the run was not cancelled",
}


def raised_text(tool_name: str, exc: BaseException) -> str:
    """The error the model reads when a tool raised ``exc``."""
    text = f"{tool_name} raised {type(exc).__name__}"
    detail = str(exc)
    if detail:
        text += f": {detail}"
    note = next((n for kind, n in _RAISED_NOTES.items() if isinstance(exc, kind)), None)
    return f"{text} ({note})" if note else text


def identical_calls_before(message: Message, part: ToolCallPart, args: dict[str, Any]) -> int:
    """How many earlier calls in ``message`` had ``part``'s tool and arguments."""
    key: str | None = None  # written only when an earlier call has the same tool
    count = 0
    for other in message.tool_calls:
        if other is part:
            break
        if other.tool_name == part.tool_name:
            if key is None:
                key = json.dumps(args, sort_keys=True, default=str)
            if json.dumps(other.args, sort_keys=True, default=str) == key:
                count += 1
    return count
