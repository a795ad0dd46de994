"""The model slot of a runtime: the model the next reply uses, the models a
chat offers (``models=``), and every model used (closed with the runtime).

``rt.model = ...`` (a model or a ``"provider:model"`` name, checked as
``model=`` is) makes the next reply use another model; a run in progress
keeps the one it started with. ``models=[...]`` lists the models a chat
offers (``_model_choices``: a listed name is made only when chosen, and one
that cannot be made then raises ``ModelChoiceError``, the model in use kept);
``model=`` picks the first one (default: the first listed; a model not listed
joins the list, first). The choice is saved with the thread and restored
with it, when the thread is shown again or opened from a file, as long as it
is still listed. A change is announced (``ModelChanged``) and saved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from .._internal.loop_clients import close_owned
from ..events import ModelChanged
from ..messages import Thread
from ..models.agent import Agent
from ..models.base import Model
from ..models.select import resolve_model
from ._host import Host
from ._model_choices import SAVED_CHOICE, ModelChoices
from .arguments import check_model

__all__ = ["ModelSlot"]

logger = logging.getLogger("ipygenui")


class ModelSlot:
    """The model in use, the listed choices, and every model used (``agent``
    gives the chat's agent: its name is announced in place of the model's)."""

    def __init__(
        self,
        chosen: Model | str | None,
        listed: Sequence[Model | str],
        host: Host,
        agent: Callable[[], Agent | None],
    ) -> None:
        self._choices = ModelChoices(listed)
        self.current: Model = self._first(chosen)
        self.used: list[Model] = [self.current]
        """Every model this runtime used (closed with it)."""
        self._host = host
        self._agent = agent

    @property
    def ids(self) -> list[str]:
        return self._choices.ids

    @property
    def choice(self) -> str | None:
        """The id of the listed model in use, or None."""
        return self._choices.id_of(self.current)

    def entries(self) -> list[dict[str, str]]:
        return self._choices.entries()

    def is_listed(self, value: object) -> bool:
        return isinstance(value, str) and value.strip() in self._choices.ids

    def _first(self, chosen: Model | str | None) -> Model:
        if not self._choices:
            return resolve_model(chosen)
        if chosen is None:
            return self._choices.build(self._choices.ids[0])
        if isinstance(chosen, str) and self.is_listed(chosen):
            return self._choices.build(chosen.strip())
        model = resolve_model(chosen)
        self._choices.add_first(model)  # model= not in the list joins it, first
        return model

    def choose(self, value: Model | str | None) -> None:
        """Make ``value`` the model of the next reply (a listed id may be any
        model's name; anything else is checked as ``model=`` is). A listed id
        is made once, when first chosen; ``ModelChoiceError`` keeps the model
        in use."""
        if isinstance(value, str) and self.is_listed(value):
            model = self._choices.build(value.strip(), self.current)
        else:
            check_model("Runtime", value)
            model = resolve_model(value)
        if model is self.current:
            return
        self._set(model)
        self.save_choice(self._host.thread())
        source = self._agent() or model
        name = str(getattr(source, "name", "") or "")
        offline = bool(getattr(source, "offline", False))
        self._host.events.emit(ModelChanged(name, offline, self._choices.id_of(model)))
        self._host.save()

    def save_choice(self, thread: Thread) -> None:
        """The thread keeps the listed model it uses (restored when shown again)."""
        choice = self.choice
        if choice is not None and thread.metadata.get(SAVED_CHOICE) != choice:
            thread.metadata[SAVED_CHOICE] = choice

    def _set(self, model: Model) -> None:
        self.current = model
        if all(used is not model for used in self.used):
            self.used.append(model)

    def close(self) -> None:
        """Close the HTTP clients the models used made (their ``close()``)."""
        for model in self.used:
            close_owned(model)

    def restore(self, thread: Thread, *, announce: bool = True) -> None:
        """Use the listed model ``thread`` saved, when there is one (``announce``:
        tell the views; not while the runtime is being made). A model that
        cannot be made now leaves the one in use (logged)."""
        saved = self._choices.saved(thread.metadata)
        if saved is None or saved == self.choice:
            return
        try:
            if announce:
                self.choose(saved)
            else:
                self._set(self._choices.build(saved, self.current))
        except ValueError:
            logger.warning("the thread's model %r cannot be used now", saved, exc_info=True)
