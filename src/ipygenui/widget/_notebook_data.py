"""The notebook's DataFrames, Series and arrays for the composer's ``@`` menu.

A chat in a kernel offers the user's own variables by name, beside its own
data: only the names go to the browser (the ``data_names`` trait), with each
one's kind and shape (``data_details``: "DataFrame", 1,200 × 5). Picking
one attaches it by reference: the object is kept in the chat's data under
its variable name, and the model reads its summary, never its rows. The list
is read again after every cell the user runs (IPython's ``post_run_cell``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..data import DataStore, is_array, is_listable, is_series, is_tabular, user_namespace

__all__ = ["data_details", "data_names", "pick_from_notebook", "watch_cells"]

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


def kind_of(obj: Any) -> str:
    """What the ``@`` menu calls an object: DataFrame, Series, array, else its class."""
    if is_tabular(obj):
        return "DataFrame"
    if is_series(obj):
        return "Series"
    if is_array(obj):
        return "array"
    return type(obj).__name__[:40]


def shape_of(obj: Any) -> list[int] | None:
    """The object's ``shape`` as plain ints (rows first), or None when it has none."""
    try:
        shape = obj.shape if is_listable(obj) else None
        if isinstance(shape, tuple) and all(isinstance(n, int) and n >= 0 for n in shape):
            return [int(n) for n in shape]
    except Exception:  # a shape that cannot be read is left out
        pass
    return None


def data_details(
    store: DataStore, namespace: Mapping[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Name -> ``{"kind", "shape"}`` for every name of :func:`data_names`."""
    tables = notebook_tables(namespace)
    details: dict[str, dict[str, Any]] = {}
    for name in data_names(store, namespace):
        try:
            obj = store[name] if name in store else tables[name]
        except Exception:  # gone since it was listed: no details
            continue
        details[name] = {"kind": kind_of(obj), "shape": shape_of(obj)}
    return details


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
