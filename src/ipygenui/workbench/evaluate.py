"""``evaluate``: which tool or component a model calls for each of a set of prompts.

Each prompt runs in its own headless :class:`~ipygenui.runtime.Runtime` with
the registry's tools and components, at most ``concurrency`` at a time. The
model sees exactly what a chat sends (system prompt, schemas with the
standard parameters), but nothing is executed: every tool is offered as a
stand-in that only the user could answer, so the run stops at the model's
first step with its calls unanswered and no approval is ever granted, and a
later step (after a call whose arguments failed) is answered empty. The
first call's arguments are validated against the real tool or component.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._internal.standard_params import split_standard_arguments
from ..messages import Message, Usage
from ..models.base import FinishDelta, Model, ModelDelta, ModelRequest
from ..models.select import resolve_model
from ..runtime import Runtime
from ..runtime.run import loop_or_none
from ..runtime.usage import load_prices, pricing_of, quote
from ..tools import Tool, ToolArgumentsError
from ._eval_result import NO_CALL, EvalRow, as_result, label_of
from ._schemas import registry_tools

__all__ = ["NO_CALL", "EvalCase", "evaluate", "evaluate_sync"]


@dataclass(frozen=True)
class EvalCase:
    prompt: str
    expected: str | None = None
    """The tool or component the prompt should call (``NO_CALL``: a text answer)."""
    has_expected: bool = False


def _case(item: Any) -> EvalCase:
    if isinstance(item, str):
        return EvalCase(item)
    if isinstance(item, Mapping):
        prompt, expected = item.get("prompt"), item.get("expected")
        has = "expected" in item
    elif isinstance(item, tuple | list) and len(item) == 2:
        prompt, expected = item
        has = True
    else:
        raise TypeError(f"a prompt is a str, a (prompt, expected) pair or a dict, got {item!r}")
    if not isinstance(prompt, str):
        raise TypeError(f"a prompt must be a str, got {prompt!r}")
    if expected is not None and not isinstance(expected, str):
        raise TypeError(f"expected must be a tool or component name or None, got {expected!r}")
    return EvalCase(prompt, label_of(expected) if has else None, has)


class _NotRun(Tool):
    """A tool's stand-in: the same name, schema and validation, answered by no one."""

    def __init__(self, tool: Tool) -> None:
        self.__dict__.update(tool.__dict__)
        self.func = None
        self.human = True
        self.requires_approval = False


class _FirstStepOnly:
    """``model``'s first step of a run; any later step ends at once with no text."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.name = model.name
        self.offline = getattr(model, "offline", False)
        self._steps = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelDelta]:
        self._steps += 1
        if self._steps > 1:
            yield FinishDelta("stop")
            return
        async for delta in self.model.stream(request):
            yield delta


def _first_call(message: Message, real: Mapping[str, Tool]) -> dict[str, Any]:
    """The first call's tool, kind and whether its arguments validate."""
    calls = message.tool_calls
    if not calls:
        return {"called": NO_CALL, "kind": "text", "valid": None, "error": None}
    part = calls[0]
    tool = real.get(part.tool_name)
    if tool is None:
        return {
            "called": part.tool_name,
            "kind": "unknown",
            "valid": False,
            "error": f"no tool named {part.tool_name!r}",
        }
    called = tool.component or tool.name
    kind = "component" if tool.component else "tool"
    parsed = part.parsed_args
    if parsed.error is not None or not isinstance(parsed.value, dict):
        error = f"the arguments are not a JSON object ({parsed.error or 'not an object'})"
        return {"called": called, "kind": kind, "valid": False, "error": error}
    args, _, _ = split_standard_arguments(parsed.value, tool.declared)
    try:
        tool.validate(args)
    except ToolArgumentsError as exc:
        return {"called": called, "kind": kind, "valid": False, "error": str(exc)}
    return {"called": called, "kind": kind, "valid": True, "error": None}


async def _run_case(
    case: EvalCase,
    model: Model,
    real: Mapping[str, Tool],
    instructions: str | None,
    limit: asyncio.Semaphore,
) -> EvalRow:
    async with limit:
        runtime = Runtime(
            model=_FirstStepOnly(model),
            tools=[_NotRun(t) for t in real.values()],
            instructions=instructions,
        )
        started = time.perf_counter()
        message = await runtime.send(case.prompt)
        seconds = time.perf_counter() - started
    usage = Usage.model_validate(message.metadata.get("usage") or {})
    await load_prices(model)
    priced = quote(usage, pricing_of(model), model)
    status = message.status
    model_error = (
        getattr(status, "error", None) if getattr(status, "reason", "") == "error" else None
    )
    found = _first_call(message, real)
    return EvalRow(
        prompt=case.prompt,
        expected=case.expected if case.has_expected else None,
        called=found["called"],
        kind=found["kind"] if model_error is None else "error",
        valid=found["valid"],
        error=model_error or found["error"],
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        estimated=usage.estimated,
        cost_usd=priced.usd,
        seconds=seconds,
        text=message.text[:200],
    )


async def evaluate(
    prompts: Iterable[Any],
    *,
    components: Sequence[Any] = (),
    tools: Sequence[Any] = (),
    model: Model | str | None = None,
    concurrency: int = 4,
    instructions: str | None = None,
) -> Any:
    """Run each prompt once and report what the model called.

    ``prompts``: strings, or ``(prompt, expected)`` pairs / ``{"prompt",
    "expected"}`` dicts, where ``expected`` names a tool or a component
    (``"Chart"`` or ``"show_component_Chart"``) or is None for a text answer.
    ``model``: a model or a ``"provider:model"`` name (None: the one a chat
    would pick, the offline demo without a key). At most ``concurrency``
    prompts run at once.

    Returns a DataFrame (a list of rows without pandas) with a row per
    prompt: ``prompt``, ``expected``, ``called`` (the first tool or component
    called, ``"(text)"`` for none), ``kind``, ``valid`` (its arguments
    validated), ``error``, tokens, ``cost_usd``, ``seconds`` and ``correct``;
    ``.accuracy`` and ``.confusion()`` on it compare ``called`` with
    ``expected``.
    """
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive int, got {concurrency!r}")
    cases = [_case(item) for item in prompts]
    chosen = resolve_model(model)
    real = {t.name: t for t in registry_tools(components, tools)}
    limit = asyncio.Semaphore(concurrency)
    try:
        rows = await asyncio.gather(
            *(_run_case(case, chosen, real, instructions, limit) for case in cases)
        )
    finally:
        if not isinstance(model, Model):  # made here from a name: its clients end here
            await _close(chosen)
    return as_result(list(rows), expected=any(c.has_expected for c in cases))


async def _close(model: Model) -> None:
    close = getattr(model, "aclose", None)
    if callable(close):
        result = close()
        if inspect.isawaitable(result):
            await result


def evaluate_sync(prompts: Iterable[Any], **kwargs: Any) -> Any:
    """``evaluate`` on a private event loop, for plain scripts (not a notebook
    cell, where ``await gu.evaluate(...)``)."""
    if loop_or_none() is not None:
        raise RuntimeError(
            "evaluate_sync() cannot run while an event loop runs in this thread (a notebook "
            "cell or async code): use `await gu.evaluate(...)` there"
        )
    return asyncio.run(evaluate(prompts, **kwargs))
