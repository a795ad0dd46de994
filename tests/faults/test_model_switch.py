"""Faults of switching models: a forged picker choice, a listed model that
cannot be made, a thread file's saved choice that lies, the clients of models
switched away from.

A widget message is untrusted: only an id of the chat's ``models=`` list is
accepted, and nothing is made for any other. A listed model that fails to
build says why in the chat and the model in use stays.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from comm_helpers import click, customs
from ipygenui.models.demo import DemoModel
from ipygenui.models.openai import OpenAIModel
from ipygenui.runtime._model_choices import SAVED_CHOICE, ModelChoiceError
from ipygenui.testing import ScriptedModel


async def choose(chat: gu.Chat, content: Any) -> None:
    click(chat, content)
    await asyncio.sleep(0)  # the comm hops onto the kernel's loop


@pytest.mark.parametrize("forged", ["openai:gpt-4o", "demo ", "ALPHA", "anthropic:claude-opus-4"])
async def test_a_forged_choice_is_refused_and_nothing_is_made(
    wire: Any, monkeypatch: pytest.MonkeyPatch, forged: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")  # would make an OpenAIModel if it were let through
    made: list[Any] = []
    monkeypatch.setattr("ipygenui.runtime._model_choices.resolve_model", lambda x: made.append(x))
    monkeypatch.setattr("ipygenui.runtime._model_slot.resolve_model", lambda x: made.append(x))
    alpha = ScriptedModel(default="a", name="alpha")
    chat = gu.Chat(models=[alpha, "demo"])
    await choose(chat, {"type": "choose_model", "model": forged})
    (error,) = customs(wire, "error")
    assert "is not offered in this chat" in error["message"]
    assert chat.model is alpha and chat.model_choice == "alpha" and made == []
    chat.close()


@pytest.mark.parametrize(
    "content",
    [
        {"type": "choose_model"},
        {"type": "choose_model", "model": 3},
        {"type": "choose_model", "model": ""},
        {"type": "choose_model", "model": "x" * 10_000},
        {"type": "choose_model", "model": "demo", "base_url": "http://evil.example/v1"},
    ],
)
async def test_a_malformed_choice_is_refused(wire: Any, content: dict[str, Any]) -> None:
    alpha = ScriptedModel(default="a", name="alpha")
    chat = gu.Chat(models=[alpha, "demo"])
    await choose(chat, content)
    (error,) = customs(wire, "error")
    assert "invalid 'choose_model' message" in error["message"]
    assert chat.model is alpha
    chat.close()


async def test_a_listed_model_that_cannot_be_made_says_why_and_the_model_stays(
    wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    chat = gu.Chat(models=["demo", "openai:gpt-4o-mini"])
    await choose(chat, {"type": "choose_model", "model": "openai:gpt-4o-mini"})
    (error,) = customs(wire, "error")
    assert error["message"] == "Set OPENAI_API_KEY to use gpt-4o-mini; still using 'offline demo'"
    assert isinstance(chat.model, DemoModel)
    assert (chat.model_choice, chat.model_name) == ("demo", "offline demo")
    assert (await chat.send("still answered?")).status.type == "complete"
    # the failure is not kept: once the key is there, the same choice works
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    await choose(chat, {"type": "choose_model", "model": "openai:gpt-4o-mini"})
    assert isinstance(chat.model, OpenAIModel) and chat.model_choice == "openai:gpt-4o-mini"
    chat.close()


def test_from_code_the_same_failure_raises_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rt = gu.Runtime(models=["demo", "openai:gpt-4o-mini"])
    with pytest.raises(ModelChoiceError, match="Set OPENAI_API_KEY to use gpt-4o-mini"):
        rt.model = "openai:gpt-4o-mini"
    assert rt.model_choice == "demo"


@pytest.mark.parametrize(
    ("listed", "keys"),
    [
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("google-gla:gemini-2.5-flash", "GEMINI_API_KEY or GOOGLE_API_KEY"),
        ("openai-responses:gpt-5", "OPENAI_API_KEY"),
    ],
)
def test_a_missing_key_is_said_at_once_in_one_line_before_any_sdk_is_tried(
    monkeypatch: pytest.MonkeyPatch, listed: str, keys: str
) -> None:
    for key in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)

    def never(chosen: Any) -> Any:
        raise AssertionError(f"{chosen!r} was made: the SDK's slow, long error would show")

    monkeypatch.setattr("ipygenui.runtime._model_choices.resolve_model", never)
    rt = gu.Runtime(models=[ScriptedModel(default="a", name="alpha"), listed])
    with pytest.raises(ModelChoiceError) as caught:
        rt.model = listed
    name = listed.partition(":")[2]
    assert str(caught.value) == f"Set {keys} to use {name}; still using 'alpha'"
    assert rt.model.name == "alpha"


@pytest.mark.parametrize(
    "saved", [3, ["alpha"], {"id": "beta"}, "openai:gpt-4o", "", "beta\u0000", None]
)
async def test_a_thread_files_saved_choice_that_is_not_listed_is_ignored(
    tmp_path: Path, saved: Any
) -> None:
    path = tmp_path / "t.json"
    rt = gu.Runtime(models=[ScriptedModel(default="a", name="alpha")], persist=path)
    await rt.send("hi")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["thread"]["metadata"][SAVED_CHOICE] = saved
    path.write_text(json.dumps(data), encoding="utf-8")
    alpha = ScriptedModel(default="from alpha", name="alpha")
    beta = ScriptedModel(default="from beta", name="beta")
    loaded = gu.Runtime(models=[alpha, beta], persist=path)
    assert loaded.model is alpha
    assert (await loaded.send("again")).text == "from alpha"


async def test_a_saved_choice_that_cannot_be_made_now_leaves_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    path = tmp_path / "t.json"
    rt = gu.Runtime(models=["demo", "openai:gpt-4o-mini"], persist=path)
    rt.model = "openai:gpt-4o-mini"
    rt.close()
    monkeypatch.delenv("OPENAI_API_KEY")  # opened later, on a machine without the key
    loaded = gu.Chat(models=["demo", "openai:gpt-4o-mini"], persist=path)
    assert isinstance(loaded.model, DemoModel) and loaded.model_choice == "demo"
    assert (await loaded.send("hi")).status.type == "complete"
    loaded.close()


def test_every_model_switched_to_is_closed_with_the_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    closed: list[str] = []
    monkeypatch.setattr(OpenAIModel, "close", lambda self: closed.append(self.model))
    rt = gu.Runtime(models=["openai:gpt-4o-mini", "openai:gpt-4.1-nano", "demo"])
    rt.model = "openai:gpt-4.1-nano"
    rt.model = "demo"
    rt.close()
    assert sorted(closed) == ["gpt-4.1-nano", "gpt-4o-mini"]
