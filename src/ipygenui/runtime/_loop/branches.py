"""Branches of a thread: start a new version of a message, or show another.

The thread's shape is in ``messages.py`` (``Thread.forks``, ``Fork``): the
active branch is ``Thread.messages``, so the model, the history and every view
read one list, and the other versions wait in the fork they belong to. These
functions only move messages between the two; the runtime makes sure no run
streams and no call waits when they do, so every stashed version is a
finished, valid history.
"""

from __future__ import annotations

from ...messages import BranchError, Fork, Message, Thread


def start_version(thread: Thread, index: int) -> None:
    """Stash ``messages[index:]`` as a version of their place and make room for
    a new one: the caller appends its first message. The new version is the last."""
    key = thread.fork_key(index)
    current = thread.messages[index:]
    del thread.messages[index:]
    fork = thread.forks.get(key)
    if fork is None:
        thread.forks[key] = Fork(active=1, stashed=[current])
        return
    fork.stashed.insert(fork.active, current)
    fork.active = fork.count - 1


def show_version(thread: Thread, index: int, version: int) -> None:
    """Show version ``version`` of the place of ``messages[index]`` (checked)."""
    key = thread.fork_key(index)
    fork = thread.forks.get(key)
    count = fork.count if fork is not None else 1
    check_version(thread.messages[index], version, count)
    if fork is None or version == fork.active:
        return
    versions: list[list[Message]] = [
        thread.messages[index:] if i == fork.active else (fork.version(i) or [])
        for i in range(count)
    ]
    del thread.messages[index:]
    thread.messages.extend(versions[version])
    fork.stashed = [v for i, v in enumerate(versions) if i != version]
    fork.active = version


def check_version(message: Message, version: object, count: int) -> None:
    if not isinstance(version, int) or isinstance(version, bool):
        raise BranchError(
            f"a branch index is an int from 0 to {count - 1}, got {version!r} "
            f"({type(version).__name__})"
        )
    if not 0 <= version < count:
        which = "branch" if count == 1 else "branches"
        raise BranchError(
            f"branch {version} is out of range: message {message.id!r} has {count} {which} "
            f"(0 to {count - 1})"
        )
