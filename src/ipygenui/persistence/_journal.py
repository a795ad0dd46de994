"""A thread file's journal: the changes saved since the file was written.

A save writes what changed, not the thread: ``ThreadFile(path, journal=True)`` appends one line
to the sidecar ``.<name>.journal`` (the messages that changed, by their
place, the thread's length, and the thread's other fields that changed),
and rewrites the thread file itself only now and then (compaction: when
the journal has grown past the file, when a writer first saves after
opening it, and when a save was skipped or came out of order).

The thread file names the journal that continues it (``"journal"``, an id
the journal's first line repeats), and that first line binds the journal to
the file's bytes too (their size and SHA-256, ``base_of``). A journal of
another id (the thread file was rewritten and the kill came before the
journal was) is ignored: the file holds all of it. A journal whose file is
not the one it continues (the file edited by hand, or copied over, since)
is ignored with a warning naming it: the file on disk wins. A line cut
short by a kill ends the journal: its change is the one lost. The file
alone is still a thread file every version reads, so the JSON thread file
stays the export format (``save_thread``).

Which messages changed is found without dumping the thread: a settled
message (complete or incomplete, not among the last ``TAIL``) that is still
the same object, with the same status, metadata and parts objects and
lengths, is taken as unchanged (the runtime replaces, never edits, those:
see ``_conversation.rate``); the others are dumped and compared. A message
edited in place by hand in Python is written at the next compaction.
"""

from __future__ import annotations

import hashlib
import json
import logging
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._internal.sanitize import json_safe
from ..errors import ThreadFileError
from ..messages import Complete, Fork, Incomplete, Message, Thread

__all__ = ["JOURNAL_KEY", "Changes", "base_of", "journal_path", "replay_journal"]

logger = logging.getLogger("ipygenui")

JOURNAL_KEY = "journal"
"""The thread file's key naming the journal that continues it."""

TAIL = 2
"""The last messages are dumped and compared on every save, settled or not."""

_HEAD_FIELDS = ("id", "metadata", "title")


def base_of(raw: bytes) -> dict[str, Any]:
    """What a journal's first line records of the file it continues."""
    return {"size": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}


def _continues(header: dict[str, Any], raw: bytes) -> bool:
    """Whether the file's bytes ``raw`` are those the journal's header names
    (a header without them, from before they were recorded: by its id alone)."""
    base = header.get("base")
    if base is None:
        return True
    if not isinstance(base, dict) or base.get("size") != len(raw):
        return False
    return base == base_of(raw)


def journal_path(target: Any) -> Any:
    return target.with_name(f".{target.name}.journal")


def dumps(data: Any) -> bytes:
    """UTF-8 JSON; odd values (lone surrogates, huge ints, NaN) written as text."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError):
        return dumps(json_safe(data))
    return text.encode("utf-8")


def _dump(model: Message | Fork) -> Any:
    try:
        return model.model_dump(mode="json")
    except (ValueError, TypeError, RecursionError):  # objects pydantic cannot dump
        return json_safe(model)


_MADE_OF = tuple(operator.attrgetter(name) for name in ("status", "metadata", "parts"))
"""What a message is made of: a save takes a message that is the same object,
made of the same (or equal) objects, as unchanged."""


def _marks(messages: list[Message]) -> list[list[Any]]:
    """Each message's status, metadata and parts objects, one list each
    (lists of objects there are: no object made per message, so a save
    costs the garbage collector nothing for a long thread)."""
    return [list(map(get, messages)) for get in _MADE_OF]


def _settled(message: Message) -> bool:
    return isinstance(message.status, Complete | Incomplete)


def _forks_fingerprint(thread: Thread) -> tuple[Any, ...]:
    return tuple(
        (key, id(fork), fork.active, id(fork.stashed), tuple(id(v) for v in fork.stashed))
        for key, fork in thread.forks.items()
    )


class Changes:
    """One writer's view of what it last saved of a thread: its messages
    (the objects and what they were made of) and their dumps by place, and
    the rest of the thread; ``diff`` says what changed."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._marks: list[list[Any]] = [[], [], []]
        self._dumps: list[Any] = []
        self._open: set[int] = set()
        """Places of messages not settled when dumped: looked at every time."""
        self._head: dict[str, Any] = {}
        self._forks_mark: tuple[Any, ...] | None = None
        self._forks: Any = {}

    def _to_look_at(self, messages: list[Message], marks: list[list[Any]]) -> list[int]:
        """The places that may have changed: the tail, those not settled,
        and (when the rest is not as it was: an edit, a rating) every other."""
        count = len(messages)
        known = min(count, len(self._messages)) - TAIL
        if (
            known > 0
            and messages[:known] == self._messages[:known]
            and all(
                now[:known] == then[:known] for now, then in zip(marks, self._marks, strict=True)
            )
        ):  # compared in C, by identity first
            return sorted({*(i for i in self._open if i < known), *range(known, count)})
        return list(range(count))

    def diff(
        self, thread: Thread, before: Callable[[list[Message]], None] = lambda _: None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the journal record of what changed since the last ``diff``, the
        whole thread's JSON form as it is now, built of the same dumps);
        ``before`` is given the messages that may have changed (and a branch's,
        when the branches changed) before they are dumped."""
        messages = thread.messages
        count = len(messages)
        marks = _marks(messages)
        look = self._to_look_at(messages, marks)
        forks_mark = _forks_fingerprint(thread)
        stashed = [] if forks_mark == self._forks_mark else list(_stashed(thread))
        before([messages[i] for i in look] + stashed)
        objects, dumps_ = self._messages, self._dumps
        del objects[count:], dumps_[count:]
        changed: dict[str, Any] = {}
        for index in look:
            message = messages[index]
            dump = _dump(message)
            if _settled(message):
                self._open.discard(index)
            else:
                self._open.add(index)
            if index < len(dumps_):
                objects[index] = message
                if dump == dumps_[index]:
                    continue
                dumps_[index] = dump
            else:
                objects.append(message)
                dumps_.append(dump)
            changed[str(index)] = dump
        self._marks = marks
        self._open = {i for i in self._open if i < count}
        record: dict[str, Any] = {"n": count, "m": changed}
        try:
            head = thread.model_dump(mode="json", include=set(_HEAD_FIELDS))
        except (ValueError, TypeError, RecursionError):
            head = json_safe({name: getattr(thread, name) for name in _HEAD_FIELDS})
        fields = {k: v for k, v in head.items() if self._head.get(k, ...) != v}
        if forks_mark != self._forks_mark:
            forks = {key: _dump(fork) for key, fork in thread.forks.items()}
            if forks != self._forks:
                fields["forks"] = forks
            self._forks_mark, self._forks = forks_mark, forks
        if fields:
            record["t"] = fields
            self._head = head
        whole = {**head, "messages": list(dumps_), "forks": self._forks}
        return record, whole


def _stashed(thread: Thread) -> list[Message]:
    return [m for fork in thread.forks.values() for version in fork.stashed for m in version]


def replay_journal(
    data: dict[str, Any], raw: bytes, journal_id: str, path: Any, file_raw: bytes
) -> None:
    """Apply the journal ``raw`` to the thread file's JSON form ``data`` (in
    place) when it continues that file (its first line names ``journal_id``
    and the file's bytes ``file_raw``). A line a kill cut short ends it; a
    record that does not fit raises :class:`ThreadFileError` naming the journal."""
    lines = raw.split(b"\n")
    lines.pop()  # after the last newline: empty, or a line a kill cut short
    if not lines:
        return
    try:
        header = json.loads(lines[0])
    except ValueError:
        return
    if not isinstance(header, dict) or header.get(JOURNAL_KEY) != journal_id:
        return  # the journal of an older version of the file: the file holds it all
    if not _continues(header, file_raw):
        logger.warning(
            "%s: ignored: it continues another version of %s (the file was changed "
            "since, by hand or by a copy); the file as it is opens",
            journal_path(Path(path)),
            path,
        )
        return
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise ThreadFileError(f"{path}: the thread's messages are not a list")
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except ValueError:
            break  # torn: nothing after it was written after it
        if not isinstance(record, dict):
            raise ThreadFileError(f"{path} journal line {number}: not a change record")
        count, changed = record.get("n"), record.get("m")
        if (
            not isinstance(changed, dict)
            or isinstance(count, bool)
            or not isinstance(count, int)
            or not 0 <= count <= len(messages) + len(changed)
        ):
            raise ThreadFileError(f"{path} journal line {number}: not a change record")
        del messages[count:]
        messages.extend([None] * (count - len(messages)))
        for key, message in changed.items():
            if not key.isdigit() or int(key) >= count:
                raise ThreadFileError(f"{path} journal line {number}: no message {key!r}")
            messages[int(key)] = message
        if None in messages:
            raise ThreadFileError(f"{path} journal line {number}: a message is missing")
        fields = record.get("t")
        if isinstance(fields, dict):
            for name in (*_HEAD_FIELDS, "forks"):
                if name in fields:
                    data[name] = fields[name]
