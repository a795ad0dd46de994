"""Sign-ins a tool source asks the user for (an MCP server's OAuth sign-in),
shown as cards in a chat: the desk both sides share.

The source (``ipygenui.mcp``) opens one with ``SignIns.ask`` on its own
worker loop and awaits it; the chat shows every open one (``pending``) and
answers with ``finish`` (the URL the browser landed on, pasted by the user)
or ``cancel``. A listener on the source's side (a loopback redirect) may end
it first with ``SignIn.landed``. The desk is thread-safe: a widget message may
arrive on a comm thread, the source waits on another loop.

What the desk holds and shows is the authorization URL (public: it carries
the ``state`` and the PKCE challenge, never a secret). The URL the browser
landed on carries the authorization code: it goes to the waiting source and
nowhere else (not in ``pending``, not in a log).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SignIn", "SignInCancelled", "SignIns"]

_ids = itertools.count(1)

logger = logging.getLogger("ipygenui")

UNSEEN_SECONDS = 2.0
"""A card no chat shows after this long (a headless ``Runtime``) is said in the log."""


class SignInCancelled(Exception):
    """The user cancelled the sign-in (the card's Cancel, or the chat closed)."""


@dataclass
class SignIn:
    """One open sign-in: what its card shows, and how it ends."""

    server: str
    """The server as the card names it."""
    url: str
    """The whole authorization URL the user opens."""
    redirect_uri: str
    """Where the browser is sent back to (a pasted URL must be that one)."""
    listening: bool
    """Whether a loopback listener waits for the browser on this machine."""
    check: Callable[[str], str]
    """A pasted URL -> the URL to hand back (``ValueError`` says why it is refused)."""
    id: str = field(default_factory=lambda: f"signin-{next(_ids)}")
    error: str = ""
    """Why the last pasted URL was refused (shown on the card)."""
    future: concurrent.futures.Future[str] = field(default_factory=concurrent.futures.Future)

    def card(self) -> dict[str, Any]:
        """What the chat shows (JSON; no code, no token)."""
        return {
            "id": self.id,
            "server": self.server,
            "url": self.url,
            "redirect_uri": self.redirect_uri,
            "listening": self.listening,
            "error": self.error,
        }

    def landed(self, url: str) -> None:
        """The browser came back (the loopback listener heard it): done."""
        if not self.future.done():
            self.future.set_result(url)


class SignIns:
    """The open sign-ins of one chat; ``listeners`` hear each change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, SignIn] = {}
        self.listeners: list[Callable[[], None]] = []

    @property
    def pending(self) -> list[dict[str, Any]]:
        """The cards to show, oldest first."""
        with self._lock:
            return [sign_in.card() for sign_in in self._open.values()]

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    async def ask(self, sign_in: SignIn, timeout: float) -> str:
        """Show ``sign_in`` until it ends; the URL the browser landed on.
        Raises ``SignInCancelled`` or ``TimeoutError``; the card goes either way."""
        with self._lock:
            self._open[sign_in.id] = sign_in
        self._changed()
        unseen = asyncio.get_running_loop().call_later(UNSEEN_SECONDS, self._unseen, sign_in)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(sign_in.future), timeout)
        finally:
            unseen.cancel()
            if not sign_in.future.done():
                sign_in.future.cancel()
            with self._lock:
                self._open.pop(sign_in.id, None)
            self._changed()

    def _unseen(self, sign_in: SignIn) -> None:
        if not self.listeners and not sign_in.future.done():
            logger.warning(
                "%s asks you to sign in, and no chat shows its card: show the tools in a "
                "gu.Chat, answer runtime.sign_ins (finish or cancel), or pass "
                "gu.MCPOAuth(redirect=...)",
                sign_in.server,
            )

    def _find(self, sign_in_id: str) -> SignIn:
        with self._lock:
            sign_in = self._open.get(sign_in_id)
        if sign_in is None or sign_in.future.done():
            raise KeyError(f"no sign-in {sign_in_id[:80]!r} is waiting: it ended already")
        return sign_in

    def finish(self, sign_in_id: str, url: str) -> None:
        """The URL the user pasted: checked, then handed back. A URL that is
        not this sign-in's redirect stays on the card as an error
        (``ValueError``, saying why) and the sign-in waits on."""
        sign_in = self._find(sign_in_id)
        try:
            back = sign_in.check(url)
        except ValueError as exc:
            sign_in.error = str(exc)
            self._changed()
            raise
        sign_in.landed(back)

    def cancel(self, sign_in_id: str | None = None) -> None:
        """End one sign-in (or every one: the chat closes) as cancelled."""
        with self._lock:
            chosen = [s for s in self._open.values() if sign_in_id in (None, s.id)]
        if sign_in_id is not None and not chosen:
            raise KeyError(f"no sign-in {sign_in_id[:80]!r} is waiting: it ended already")
        for sign_in in chosen:
            if not sign_in.future.done():
                sign_in.future.set_exception(SignInCancelled(f"the sign-in to {sign_in.server}"))
