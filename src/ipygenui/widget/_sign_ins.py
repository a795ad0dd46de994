"""A tool server's sign-in cards in ``gu.Chat`` (``tools/sign_ins.py``'s desk):
the ``sign_ins`` trait shows the open ones, and the view's ``sign_in``
message answers one (the address the browser landed on, pasted; or cancel).

The desk changes on the MCP worker's thread: the trait is written on the
kernel's loop (``call_soon_threadsafe``). The pasted address carries the
authorization code: it goes to the desk and nowhere else (not in a trait,
not in an error echoed back, not in a log).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ..tools.sign_ins import SignIns
from ._protocol import SignInMsg, error_message
from ._sync import send_safely

__all__ = ["SignInCards"]

log = logging.getLogger(__name__)


class SignInCards:
    """Keeps ``chat.sign_ins`` in step with the runtime's desk; answers the view."""

    def __init__(
        self,
        chat: Any,
        desk: SignIns,
        loop: Callable[[], asyncio.AbstractEventLoop | None],
        send: Callable[[Any], Any],
    ) -> None:
        self._chat = chat
        self._desk = desk
        self._loop = loop
        self._send = send
        desk.listeners.append(self._changed)

    def _changed(self) -> None:
        loop = self._loop()
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._show)
        else:
            self._show()

    def _show(self) -> None:
        try:
            cards = self._desk.pending
            if cards != list(self._chat.sign_ins):
                self._chat.sign_ins = cards
        except Exception:  # a view problem must never break the sign-in
            log.exception("ipygenui widget could not show the sign-in cards")

    def answer(self, msg: SignInMsg) -> None:
        """The view's answer (untrusted: the desk checks the id and the address)."""
        try:
            if msg.action == "cancel":
                server = next((c["server"] for c in self._desk.pending if c["id"] == msg.id), "")
                self._desk.cancel(msg.id)
                text = (
                    f"Sign-in to {server} cancelled: its tools stay out of this chat until you "
                    "sign in (await tools.connect() shows the card again)."
                )
                send_safely(self._send, error_message(text))
            else:
                self._desk.finish(msg.id, msg.url or "")
        except (KeyError, ValueError) as exc:  # said without echoing the pasted address
            send_safely(self._send, error_message(str(exc).strip("'\"")))

    def close(self) -> None:
        if self._changed in self._desk.listeners:
            self._desk.listeners.remove(self._changed)
