"""``gu.record(model, path)``: a model that answers as ``model`` does and
writes each step to a cassette (JSON Lines, see ``_format.py``).

Each step's line holds the request as ``_normalize.py`` keeps it, every
delta as it came with its offset in seconds, and the error that ended the
step, if any. Secrets never reach the file (``_redact.py``).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from ..base import BatchStreaming, Model, ModelDelta, ModelRequest, delta_batches
from ._format import encode_delta
from ._normalize import normalize
from ._read import check_path
from ._redact import redact, secrets_of
from ._write import append, start

__all__ = ["Recording", "record"]


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class Recording(BatchStreaming):
    """``model``, with every step appended to the cassette at ``path``."""

    def __init__(self, model: Model, path: Path, secrets: Iterable[str], new: bool) -> None:
        if not callable(getattr(model, "stream", None)):
            if callable(getattr(model, "run", None)):
                raise TypeError(
                    f"gu.record records a model, and {model!r} is an agent (Runtime(agent=...)): "
                    "an agent's runs (its state, its own calls' results) are not recorded yet"
                )
            raise TypeError(f"gu.record needs a model (a name and a stream method), got {model!r}")
        self.model = model
        self.path = path
        self.name = model.name
        self.offline = bool(getattr(model, "offline", False))
        for optional in ("spec", "provider_key"):
            if hasattr(model, optional):
                setattr(self, optional, getattr(model, optional))
        self._extra = tuple(secrets)
        header = {"model": self.name, "recorded": _now()}
        if isinstance(getattr(model, "spec", None), str):
            header["spec"] = model.spec  # type: ignore[attr-defined]
        start(path, redact(header, secrets_of(model, self._extra)), new=new)

    def __repr__(self) -> str:
        return f"record({self.model!r}, {str(self.path)!r})"

    async def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelDelta]]:
        began = time.monotonic()
        recorded: list[list[Any]] = []
        error: str | None = None
        stopped = False
        batches = delta_batches(self.model, request)
        try:
            if batches is not None:
                async for batch in batches:
                    t = time.monotonic() - began
                    recorded.extend(encode_delta(t, d) for d in batch)
                    yield batch
            else:
                async for delta in self.model.stream(request):
                    recorded.append(encode_delta(time.monotonic() - began, delta))
                    yield [delta]
        except Exception as exc:
            error = str(exc) or type(exc).__name__
            raise
        except BaseException:  # stopped (the user's Stop, the loop closing the stream)
            stopped = True
            raise
        finally:
            if not stopped:  # a step cut short answers nothing worth replaying
                self._write(request, recorded, error)

    def _write(self, request: ModelRequest, deltas: list[list[Any]], error: str | None) -> None:
        entry = {
            "recorded": _now(),
            "model": self.name,
            "request": normalize(request),
            "deltas": deltas,
            "error": error,
        }
        append(self.path, redact(entry, secrets_of(self.model, self._extra)))

    async def aclose(self) -> None:
        close = getattr(self.model, "aclose", None)
        if callable(close):
            await close()

    def close(self) -> None:
        close = getattr(self.model, "close", None)
        if callable(close):
            close()


def record(
    model: Model | str,
    path: str | os.PathLike[str],
    *,
    secrets: Iterable[str] = (),
    new: bool = False,
) -> Recording:
    """``model`` (or the model a ``"provider:model"`` name makes), recording
    each step it answers to the cassette at ``path``.

    Use it wherever a model goes (``gu.Chat(model=gu.record(m, "lesson.jsonl"))``,
    ``gu.evaluate(..., model=...)``); replay the file with :func:`replay`.
    The file is JSON Lines: a header with the format's version, then one line
    per model step (the request without ids, the deltas as they streamed with
    their offsets in seconds). Steps are appended, so one cassette holds many
    conversations; ``new=True`` starts the file afresh.

    API keys, tokens and passwords never reach the file: the model's own (its
    client's key), those in environment variables named like ``*_API_KEY`` or
    ``*TOKEN*``, and the strings in ``secrets`` are written as ``[redacted]``,
    and URLs lose their credentials and query.
    """
    if isinstance(model, str):  # a "provider:model" name, as model= takes
        from ..select import model as named

        model = named(model)
    return Recording(model, check_path(path), secrets, new)
