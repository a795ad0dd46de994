"""The browser's side of the wire contracts is generated from the kernel's
models (``make protocol``): each checked-in file must be what the models give
today, every browser message must have its handler in the chat, and every
kernel message its validator in the browser."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ipygenui.widget import _wire_codegen as chat_codegen
from ipygenui.widget._handlers import ClientHandlers
from ipygenui.widget._protocol import CLIENT_MESSAGES, SERVER_MESSAGES, WIRE_LIMITS, message_type
from ipygenui.workbench import _protocol as workbench_protocol
from ipygenui.workbench import _wire_codegen as workbench_codegen

OUTPUT = chat_codegen.OUTPUT


@pytest.mark.parametrize(
    ("output", "render"),
    [
        (chat_codegen.OUTPUT, chat_codegen.render),
        (workbench_codegen.OUTPUT, workbench_codegen.render),
    ],
    ids=["chat", "workbench"],
)
def test_the_generated_js_is_fresh(output: Path, render: Callable[[], str]) -> None:
    assert output.read_text(encoding="utf-8") == render(), (
        f"{output.name} is stale (a model of a _protocol.py changed): run make protocol"
    )


def test_every_browser_message_has_a_handler_in_the_chat() -> None:
    assert set(ClientHandlers._HANDLERS) == set(CLIENT_MESSAGES)
    assert len(set(map(message_type, CLIENT_MESSAGES))) == len(CLIENT_MESSAGES)


def test_every_browser_message_has_a_builder_and_every_kernel_message_a_validator() -> None:
    js = OUTPUT.read_text(encoding="utf-8")
    builders = js[js.index("export const toKernel") : js.index("export const isFrame")]
    for model in CLIENT_MESSAGES:
        assert f'type: "{message_type(model)}"' in builders, model.__name__
    table = js[js.index("export const FROM_KERNEL_VALIDATORS") :]
    table = table[: table.index("});")]
    validators = dict(re.findall(r"^  (\w+): (is\w+),$", table, re.M))
    assert set(validators) == {message_type(m) for m in SERVER_MESSAGES}
    for name in validators.values():
        assert f"export const {name} = (m) =>" in js
    for key in WIRE_LIMITS:
        assert f': "{key}",' in js  # LIMIT_KEYS: the view reads each by name


def test_the_workbench_protocol_is_generated_too() -> None:
    js = workbench_codegen.OUTPUT.read_text(encoding="utf-8")
    for model in workbench_protocol.CLIENT_MESSAGES:
        assert f'type: "{message_type(model)}"' in js, model.__name__
    for model in workbench_protocol.SERVER_MESSAGES:
        assert f"  {message_type(model)}: is" in js, model.__name__
