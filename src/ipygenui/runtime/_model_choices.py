"""The models a chat offers (``models=``): each made when first chosen.

A listed name (``"anthropic:claude-sonnet-4-5"``) is resolved only when it
is chosen, so a missing key or extra fails then, with a message naming the
model, and the model in use stays. A listed model object is used as it is.
Each choice has an id: the name itself, or a model object's ``spec`` (else
its ``name``); the picker and the thread file name choices by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ModelChoiceError
from ..models.base import Model
from ..models.select import DEMO, missing_key, resolve_model, split_name

__all__ = ["SAVED_CHOICE", "ModelChoiceError", "ModelChoices", "choice_id"]

SAVED_CHOICE = "model_choice"
"""Thread metadata: the id of the listed model the thread last used."""


def choice_id(item: Model | str) -> str:
    """The id a picker and a thread file know ``item`` by."""
    if isinstance(item, str):
        return item.strip()
    spec = getattr(item, "spec", None)
    if isinstance(spec, str) and spec:
        return spec
    name = getattr(item, "name", None)
    return name if isinstance(name, str) and name else type(item).__name__


def _label(item: Model | str) -> tuple[str, str]:
    """What the picker shows: the model's name, and its provider beside it."""
    if isinstance(item, str):
        provider, name = split_name(item)
        return (name, provider) if provider != DEMO else ("demo", "offline")
    named = getattr(item, "name", None)
    shown = named if isinstance(named, str) and named else choice_id(item)
    spec = getattr(item, "spec", None)
    provider = spec.partition(":")[0] if isinstance(spec, str) and ":" in spec else ""
    if getattr(item, "offline", False) and not provider:
        provider = "offline"
    return shown, provider


@dataclass
class _Choice:
    id: str
    source: Model | str
    built: Model | None


class ModelChoices:
    """The ``models=`` list (already checked: distinct ids), built lazily."""

    def __init__(self, items: Sequence[Model | str] = ()) -> None:
        self._choices = {
            choice_id(item): _Choice(choice_id(item), item, None if isinstance(item, str) else item)
            for item in items
        }

    def __bool__(self) -> bool:
        return bool(self._choices)

    @property
    def ids(self) -> list[str]:
        return list(self._choices)

    def entries(self) -> list[dict[str, str]]:
        """``{id, name, provider}`` per choice, in order: what the picker lists."""
        out = []
        for choice in self._choices.values():
            name, provider = _label(choice.source)  # the same before and after it is made
            out.append({"id": choice.id, "name": name, "provider": provider})
        return out

    def id_of(self, model: Model) -> str | None:
        """The id of the choice ``model`` was made from, or None: not listed."""
        for choice in self._choices.values():
            if choice.built is model:
                return choice.id
        return None

    def add_first(self, model: Model) -> str:
        """List ``model`` (given as ``model=``, not in the list) first; its id."""
        key = choice_id(model)
        listed = self._choices.get(key)
        if listed is not None and listed.built is None:  # the name it was made from
            listed.built = model
            return key
        if listed is not None:
            return key
        self._choices = {key: _Choice(key, model, model), **self._choices}
        return key

    def build(self, key: str, current: Model | None = None) -> Model:
        """The model of choice ``key``, made now if it was a name.

        ``ModelChoiceError`` (nothing changed) when it cannot be made: the
        message names the model and the one kept (``current``)."""
        choice = self._choices[key]
        if choice.built is None and isinstance(choice.source, str):
            keys = missing_key(choice.source)
            if keys:  # said at once, in a line (the SDK's own error is long and slow)
                name, _ = _label(choice.source)
                kept = getattr(current, "name", None)
                stays = f"; still using {kept!r}" if isinstance(kept, str) and kept else ""
                raise ModelChoiceError(f"Set {' or '.join(keys)} to use {name}{stays}")
        if choice.built is None:
            try:
                choice.built = resolve_model(choice.source)
            except Exception as exc:  # a missing key, extra or SDK: the user reads why
                kept = getattr(current, "name", None)
                stays = f"; the chat keeps {kept!r}" if isinstance(kept, str) and kept else ""
                raise ModelChoiceError(
                    f"could not switch to the model {key!r}: {_reason(exc)}{stays}"
                ) from exc
        return choice.built

    def built(self) -> list[Model]:
        """Every model made so far (closed with the runtime)."""
        return [c.built for c in self._choices.values() if c.built is not None]

    def saved(self, metadata: dict[str, Any]) -> str | None:
        """A thread's saved choice when it is listed (a file is untrusted: any
        other value is ignored)."""
        value = metadata.get(SAVED_CHOICE)
        return value if isinstance(value, str) and value in self._choices else None


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
