"""The notebook's DataFrames, Series and arrays for the composer's ``@`` menu.

A chat in a kernel offers the user's own variables by name, beside its own
data: only the names go to the browser (the ``data_names`` trait). Picking
one attaches it by reference: the object is kept in the chat's data under
its variable name, and the model reads its summary, never its rows. The list
is read again after every cell the user runs (IPython's ``post_run_cell``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..data import DataStore, is_listable, user_namespace

__all__ = ["data_names", "pick_from_notebook", "watch_cells"]

_VARIABLE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
"""A name the chat's data takes (no leading ``_``: IPython's ``_``, ``_1``, ``__``)."""

MAX_NAMES = 200
"""At most this many notebook names are listed (a namespace of thousands stays usable)."""


def notebook_tables(namespace: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Name -> object for the notebook's DataFrames, Series and arrays."""
    ns = user_namespace() if namespace is None else namespace
    found: dict[str, Any] = {}
    try:
        for name, value in list(ns.items()):
            if isinstance(name, str) and _VARIABLE.fullmatch(name) and is_listable(value):
                found[name] = value
                if len(found) >= MAX_NAMES:
                    break
    except Exception:  # a namespace that cannot be read offers nothing
        return {}
    return found


def data_names(store: DataStore, namespace: Mapping[str, Any] | None = None) -> list[str]:
    """The chat's data names, then the notebook's tables not among them."""
    try:
        names = store.names()
    except Exception:
        names = []
    return [*names, *(n for n in notebook_tables(namespace) if n not in names)]


def pick_from_notebook(
    store: DataStore, name: str, namespace: Mapping[str, Any] | None = None
) -> None:
    """Keep the notebook's table ``name`` in ``store`` (if the store has no such name)."""
    if name in store:
        return
    value = notebook_tables(namespace).get(name)
    if value is not None:
        store[name] = value


def watch_cells(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` after each cell the user runs; returns the unsubscribe."""
    try:
        from IPython.core.getipython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is None:
        return lambda: None

    def after_cell(_result: Any = None) -> None:
        with contextlib.suppress(Exception):  # a listener never breaks the user's cell
            callback()

    shell.events.register("post_run_cell", after_cell)

    def stop() -> None:
        with contextlib.suppress(ValueError):
            shell.events.unregister("post_run_cell", after_cell)

    return stop
