"""Checks of the arguments ``Runtime`` and ``Chat`` take, done before anything is built.

A wrong type used to fail deep inside (``'<' not supported between 'str'
and 'int'`` for ``max_steps="3"``) or not at all (``instructions=123`` was
sent to the model as is). Each check here names the constructor, the
argument, what it must be and what came instead::

    Runtime(max_steps=...) must be an int >= 1, got '3' (str)
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._internal.sanitize import clean_text
from ..components.component import Component
from ..components.registry import Registry
from ..messages import Thread
from ..models.select import split_name
from ..tools import Tool
from ._model_choices import choice_id

__all__ = [
    "check_model",
    "check_runtime_arguments",
    "check_type",
    "described",
    "renamed_attribute",
    "renamed_method",
    "take_renamed",
    "warn_renamed",
]

RENAMED_KEYWORDS = {"restore_approvals": "restore_always_allowed"}
"""Old keyword -> its new name: the old one is taken for one release, with a
``DeprecationWarning``."""


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is now ``new`` (``stacklevel``: the caller's caller, the user's line)."""
    warnings.warn(
        f"{old} is renamed {new}; the old name goes in a later release",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


class renamed_attribute:
    """An attribute kept under its old name for one release: reading or setting
    it warns and goes to ``new`` (``state = renamed_attribute("agent_state")``)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.old = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.old, self.new = f"{owner.__name__}.{name}", f"{owner.__name__}.{self.new}"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        warn_renamed(self.old, self.new)
        return getattr(instance, self.new.rpartition(".")[2])

    def __set__(self, instance: Any, value: Any) -> None:
        warn_renamed(self.old, self.new)
        setattr(instance, self.new.rpartition(".")[2], value)


class renamed_method(renamed_attribute):
    """A method kept under its old name for one release: calling it warns and
    calls ``new`` (``set_state = renamed_method("set_agent_state")``)."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        method = getattr(instance, self.new.rpartition(".")[2])

        def old_name(*args: Any, **kwargs: Any) -> Any:
            warn_renamed(self.old, self.new)
            return method(*args, **kwargs)

        return old_name


def take_renamed(
    owner: str, arguments: Mapping[str, Any], *, stacklevel: int = 4
) -> dict[str, Any]:
    """``arguments`` with each old keyword (``RENAMED_KEYWORDS``) under its new
    name, warned; an old keyword that is None was not given. Giving both a
    true new keyword and the old one is a ``TypeError``."""
    taken = dict(arguments)
    for old, new in RENAMED_KEYWORDS.items():
        if old not in taken:
            continue
        value = taken.pop(old)
        if value is None:
            continue
        warn_renamed(f"{owner}({old}=...)", f"{new}=", stacklevel=stacklevel)
        if taken.get(new):
            raise TypeError(f"{owner}() got {old}= and {new}=: give {new}= only")
        taken[new] = value
    return taken


def described(value: Any) -> str:
    """``'3' (str)``, ``the function 'f'``: what a message says came instead."""
    if isinstance(value, Tool):
        return f"the tool {value.name!r}"
    if callable(value) and hasattr(value, "__name__") and not isinstance(value, type):
        return f"the function {value.__name__!r}"
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} ({type(value).__name__})"


def check_type(
    owner: str, name: str, value: Any, kinds: type | tuple[type, ...], wanted: str
) -> None:
    """Raise ``TypeError`` unless ``value`` is one of ``kinds`` (described as ``wanted``)."""
    if not isinstance(value, kinds):
        raise TypeError(f"{owner}({name}=...) must be {wanted}, got {described(value)}")


def check_runtime_arguments(
    owner: str, arguments: Mapping[str, Any], *, also: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``arguments`` (``Runtime``'s keywords) checked; ``tools`` and ``components``
    come back as lists, so an iterator passed in is read once.

    Raises ``TypeError`` for a wrong type or an unknown keyword, ``ValueError``
    for a wrong value of the right type (``max_steps=0``). ``also``: the owner's
    own keywords, listed with the others when one is unknown.
    """
    arguments = take_renamed(owner, arguments, stacklevel=5)
    unknown = [name for name in arguments if name not in _CHECKS]
    if unknown:
        raise TypeError(
            f"{owner}() got an unexpected keyword argument {unknown[0]!r}; "
            f"it takes {', '.join((*_CHECKS, *also))}"
        )
    checked = {
        name: _CHECKS[name](owner, value)
        for name, value in arguments.items()
        if not (name == "model" and _listed_id(value, arguments.get("models")))
    }
    if "model" in arguments and "model" not in checked:  # an id of models=, any model's name
        checked["model"] = arguments["model"]
    return checked


def _listed_id(value: Any, models: Any) -> bool:
    """Whether ``value`` names a model of the ``models`` list by its id (an
    iterator is left for the models check to read)."""
    if not isinstance(value, str) or not isinstance(models, list | tuple):
        return False
    return value.strip() in {choice_id(m) for m in models if m is not None}


def check_model(owner: str, value: Any) -> Any:
    """``value`` as ``model=`` takes it (a model, a ``"provider:model"`` name or
    None), with the same errors: what ``rt.model = ...`` is checked by."""
    return _model(owner, value)


def _model(owner: str, value: Any) -> Any:
    if isinstance(value, str):
        split_name(value)  # a clear error for a name without a provider
        return value
    if value is not None and not callable(getattr(value, "stream", None)):
        raise TypeError(
            f"{owner}(model=...) must be a model (an object with a stream(request) method, "
            f"e.g. gu.OpenAIModel), a 'provider:model' name or None, got {described(value)}"
        )
    return value


def _models(owner: str, value: Any) -> list[Any] | None:
    """The models a picker offers: names and model objects, each once."""
    if value is None:
        return None
    items = _listed(owner, "models", value)
    if not items:
        raise ValueError(f"{owner}(models=...) must list at least one model, or be None")
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        if item is None:
            raise TypeError(f"{owner}(models=...) item {index} is None, not a model")
        try:
            _model(owner, item)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{owner}(models=...) item {index}: {exc}") from None
        key = choice_id(item)
        if key in seen:
            raise ValueError(
                f"{owner}(models=...) lists {key!r} twice (items {seen[key]} and {index})"
            )
        seen[key] = index
    return items


def _listed(owner: str, name: str, value: Any) -> list[Any]:
    if isinstance(value, Registry):
        raise TypeError(
            f"{owner}({name}=...) takes a list, got a Registry: "
            "pass tools=registry.tools(), components=registry.components()"
        )
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        single = getattr(value, "name", None) or getattr(value, "__name__", None)
        hint = f": write {name}=[{single}]" if isinstance(single, str) else ""
        raise TypeError(f"{owner}({name}=...) takes a list, got {described(value)}{hint}")
    return list(value)


def _tools(owner: str, value: Any) -> list[Any]:
    items = _listed(owner, "tools", value)
    for index, item in enumerate(items):
        if isinstance(item, Component):
            raise TypeError(
                f"{owner}(tools=...) item {index} is the component {item.name!r}: "
                "pass components in components="
            )
        if not callable(item) and not callable(getattr(item, "as_tools", None)):
            raise TypeError(  # a Tool is callable; gu.MCPTools gives its tools by as_tools()
                f"{owner}(tools=...) item {index} must be a tool, a function or a tool "
                f"source such as gu.MCPTools, "
                f"got {described(item)}"
            )
    return items


def _components(owner: str, value: Any) -> list[Any]:
    items = _listed(owner, "components", value)
    for index, item in enumerate(items):
        if not isinstance(item, Component):
            hint = "; pass functions and tools in tools=" if callable(item) else ""
            raise TypeError(
                f"{owner}(components=...) item {index} must be a gu.Component "
                f"(or made with @gu.component), got {described(item)}{hint}"
            )
    return items


def _optional_str(name: str) -> Callable[[str, Any], Any]:
    def check(owner: str, value: Any) -> Any:
        if value is not None:
            check_type(owner, name, value, str, "a str or None")
        return value

    return check


def _flag(name: str) -> Callable[[str, Any], bool]:
    def check(owner: str, value: Any) -> bool:
        check_type(owner, name, value, bool, "True or False")
        return bool(value)

    return check


def _optional_flag(name: str) -> Callable[[str, Any], bool | None]:
    def check(owner: str, value: Any) -> bool | None:
        if value is None:
            return None
        check_type(owner, name, value, bool, "True, False or None")
        return bool(value)

    return check


def _persist(owner: str, value: Any) -> Any:
    if value is None:
        return None
    check_type(owner, "persist", value, (str, os.PathLike), "a path (str or os.PathLike) or None")
    if not os.fspath(value):
        raise ValueError(f"{owner}(persist=...) must not be empty: give a file path")
    return value  # a directory (or a path ending in "/") keeps several threads, one file each


def _max_steps(owner: str, value: Any) -> int:
    wanted = f"{owner}(max_steps=...) must be an int >= 1, got {described(value)}"
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(wanted)
    if value < 1:
        raise ValueError(wanted)
    return value


def _positive_or_none(owner: str, name: str, value: Any, kinds: Any, what: str) -> Any:
    """``value`` when it is None or a positive finite number of ``kinds``."""
    wanted = f"{owner}({name}=...) must be {what} or None, got {described(value)}"
    if value is None:
        return None
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise TypeError(wanted)
    if (isinstance(value, float) and not math.isfinite(value)) or value <= 0:
        raise ValueError(wanted)
    return value


def _max_run_seconds(owner: str, value: Any) -> float | None:
    seconds = _positive_or_none(
        owner, "max_run_seconds", value, int | float, "a positive number of seconds"
    )
    return None if seconds is None else float(seconds)


def _max_result_chars(owner: str, value: Any) -> int | None:
    chars: int | None = _positive_or_none(
        owner, "max_result_chars", value, int, "a positive int (characters)"
    )
    return chars


def _starters(owner: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    items = _listed(owner, "starters", value)
    for index, item in enumerate(items):
        if not isinstance(item, str) or not item.strip():
            raise TypeError(
                f"{owner}(starters=...) item {index} must be a non-empty str (a prompt), "
                f"got {described(item)}"
            )
    return [clean_text(item) for item in items]


def _agent(owner: str, value: Any) -> Any:
    if value is not None and not callable(getattr(value, "run", None)):
        raise TypeError(
            f"{owner}(agent=...) must be an agent such as gu.AGUIAgent(url), not {described(value)}"
        )
    return value


def _thread(owner: str, value: Any) -> Any:
    if value is not None:
        check_type(owner, "thread", value, Thread, "a gu.Thread or None")
    return value


def _data(owner: str, value: Any) -> Any:
    if value is None or isinstance(value, bool | Mapping):
        return value
    raise TypeError(
        f"{owner}(data=...) must be a dict of name -> object, True (the notebook's "
        f"DataFrames, Series and arrays) or None, got {described(value)}"
    )


_CHECKS: dict[str, Callable[[str, Any], Any]] = {
    "model": _model,
    "models": _models,
    "tools": _tools,
    "components": _components,
    "instructions": _optional_str("instructions"),
    "suggestions": _optional_flag("suggestions"),
    "persist": _persist,
    "max_steps": _max_steps,
    "max_run_seconds": _max_run_seconds,
    "thread": _thread,
    "tool_choice": _optional_str("tool_choice"),
    "max_result_chars": _max_result_chars,
    "restore_always_allowed": _flag("restore_always_allowed"),
    "starters": _starters,
    "agent": _agent,
    "data": _data,
}
