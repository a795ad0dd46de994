"""The tool phase of a roundtrip: every unanswered call of a message, checked and run.

Each call is checked in order (known tool, JSON object arguments that
validate, the identical-call limit), then gated (human tools and calls that
need approval wait for the user), and the calls that may run now run in
parallel: async tools on the event loop, sync tools in worker threads.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from .messages import Approval, Message, ToolCallPart
from .run_events import RunEvents
from .standard_params import split_standard_arguments
from .tools import Tool, ToolArgumentsError

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
"""Waiting for the user; approval just requested; answered with an error."""


class ToolRunner:
    """Checks, gates and runs the tool calls of the runtime's messages.

    ``tools`` are the runtime's own; ``dynamic`` the step's extra tools (the
    components' ``update_component_<id>``); ``executing`` the ids of calls
    running now (a user may not answer those); ``trusted`` the tools the user
    approved for the whole chat.
    """

    def __init__(
        self,
        tools: Mapping[str, Tool],
        events: RunEvents,
        save: Callable[[], None],
        trusted: Callable[[], Collection[str]],
    ) -> None:
        self.tools = tools
        self.dynamic: dict[str, Tool] = {}
        self.executing: set[str] = set()
        self._events = events
        self._save = save
        self._trusted = trusted

    async def run(self, message: Message, is_current: Callable[[], bool]) -> str | None:
        """Run every ready call (again and again while decisions arrive).

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
                outcome = self._prepare(message, part)
                if isinstance(outcome, Ready):
                    ready.append(outcome)
                elif isinstance(outcome, Stop):
                    stop = stop or outcome.reason
                    changed = True
                elif outcome in ("answered", "asked"):
                    changed = True
            if changed:
                self._events.replace(message)
                self._save()
            if not ready:
                return stop
            for call in ready:
                self.executing.add(call.part.tool_call_id)
            self._events.set_phase("running-tool", ", ".join(call.tool.name for call in ready))
            await asyncio.gather(*(self._execute(message, call, is_current) for call in ready))

    def _fail(self, part: ToolCallPart, text: str) -> Held:
        self._events.answer(part, {"error": text}, True)
        return "answered"

    def _prepare(self, message: Message, part: ToolCallPart) -> Ready | Stop | Held:
        """Decide what happens to an unanswered call."""
        tool = self.tools.get(part.tool_name) or self.dynamic.get(part.tool_name)
        if tool is None:
            names = ", ".join(sorted(self.tools)) or "none"
            return self._fail(part, f"Unknown tool {part.tool_name!r}. Available tools: {names}.")
        text = part.args_text.strip()
        try:
            raw = json.loads(text) if text else {}
        except ValueError as exc:
            return self._fail(part, f"The arguments are not valid JSON ({exc}): {text[:200]!r}")
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
            return "waiting"
        try:
            gated = tool.needs_approval(args)
        except Exception:  # a broken rule must not let a call through unapproved
            logger.exception("requires_approval rule of %s failed", tool.name)
            gated = True
        if gated:
            if tool.name in self._trusted() and part.approval is None:
                part.approval = Approval(status="approved", reason="always allowed in this chat")
            elif part.approval is None:
                part.approval = Approval(status="pending")
                return "asked"
            if part.approval.status != "approved":
                return "waiting"
        return Ready(part, tool, validated)

    async def _execute(self, message: Message, call: Ready, is_current: Callable[[], bool]) -> None:
        part, tool = call.part, call.tool
        try:
            result, is_error = await tool.invoke(call.args), False
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the model reads the error and may try again
            result, is_error = {"error": f"{tool.name} raised {type(exc).__name__}: {exc}"}, True
        finally:
            self.executing.discard(part.tool_call_id)
        if not is_current() or part.has_result:
            return  # cancelled meanwhile: the call already has its cancelled answer
        self._events.answer(part, result, is_error)
        self._events.replace(message)
        self._save()


def identical_calls_before(message: Message, part: ToolCallPart, args: dict[str, Any]) -> int:
    """How many earlier calls in ``message`` had ``part``'s tool and arguments."""
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
