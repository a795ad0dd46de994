"""Synced traits a browser ``update`` may not change.

A widget's synced traits are the kernel's picture (a Chat's run and thread, the
shared bundle's code, a workbench's registry): a buggy or hostile view that
writes one must change nothing, be echoed to no other view, and never raise in
the comm handler. ipywidgets reads ``from_json`` and ``echo_update`` per trait.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from traitlets import HasTraits, TraitType

ANYWIDGET_OWN = ("_esm", "_css", "_anywidget_id")
"""The traits anywidget adds to each instance (its module, its stylesheet)."""


def _keep_kernel_value(name: str) -> Callable[[Any, Any], Any]:
    """A trait's ``from_json`` that reads an update from the browser as the
    kernel's own value: ipywidgets' ``set_state`` then changes nothing."""

    def keep(_value: Any, widget: Any) -> Any:
        return getattr(widget, name)

    return keep


def _read_only(name: str, trait: TraitType[Any, Any]) -> None:
    trait.metadata["from_json"] = _keep_kernel_value(name)
    trait.metadata["echo_update"] = False


def ignore_browser_writes(cls: type[HasTraits], writable: Collection[str] = ()) -> None:
    """Make the synced traits ``cls`` itself defines, but for ``writable``,
    read-only from the browser."""
    for name, trait in cls.class_traits(sync=True).items():
        if name in vars(cls) and name not in writable:
            _read_only(name, trait)


def ignore_browser_writes_of(widget: HasTraits, names: Collection[str] = ANYWIDGET_OWN) -> None:
    """The same for traits added to one instance (anywidget's own, made in its
    ``__init__``): call it once that ``__init__`` has run."""
    traits = widget.traits(sync=True)
    for name in names:
        if name in traits:
            _read_only(name, traits[name])
