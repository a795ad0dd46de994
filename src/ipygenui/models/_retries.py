"""One request's retries, said aloud: the policy both HTTP adapters share.

``OpenAIModel`` and ``ProviderModel`` read their errors from different SDKs,
but retry the same way: a refusal worth retrying (``waits.retryable``) waits
the server's ``Retry-After`` or a backoff, a ``Retry-After`` beyond
``max_retry_wait`` fails at once, and every wait counts down in the chat
header ("Rate limited by ...: retrying in 20 s (retry 1 of 2)").
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..errors import ModelError
from .waits import StatusCallback, backoff, countdown, retryable, seconds_text

Plan = tuple[float, str]
"""The seconds to wait before the next attempt, and what the wait is for
(the status text's lead: "Rate limited by <url>")."""


@dataclass
class Retries:
    """The retries of one request to ``url`` (``where`` names the model too)."""

    max_retries: int
    max_retry_wait: float
    url: str
    where: str
    status: StatusCallback
    cancel: asyncio.Event
    done: int = 0

    @property
    def exhausted(self) -> bool:
        return self.done >= self.max_retries

    def after_status(
        self, error: BaseException, code: int, asked: float | None, detail: str
    ) -> Plan | None:
        """How to retry a request refused with HTTP ``code`` (the server asked
        to wait ``asked`` seconds, said ``detail``); None: do not retry. A
        wait beyond ``max_retry_wait`` raises ModelError from ``error``."""
        if self.exhausted or not retryable(code):
            return None
        if asked is None:
            wait = backoff(self.done + 1)
        elif asked > self.max_retry_wait:
            raise ModelError(
                f"{self.where} answered HTTP {code} ({detail}) and asks "
                f"to wait {seconds_text(asked)} before retrying, longer than max_retry_wait "
                f"({seconds_text(self.max_retry_wait)}): try again later"
            ) from error
        else:
            wait = float(asked)
        lead = f"Rate limited by {self.url}" if code == 429 else f"HTTP {code} from {self.url}"
        return wait, lead

    def after_connection_error(self, error: BaseException, refused: bool, cause: str) -> Plan:
        """How to retry a request that reached no server (``refused``: nothing
        listens at the url; ``cause``: the error in words). With no retry left,
        or once stopped, raises the ModelError to show instead."""
        if self.exhausted or self.cancel.is_set():
            if refused:
                raise ModelError(refused_text(self.url)) from error
            raise ModelError(
                f"could not reach {self.where} ({cause}): check base_url and that the server runs"
            ) from error
        return backoff(self.done + 1), f"Could not reach {self.url}"

    async def wait(self, plan: Plan) -> bool:
        """Count the wait down in the status; False when stopped meanwhile."""
        seconds, lead = plan
        self.done += 1
        of = f"retry {self.done} of {self.max_retries}"

        def say(remaining: float) -> None:
            self.status(f"{lead}: retrying in {seconds_text(remaining)} ({of})")

        waited = await countdown(seconds, self.cancel, say)
        self.status("")
        return waited


def refused_text(url: str) -> str:
    """What a refused connection reads as (a timeout's words would mislead)."""
    return (
        f"could not connect to {url}: connection refused "
        "(is the server running? check the model's base_url)"
    )
