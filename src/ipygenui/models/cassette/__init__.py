"""Cassettes: record a real model's steps to a file, replay them anywhere.

``gu.record(model, path)`` (``recording.py``) answers as ``model`` and
appends each step to a JSON Lines cassette; ``gu.replay(path)``
(``replaying.py``) is a model answering from it, offline, at the recorded
pace or instantly. The internals have one job each: ``_format`` (the
header, a delta as JSON and back, the caps), ``_normalize`` (a request
without ids), ``_redact`` (no secret in the file), ``_read`` (an untrusted
file, checked line by line), ``_write``, ``_nearest`` (a miss in words).
"""

from __future__ import annotations

from ...errors import CassetteWarning
from .recording import Recording, record
from .replaying import Replay, replay

__all__ = ["CassetteWarning", "Recording", "Replay", "record", "replay"]
