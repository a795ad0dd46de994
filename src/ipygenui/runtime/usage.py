"""What each reply used and cost: tokens, a price in USD, how full the context is.

The run loop records a step's tokens (``record_step``) in the reply's
metadata: ``usage`` (the reply's :class:`~ipygenui.messages.Usage`),
``cost`` (``{"usd", "thread_usd", "priced_as"}``, when the model is priced)
and ``context`` (``{"tokens", "window"}``: the last request's input tokens and
the model's context window, ``None`` when unknown). The widget's footer shows
them as they are; ``usage_rows`` turns them into rows for a DataFrame.

A reply's time is the model's (``model_seconds``: its steps, from request
to the stream's end, recorded as ``metadata["model_seconds"]`` when a run
ends), apart from its wall time from start to end (``seconds``), which also
counts the tools and what the user took to approve, fill in a form or
answer a server's request.

Prices come from ``genai-prices`` (the ``ipygenui[usage]`` extra), imported on
the first priced step; without it, or for a model it does not know, a reply
has tokens and no cost. A model is priced as its ``spec`` says
(``"anthropic:claude-sonnet-4-5"``), except where it is served matters: a model
with a base URL (our ``OpenAIModel``) is priced by the provider that URL
belongs to, so a local ``openai:`` server is not priced as OpenAI. A model's
own ``price_ref`` attribute (a ``"provider:model"`` name, or ``False``) says
what to price it as instead, and its ``context_window`` attribute (an int) or
its pydantic-ai profile's ``context_window`` gives the window before the price
data does.

A model that cannot know its tokens (the offline demo) may report an estimate
(``UsageDelta.estimated``): the reply's usage is then marked ``estimated``, the
footer shows "≈" and ``usage()`` rows say so. The demo has no price unless its
``price_ref`` names one: then its cost is what the conversation would cost
there, labelled with that name.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

from .._internal.worker_threads import can_start_threads
from ..messages import Message, Usage, bounded_token_count

logger = logging.getLogger("ipygenui")


@dataclass(frozen=True, slots=True)
class Pricing:
    """What a model is priced as: a model name and where it is served."""

    model_ref: str
    provider_id: str | None = None
    provider_api_url: str | None = None

    @property
    def name(self) -> str:
        return f"{self.provider_id or self.provider_api_url}:{self.model_ref}"


@dataclass(frozen=True, slots=True)
class Quote:
    """A step's price (None when unknown) and its model's context window."""

    usd: float | None
    context_window: int | None
    priced_as: str | None


def pricing_of(model: Any) -> Pricing | None:
    """How ``model`` is priced, or None (a model with no spec, or ``price_ref=False``)."""
    ref = getattr(model, "price_ref", None)
    if ref is False:
        return None
    if isinstance(ref, str) and ref:
        provider, _, name = ref.partition(":")
        return Pricing(name, provider_id=provider) if name else Pricing(provider)
    spec = getattr(model, "spec", None)
    if not isinstance(spec, str):
        return None
    provider, sep, name = spec.partition(":")
    if not sep or not name:
        return None  # "demo", or a name with no provider
    url = _base_url(model)
    if url is not None:  # the provider is whoever serves that URL (None: a local server)
        return Pricing(name, provider_api_url=url)
    return Pricing(name, provider_id=provider)


def _base_url(model: Any) -> str | None:
    """The URL ``model`` sends its requests to, when it says."""
    openai_module = sys.modules.get("ipygenui.models.openai")  # loaded if model is one
    if openai_module is not None and isinstance(model, openai_module.OpenAIModel):
        try:
            return str(model.client.base_url)
        except Exception:  # no client can be made: then no URL to price by
            logger.debug("no base URL for %r", model, exc_info=True)
            return ""  # served somewhere unknown: matches no provider, so not priced
    url = getattr(model, "base_url", None)  # ProviderModel's, when it has a client
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None


async def load_prices(model: Any) -> None:
    """Load genai-prices and its price data in a thread, once, before the first
    step of a priced model: the import takes a moment the event loop must not wait.

    A browser kernel (Pyodide) cannot start a thread: there it loads on the loop."""
    global _prices_loaded
    if _prices_loaded or model is None or pricing_of(model) is None:
        return
    if can_start_threads():
        await asyncio.to_thread(_load_prices)
    else:
        _load_prices()
    _prices_loaded = True


_prices_loaded = False


def _load_prices() -> None:
    try:
        from genai_prices import data_snapshot

        data_snapshot.get_snapshot()
    except Exception:  # not installed (tokens only), or its data would not load
        logger.debug("genai-prices did not load", exc_info=True)


def quote(usage: Usage, pricing: Pricing | None, model: Any = None) -> Quote:
    """The price of ``usage`` under ``pricing``; never raises (unknown: ``usd=None``)."""
    window = _own_window(model)
    if pricing is None or not pricing.model_ref:
        return Quote(None, window, None)
    try:
        import genai_prices
    except ImportError:  # the extra is not installed: tokens only
        return Quote(None, window, None)
    counts = genai_prices.Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )
    try:
        if pricing.provider_api_url is not None:
            calc = genai_prices.calc_price(
                counts, pricing.model_ref, provider_api_url=pricing.provider_api_url
            )
        else:
            calc = genai_prices.calc_price(
                counts, pricing.model_ref, provider_id=pricing.provider_id
            )
    except Exception:  # unknown provider or model (LookupError), odd price data
        logger.debug("no price for %s", pricing.name, exc_info=True)
        return Quote(None, window, None)
    known = calc.model.context_window
    return Quote(
        float(calc.total_price),
        window or (known if isinstance(known, int) and known > 0 else None),
        f"{calc.provider.id}:{calc.model.id}",
    )


def _own_window(model: Any) -> int | None:
    """The window a model says it has: its ``context_window``, or its pydantic-ai
    profile's (``ProviderModel``; a profile the user set for a local model)."""
    window = getattr(model, "context_window", None)
    if window is None and model is not None:
        try:
            profile = getattr(getattr(model, "pydantic_model", None), "profile", None)
            window = profile.get("context_window") if isinstance(profile, dict) else None
        except Exception:  # no pydantic-ai model can be made here: no window from it
            logger.debug("no profile for %r", model, exc_info=True)
    return (
        window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None
    )


def record_step(
    message: Message,
    step: dict[str, Any],
    usage: Usage,
    model: Any,
    earlier: Iterable[Message],
) -> None:
    """Record one model step's ``usage`` on its ``step`` and the reply.

    ``model`` wrote the step (None: an agent's, which is not priced);
    ``earlier`` are the thread's messages before the reply, whose costs
    make the thread's cost so far.
    """
    step["usage"] = usage.model_dump()
    meta = message.metadata
    total = Usage.model_validate(meta.get("usage") or {}) + usage
    meta["usage"] = total.model_dump()
    priced = quote(usage, pricing_of(model), model) if model is not None else None
    if priced is not None and priced.usd is not None and math.isfinite(priced.usd):
        step["cost_usd"] = priced.usd
    costs = [s["cost_usd"] for s in meta.get("steps") or () if "cost_usd" in s]
    if costs:
        reply = sum(costs)
        before = sum(c for m in earlier if (c := cost_of(m)) is not None)
        meta["cost"] = {
            "usd": reply,
            "thread_usd": before + reply,
            "priced_as": priced and priced.priced_as,
        }
    window = priced.context_window if priced is not None else None
    meta["context"] = {"tokens": usage.input_tokens, "window": window}


def model_seconds(message: Message) -> float | None:
    """The time a reply's model steps took (each from its request to its
    stream's end; a step stopped mid-stream, to the reply's end), summed: the
    reply's model time, without the tools' runs and the user's waits between
    and during them. None for a reply with no timed step."""
    steps = message.metadata.get("steps")
    steps = [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []
    total: float | None = None
    for i, step in enumerate(steps):
        start, end = _number(step.get("started_at")), _number(step.get("ended_at"))
        if end is None and i == len(steps) - 1:  # Stop ended it before it recorded its end
            end = _number(message.metadata.get("ended_at"))
        if start is not None and end is not None:
            total = (total or 0.0) + max(0.0, end - start)
    return total


def cost_of(message: Message) -> float | None:
    """A reply's recorded cost in USD, or None."""
    cost = message.metadata.get("cost")
    return _number(cost.get("usd")) if isinstance(cost, dict) else None


class UsageRow(TypedDict):
    """One reply's row of ``usage()``."""

    message_id: str
    model: str | None
    """The model's name (as the header shows it)."""
    spec: str | None
    """Its ``"provider:model"`` name, when it has one."""
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    """None: not priced (an unknown model, a local server, no ``genai-prices``)."""
    priced_as: str | None
    """The price list's ``"provider:model"`` the cost is for (a ``price_ref``'s)."""
    estimated: bool
    """The tokens (and so the cost) are the model's estimate: the offline demo's."""
    context_tokens: int | None
    """The last request's input tokens: how much of the window the reply used."""
    context_window: int | None
    seconds: float | None
    """From the reply's start to its end: tools and the user's waits (approvals,
    forms, a server's questions) included."""
    model_seconds: float | None
    """The model's own time (``model_seconds``)."""


class UsageTotal(TypedDict):
    """The thread's total of ``usage(total=True)``."""

    replies: int
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    """The sum of the priced replies' costs; None when none was priced."""
    estimated: bool
    """Some replies' tokens are estimates (the offline demo model's)."""
    seconds: float
    model_seconds: float


def usage_rows(messages: Iterable[Message]) -> list[UsageRow]:
    """One row per assistant reply of ``messages`` (``pd.DataFrame(rows)`` takes them)."""
    rows: list[UsageRow] = []
    for message in messages:
        if message.role != "assistant":
            continue
        meta = message.metadata
        try:
            usage = Usage.model_validate(meta.get("usage") or {})
        except ValueError:  # a thread file's odd value: the reply's tokens are unknown
            usage = Usage()
        context = meta.get("context")
        if not isinstance(context, dict):
            context = {}
        cost = meta.get("cost")
        started, ended = _number(meta.get("started_at")), _number(meta.get("ended_at"))
        rows.append(
            UsageRow(
                message_id=message.id,
                model=_str_or_none(meta.get("model")),
                spec=_str_or_none(meta.get("model_spec")),
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                reasoning_tokens=usage.reasoning_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                cost_usd=cost_of(message),
                priced_as=_str_or_none(cost.get("priced_as")) if isinstance(cost, dict) else None,
                estimated=usage.estimated,
                context_tokens=_count_or_none(context.get("tokens")),
                context_window=_count_or_none(context.get("window")) or None,
                seconds=max(0.0, ended - started)
                if started is not None and ended is not None
                else None,
                model_seconds=model_seconds(message),
            )
        )
    return rows


def usage_total(rows: list[UsageRow]) -> UsageTotal:
    """The sums of ``rows``."""
    costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
    return UsageTotal(
        replies=len(rows),
        input_tokens=sum(r["input_tokens"] for r in rows),
        output_tokens=sum(r["output_tokens"] for r in rows),
        reasoning_tokens=sum(r["reasoning_tokens"] for r in rows),
        cache_read_tokens=sum(r["cache_read_tokens"] for r in rows),
        cache_write_tokens=sum(r["cache_write_tokens"] for r in rows),
        cost_usd=sum(costs) if costs else None,
        estimated=any(r["estimated"] for r in rows),
        seconds=sum(r["seconds"] or 0.0 for r in rows),
        model_seconds=sum(r["model_seconds"] or 0.0 for r in rows),
    )


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: Any) -> float | None:
    """A finite number from the metadata (a thread file's ``10**400``, NaN or
    ``Infinity``: None), so a row stays plain JSON."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _count_or_none(value: Any) -> int | None:
    """A token count from the metadata, bounded as ``Usage``'s are (a huge
    one a thread file keeps as its digits too)."""
    count = bounded_token_count(value)
    return count if isinstance(count, int) and not isinstance(count, bool) else None
