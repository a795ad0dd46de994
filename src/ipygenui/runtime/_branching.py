"""Conversation control of a runtime: branches and feedback.

``edit`` a user message, or ``regenerate`` an assistant reply (default: the
last one), starts a new version of it as a new branch: the old one and what
followed it stay as another (``thread.branches(id)`` lists them,
``switch_branch`` shows version ``index``, 0-based, and what followed it).
``_loop/branches.py`` moves the messages; this part first settles the
thread (a streaming run cancelled, a reply waiting for the user ended, its
calls answered with why, which the model reads), so every stashed version
is a finished, valid history, and announces the new active path
(``ActivePathChanged``). The runtime then answers the new version.

``feedback`` rates an assistant reply on any branch (``"up"`` or
``"down"``, with an optional comment; ``None`` takes a rating back): stored
on the message (``message.feedback``), saved, and announced
(``FeedbackChanged``); ``thread.feedback()`` gives every rating as rows.

Which message each takes is ``_conversation``'s rule: a message that is not
of the right role on the active branch (a rated one may be on any), or a
branch index out of range, raises ``BranchError`` naming it, nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable

from ..events import ActivePathChanged, FeedbackChanged
from ._conversation import check_role, rate, reply_to_regenerate
from ._host import Host
from ._loop.branches import check_version, show_version, start_version

__all__ = ["Branching"]


class Branching:
    """New versions of the messages of the thread shown, and ratings (``settle``
    readies the thread for a new user action, told why)."""

    def __init__(self, host: Host, settle: Callable[[str], None]) -> None:
        self._thread = host.thread
        self._events = host.events
        self._commit = host.commit
        self._save = host.save
        self._settle = settle

    def edit(self, message_id: str) -> None:
        """Make room for a new version of the user message ``message_id``."""
        self._new_version(
            message_id,
            "user",
            "only user messages can be edited (regenerate(message_id) answers again)",
            "The user edited an earlier message.",
        )

    def regenerate(self, message_id: str | None) -> None:
        """Make room for a new version of the reply ``message_id`` (default: the last)."""
        self._new_version(
            reply_to_regenerate(self._thread(), message_id),
            "assistant",
            "regenerate takes an assistant reply (edit(message_id, text) changes a user message)",
            "The user asked for another reply.",
        )

    def _new_version(self, message_id: str, role: str, wrong_role: str, why: str) -> None:
        """Start a new version of the ``role`` message ``message_id`` (the old one
        and what followed it become a branch), once a streaming run has ended
        (``why`` goes to the model). ``BranchError``, nothing changed, for a
        message of another role (``wrong_role`` says what to do instead)."""
        index = check_role(self._thread(), message_id, role, wrong_role)
        self._settle(why)
        start_version(self._thread(), index)
        self._path_changed(index)

    def switch(self, message_id: str, index: int) -> None:
        """Show version ``index`` of the message ``message_id``."""
        thread = self._thread()
        position = thread.index_of(message_id)
        where = thread.branch_position(message_id)
        check_version(thread.messages[position], index, where.count)
        if index == where.index:
            return
        self._settle("The user switched to another branch.")
        show_version(thread, position, index)
        self._path_changed(position)
        self._save()

    def _path_changed(self, start: int) -> None:
        thread = self._thread()
        self._events.emit(ActivePathChanged(thread.id, start, tuple(thread.messages)))

    def feedback(self, message_id: str, rating: str | None, comment: str | None) -> None:
        thread = self._thread()
        message, feedback = rate(thread, message_id, rating, comment)
        self._events.emit(FeedbackChanged(message_id, feedback))
        if thread.message(message_id) is message:
            self._commit(message)
        else:
            self._save()
