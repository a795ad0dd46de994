"""The browser's side of the wire contract is generated from the kernel's
models (``make protocol``): the checked-in file must be what the models give
today, every browser message must have its handler in the chat, and every
kernel message its validator in the browser."""

from __future__ import annotations

import re

from ipygenui.widget._protocol import CLIENT_MESSAGES, SERVER_MESSAGES, WIRE_LIMITS, message_type
from ipygenui.widget._wire_codegen import OUTPUT, render
from ipygenui.widget.chat import Chat


def test_the_generated_js_is_fresh() -> None:
    assert OUTPUT.read_text(encoding="utf-8") == render(), (
        f"{OUTPUT.name} is stale (the models of widget/_protocol.py changed): run make protocol"
    )


def test_every_browser_message_has_a_handler_in_the_chat() -> None:
    assert set(Chat._HANDLERS) == set(CLIENT_MESSAGES)
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
