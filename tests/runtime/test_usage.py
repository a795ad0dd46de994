"""Usage and cost: every token count recorded per step and per reply, each
reply priced by genai-prices when its model is known (never a local server
as OpenAI's), how full the context window is, and ``usage()`` rows."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import genai_prices
import openai
import pytest

import ipygenui as gu
from ipygenui.messages import Complete, Usage
from ipygenui.models.base import UsageDelta
from ipygenui.models.openai import OpenAIModel, _StreamState
from ipygenui.persistence import load_thread, save_thread
from ipygenui.runtime import usage as _usage
from ipygenui.testing import ScriptedModel, ScriptedReply
from openai_helpers import ModelFactory, collect
from openai_server import OpenAIServer, Reply
from runtime_helpers import call

ALL: dict[str, Any] = {
    "input_tokens": 1200,
    "output_tokens": 300,
    "reasoning_tokens": 120,
    "cache_read_tokens": 1000,
    "cache_write_tokens": 0,
}


def _priced(spec: str, replies: list[Any]) -> ScriptedModel:
    model = ScriptedModel(replies, name=spec.partition(":")[2])
    model.spec = spec  # type: ignore[attr-defined]
    return model


def _price(counts: dict[str, int], model_ref: str, provider_id: str) -> float:
    usage = genai_prices.Usage(
        input_tokens=counts["input_tokens"],
        output_tokens=counts["output_tokens"],
        cache_read_tokens=counts["cache_read_tokens"],
        cache_write_tokens=counts["cache_write_tokens"],
    )
    return float(genai_prices.calc_price(usage, model_ref, provider_id=provider_id).total_price)


# --- messages.Usage -------------------------------------------------------------


def test_usage_adds_every_count_and_reads_old_two_count_files(tmp_path: Path) -> None:
    assert Usage(**ALL) + Usage(**ALL) == Usage(**{k: 2 * v for k, v in ALL.items()})
    rt = gu.Runtime(model=ScriptedModel(["ok"]))
    rt.run_sync("hi")
    path = tmp_path / "old.json"
    save_thread(rt.thread, path)
    data = json.loads(path.read_text())
    # a file written before the reasoning and cache counts: two counts only
    for message in data["thread"]["messages"]:
        if message["role"] == "assistant":
            message["metadata"]["usage"] = {"input_tokens": 7, "output_tokens": 5}
    path.write_text(json.dumps(data))
    thread = load_thread(path)
    (row,) = _usage.usage_rows(thread.messages)
    assert (row["input_tokens"], row["output_tokens"], row["reasoning_tokens"]) == (7, 5, 0)
    assert row["cost_usd"] is None


# --- the run loop records per step and per reply ---------------------------------


def test_each_step_and_the_reply_record_all_five_counts_and_the_model() -> None:
    step1 = dict(ALL, cache_write_tokens=50)
    step2: dict[str, Any] = {"input_tokens": 1600, "output_tokens": 40, "cache_read_tokens": 1200}
    model = _priced(
        "anthropic:claude-sonnet-4-5",
        [
            ScriptedReply(tool_calls=[call("add", {"a": 1, "b": 2})], usage=step1),
            ScriptedReply(text="3", usage=UsageDelta(**step2)),
        ],
    )

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    rt = gu.Runtime(model=model, tools=[add])
    message = rt.run_sync("1+2?")
    steps = message.metadata["steps"]
    assert steps[0]["usage"] == step1
    assert steps[1]["usage"] == Usage(**step2).model_dump()
    assert message.metadata["usage"] == (Usage(**step1) + Usage(**step2)).model_dump()
    assert message.metadata["model"] == "claude-sonnet-4-5"
    assert message.metadata["model_spec"] == "anthropic:claude-sonnet-4-5"
    expected = _price(step1, "claude-sonnet-4-5", "anthropic") + _price(
        Usage(**step2).model_dump(), "claude-sonnet-4-5", "anthropic"
    )
    assert message.metadata["cost"]["usd"] == pytest.approx(expected)
    assert message.metadata["cost"]["priced_as"] == "anthropic:claude-sonnet-4-5"
    # how full the context is: the last request's input tokens, of the model's window
    assert message.metadata["context"] == {"tokens": 1600, "window": 200_000}


def test_the_thread_cost_so_far_adds_the_earlier_replies() -> None:
    counts = {"input_tokens": 1000, "output_tokens": 500}
    model = _priced("openai:gpt-4o-mini", [ScriptedReply(text="a", usage=(1000, 500))] * 2)
    rt = gu.Runtime(model=model)
    first = rt.run_sync("one")
    second = rt.run_sync("two")
    counts |= {"cache_read_tokens": 0, "cache_write_tokens": 0}
    one = _price(counts, "gpt-4o-mini", "openai")
    assert first.metadata["cost"] == {
        "usd": pytest.approx(one),
        "thread_usd": pytest.approx(one),
        "priced_as": "openai:gpt-4o-mini",
    }
    assert second.metadata["cost"]["thread_usd"] == pytest.approx(2 * one)
    assert second.metadata["context"]["window"] == 128_000


@pytest.mark.parametrize(
    "spec", [None, "openai:no-such-model-anywhere", "ollama:llama3.1:8b", "demo"]
)
def test_an_unknown_model_has_tokens_and_no_cost(spec: str | None) -> None:
    model = ScriptedModel([ScriptedReply(text="ok", usage=(10, 2))])
    if spec is not None:
        model.spec = spec  # type: ignore[attr-defined]
    rt = gu.Runtime(model=model)
    message = rt.run_sync("hi")
    assert message.metadata["usage"]["input_tokens"] == 10
    assert "cost" not in message.metadata
    assert message.metadata["context"] == {"tokens": 10, "window": None}
    (row,) = rt.usage()
    assert row["cost_usd"] is None and row["input_tokens"] == 10


def test_without_genai_prices_a_reply_has_tokens_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # import raises ImportError
    rt = gu.Runtime(model=_priced("openai:gpt-4o-mini", [ScriptedReply(text="ok", usage=(10, 2))]))
    message = rt.run_sync("hi")
    assert message.status == Complete(reason="stop")
    assert message.metadata["usage"]["output_tokens"] == 2
    assert "cost" not in message.metadata


def test_the_price_data_loads_once_and_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []
    load = _usage._load_prices

    def recorded() -> None:
        threads.append(threading.current_thread())
        load()

    monkeypatch.setattr(_usage, "_load_prices", recorded)
    monkeypatch.setattr(_usage, "_prices_loaded", False)
    model = _priced("openai:gpt-4o-mini", [ScriptedReply(text="ok", usage=(10, 2))] * 2)
    rt = gu.Runtime(model=model)
    assert "cost" in rt.run_sync("one").metadata
    rt.run_sync("two")
    assert len(threads) == 1 and threads[0] is not threading.main_thread()


def test_a_models_own_context_window_is_used() -> None:
    model = ScriptedModel([ScriptedReply(text="ok", usage=(2048, 2))])
    model.context_window = 8192  # type: ignore[attr-defined]
    message = gu.Runtime(model=model).run_sync("hi")
    assert message.metadata["context"] == {"tokens": 2048, "window": 8192}


def test_a_pydantic_ai_profiles_context_window_is_used() -> None:
    from pydantic_ai.models.test import TestModel

    model = ScriptedModel([ScriptedReply(text="ok", usage=(4000, 2))])
    # a ProviderModel streams through a pydantic-ai model: its profile knows the window
    model.pydantic_model = TestModel(profile={"context_window": 32_000})  # type: ignore[attr-defined]
    message = gu.Runtime(model=model).run_sync("hi")
    assert message.metadata["context"] == {"tokens": 4000, "window": 32_000}


# --- where a model is served decides its price -------------------------------------


def test_a_local_openai_server_is_not_priced_as_openai() -> None:
    local = OpenAIModel("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert _usage.quote(Usage(**ALL), _usage.pricing_of(local), local).usd is None
    hosted = OpenAIModel("gpt-4o-mini", api_key="k")  # api.openai.com
    priced = _usage.quote(Usage(**ALL), _usage.pricing_of(hosted), hosted)
    assert priced.usd == pytest.approx(_price(ALL, "gpt-4o-mini", "openai"))
    assert (priced.priced_as, priced.context_window) == ("openai:gpt-4o-mini", 128_000)
    deepseek = OpenAIModel("deepseek-chat", base_url="https://api.deepseek.com", api_key="k")
    assert _usage.quote(Usage(**ALL), _usage.pricing_of(deepseek)).priced_as == (
        "deepseek:deepseek-chat"
    )


class _Served:
    """A model that says where it is served, as ProviderModel's ``base_url`` does."""

    name = "claude-sonnet-4-5"
    offline = False
    spec = "anthropic:claude-sonnet-4-5"

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


@pytest.mark.parametrize(
    ("base_url", "priced_as"),
    [
        ("https://api.anthropic.com", "anthropic:claude-sonnet-4-5"),
        ("anthropic", "anthropic:claude-sonnet-4-5"),  # no URL: the spec says
        ("http://127.0.0.1:8080", None),  # a local server speaking Anthropic's API
    ],
)
def test_a_model_is_priced_where_it_is_served(base_url: str, priced_as: str | None) -> None:
    model = _Served(base_url)
    assert _usage.quote(Usage(**ALL), _usage.pricing_of(model)).priced_as == priced_as


def test_a_price_ref_prices_a_model_served_elsewhere_or_not_at_all() -> None:
    local = OpenAIModel("my-finetune", base_url="http://127.0.0.1:9/v1", api_key="k")
    local.price_ref = "openai:gpt-4o-mini"  # type: ignore[attr-defined]
    assert _usage.quote(Usage(**ALL), _usage.pricing_of(local)).usd == pytest.approx(
        _price(ALL, "gpt-4o-mini", "openai")
    )
    hosted = OpenAIModel("gpt-4o-mini", api_key="k")
    hosted.price_ref = False  # type: ignore[attr-defined]
    assert _usage.pricing_of(hosted) is None


# --- OpenAI usage parsing, raw and typed -------------------------------------------


def _usage_chunk(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [],
        "usage": usage,
    }


OPENAI_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 300,
    "total_tokens": 1500,
    "prompt_tokens_details": {"cached_tokens": 1000, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 120, "audio_tokens": 0},
}
DEEPSEEK_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 300,
    "total_tokens": 1500,
    "prompt_cache_hit_tokens": 1000,
    "prompt_cache_miss_tokens": 200,
    "completion_tokens_details": {"reasoning_tokens": 120},
}


@pytest.mark.parametrize("usage", [OPENAI_USAGE, DEEPSEEK_USAGE], ids=["openai", "deepseek"])
@pytest.mark.parametrize("typed", [False, True])
def test_openai_usage_details_are_read(usage: dict[str, Any], typed: bool) -> None:
    chunk = _usage_chunk(usage)
    if typed:  # the typed path reads the SDK's chunk as a dict
        chunk = openai.types.chat.ChatCompletionChunk.model_validate(chunk).to_dict()
    (delta,) = list(_StreamState().deltas(chunk))
    assert delta == UsageDelta(**ALL)


CORPUS = Path(__file__).parents[1] / "openai_corpus"


@pytest.mark.parametrize("typed", [False, True])
async def test_a_recorded_deepseek_stream_gives_its_reasoning_and_cache_counts(
    typed: bool, make_model: ModelFactory, openai_server: OpenAIServer
) -> None:
    # DeepSeek's reasoner, as recorded in the corpus (its source: the .json beside it)
    body = (CORPUS / "deepseek_reasoning_content_tool_call.sse").read_bytes()
    openai_server.script(Reply(sse_body=body))
    deltas = await collect(make_model(typed_stream=typed, max_retries=0))
    usages = [d for d in deltas if isinstance(d, UsageDelta)]
    assert usages == [UsageDelta(374, 61, reasoning_tokens=17, cache_read_tokens=256)]


async def test_a_reply_from_a_local_server_has_tokens_and_no_cost_unless_priced_as(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(Reply.text_reply("one"), Reply.text_reply("two"))
    client = openai.AsyncOpenAI(base_url=openai_server.base_url, api_key="k", max_retries=0)
    model = OpenAIModel("gpt-4o-mini", client=client)  # named like OpenAI's, served locally
    rt = gu.Runtime(model=model)
    try:
        first = await rt.send("a")
        assert first.metadata["usage"]["input_tokens"] == 11  # the server's (11, 22)
        assert "cost" not in first.metadata
        assert first.metadata["context"] == {"tokens": 11, "window": None}
        model.price_ref = "openai:gpt-4o-mini"  # type: ignore[attr-defined]
        second = await rt.send("b")
        assert second.metadata["cost"]["priced_as"] == "openai:gpt-4o-mini"
        counts = {"input_tokens": 11, "output_tokens": 22}
        counts |= {"cache_read_tokens": 0, "cache_write_tokens": 0}
        assert second.metadata["cost"]["usd"] == pytest.approx(
            _price(counts, "gpt-4o-mini", "openai")
        )
        assert [r["cost_usd"] is None for r in rt.usage()] == [True, False]
    finally:
        await client.close()


def test_odd_usage_fields_count_as_zero() -> None:
    odd: dict[str, Any] = {"prompt_tokens": 5, "completion_tokens": None}
    odd["prompt_tokens_details"] = None
    odd |= {"completion_tokens_details": {"reasoning_tokens": "many"}}
    (delta,) = list(_StreamState().deltas(_usage_chunk(odd)))
    assert delta == UsageDelta(input_tokens=5)


# --- usage() rows -------------------------------------------------------------------


def test_usage_rows_and_total_for_a_dataframe() -> None:
    model = _priced("openai:gpt-4o-mini", [ScriptedReply(text="a", usage=ALL)] * 2)
    chat_like = gu.Runtime(model=model)
    chat_like.run_sync("one")
    chat_like.run_sync("two")
    rows = chat_like.usage()
    assert len(rows) == 2
    first = rows[0]
    assert first["message_id"] == chat_like.thread.messages[1].id
    assert (first["model"], first["spec"]) == ("gpt-4o-mini", "openai:gpt-4o-mini")
    assert {k: first[k] for k in ALL} == ALL  # type: ignore[literal-required]
    assert first["cost_usd"] == pytest.approx(_price(ALL, "gpt-4o-mini", "openai"))
    assert (first["context_tokens"], first["context_window"]) == (1200, 128_000)
    assert first["seconds"] is not None and first["seconds"] >= 0
    total = chat_like.usage_total()
    assert total["replies"] == 2 and total["input_tokens"] == 2400
    assert first["cost_usd"] is not None
    assert total["cost_usd"] == pytest.approx(2 * first["cost_usd"])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(rows)
    assert list(frame["input_tokens"]) == [1200, 1200]


@gu.tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Deletes a file."""
    return f"deleted {path}"


async def test_a_reply_s_model_time_leaves_out_the_user_s_wait_for_approval() -> None:
    model = ScriptedModel([call("delete_file", {"path": "a.txt"}, id="d1"), "Deleted."])
    rt = gu.Runtime(model=model, tools=[delete_file])
    waiting = await rt.send("delete a.txt")
    assert rt.phase == "waiting"
    await asyncio.sleep(0.5)  # the user reads the card before approving
    run = rt.approve("d1")
    assert run is not None
    reply = await run
    steps = reply.metadata["steps"]
    assert reply is waiting and len(steps) == 2
    spent = sum(s["ended_at"] - s["started_at"] for s in steps)
    assert reply.metadata["model_seconds"] == pytest.approx(spent, abs=0.001)
    (row,) = rt.usage()
    assert row["model_seconds"] == pytest.approx(spent)
    assert row["seconds"] is not None and row["seconds"] - row["model_seconds"] >= 0.45
    assert rt.usage_total()["model_seconds"] == row["model_seconds"]


def test_a_step_stopped_mid_stream_counts_to_the_reply_s_end() -> None:
    reply = gu.Message(role="assistant")
    reply.metadata = {"ended_at": 20.0, "steps": [{"started_at": 10.0, "ended_at": 12.0}]}
    reply.metadata["steps"].append({"started_at": 15.0})  # Stop came before its end
    assert _usage.model_seconds(reply) == 7.0
    reply.metadata["steps"] = [{"started_at": "x"}, "odd"]
    assert _usage.model_seconds(reply) is None


def test_chat_usage_is_the_runtimes() -> None:
    chat = gu.Chat(model=_priced("openai:gpt-4o-mini", [ScriptedReply(text="a", usage=(9, 1))]))
    try:
        chat.runtime.run_sync("hi")
        assert chat.usage() == chat.runtime.usage()
        assert chat.usage()[0]["input_tokens"] == 9
        assert chat.usage_total()["output_tokens"] == 1
    finally:
        chat.close()


# --- the offline demo's estimate ----------------------------------------------------


def test_the_demo_estimates_its_tokens_and_says_so(tmp_path: Path) -> None:
    from ipygenui.models.demo import DemoModel

    rt = gu.Runtime(model=DemoModel(delay=0))
    message = rt.run_sync("What is ipygenui?")
    text = message.text
    usage = message.metadata["usage"]
    assert usage["estimated"] is True
    assert usage["output_tokens"] == -(-len(text) // 4)  # ~4 characters a token, rounded up
    # the request's text: the system prompt and the question, each with its overhead
    assert usage["input_tokens"] > -(-len("What is ipygenui?") // 4) + 8
    assert "cost" not in message.metadata  # never priced on its own
    (row,) = rt.usage()
    assert row["estimated"] is True and row["cost_usd"] is None and row["priced_as"] is None
    assert rt.usage_total()["estimated"] is True
    # saved and loaded, the mark stays; a provider's usage has none in its file
    path = tmp_path / "demo.json"
    save_thread(rt.thread, path)
    (loaded,) = _usage.usage_rows(load_thread(path).messages)
    assert loaded["estimated"] is True
    assert "estimated" not in Usage(input_tokens=1).model_dump()


def test_a_demo_priced_as_a_real_model_shows_what_it_would_cost_there() -> None:
    demo = gu.model("demo", price_ref="openai:gpt-4o-mini")
    rt = gu.Runtime(model=demo)
    message = rt.run_sync("What can you do?")
    usage = message.metadata["usage"]
    counts = {k: usage[k] for k in ("input_tokens", "output_tokens")}
    counts |= {"cache_read_tokens": 0, "cache_write_tokens": 0}
    assert message.metadata["cost"]["usd"] == pytest.approx(_price(counts, "gpt-4o-mini", "openai"))
    (row,) = rt.usage()
    assert (row["priced_as"], row["estimated"]) == ("openai:gpt-4o-mini", True)
