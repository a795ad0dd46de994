"""The AG-UI sequence verifier as a pytest plugin.

``pytest -p agui_verifier --agui-verify tests/...`` attaches a checker of the
protocol's ordering rules (``ipygenui.agui._sequence``) to every Runtime the
tests create, so every scripted scenario of those tests is replayed through
it; a test whose runtime emitted a stream breaking a rule fails with the rule.
A RUN_ERROR ends a stream: the checker subscribes again for the next one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ipygenui.agui._sequence import SequenceChecker, SequenceError
from ipygenui.runtime import Runtime


class StreamVerifier:
    """Subscribes to a runtime's AG-UI events and records every broken rule."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.events: list[Any] = []
        self.errors: list[str] = []
        self._checker = SequenceChecker()
        runtime.subscribe_agui(self)

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        try:
            self._checker.check(event)
        except SequenceError as exc:
            self.errors.append(str(exc))
        if self._checker.errored:  # the stream ended: the next run is a new one
            self._checker = SequenceChecker()
            self.runtime.subscribe_agui(self)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--agui-verify",
        action="store_true",
        help="check every Runtime's AG-UI stream against the protocol's sequence rules",
    )


@pytest.fixture(autouse=True)
def _agui_verified(request: pytest.FixtureRequest) -> Iterator[None]:
    if not request.config.getoption("--agui-verify"):
        yield
        return
    verifiers: list[StreamVerifier] = []
    original = Runtime.__init__

    def init(self: Runtime, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        verifiers.append(StreamVerifier(self))

    Runtime.__init__ = init  # type: ignore[method-assign]
    try:
        yield
    finally:
        Runtime.__init__ = original  # type: ignore[method-assign]
    broken = [error for v in verifiers for error in v.errors]
    if broken:
        pytest.fail("AG-UI sequence rules broken:\n" + "\n".join(broken))
