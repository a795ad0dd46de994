"""Counting a model's tokens: its own tokenizer where one is installed, else an estimate.

OpenAI models are counted with ``tiktoken`` (the ``ipygenui[tokens]`` extra,
imported only here and only when asked). Its encodings are files it downloads
on first use, which an offline kernel cannot do: an encoding that does not
load, or a model ``tiktoken`` does not know, or any other provider's model,
is counted as the offline demo counts (about four characters a token,
``models/token_estimate.py``), and the counter says that it is an estimate.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._internal.install_hint import install_hint
from ..models.token_estimate import CHARS_PER_TOKEN, text_tokens

__all__ = ["TokenCounter", "model_name_of", "token_counter"]

logger = logging.getLogger("ipygenui")

_OPENAI_PROVIDERS = ("openai", "openai-responses", "azure")


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of a text, and says how."""

    tokenizer: str
    """``"tiktoken:o200k_base"``, or ``"estimate (~4 chars/token)"``."""
    estimated: bool
    """True when the count is the ~4 characters a token estimate, not a tokenizer's."""
    count: Callable[[str], int]
    note: str = ""
    """Why it is an estimate, when it is one."""


ESTIMATE = f"estimate (~{CHARS_PER_TOKEN} chars/token)"


def model_name_of(model: Any) -> tuple[str | None, str | None]:
    """``(provider, model name)`` of a model or a ``"provider:model"`` name;
    a demo model's ``price_ref`` names what it stands for."""
    spec = model if isinstance(model, str) else getattr(model, "price_ref", None)
    if not isinstance(spec, str) or not spec:
        spec = getattr(model, "spec", None)
    if not isinstance(spec, str) or ":" not in spec:
        return None, None
    provider, _, name = spec.strip().partition(":")
    return provider, name or None


def _estimate(note: str) -> TokenCounter:
    return TokenCounter(ESTIMATE, True, text_tokens, note)


@functools.cache
def _encoding(name: str) -> Any:
    """The tiktoken encoding ``name``, or an ``<name>_offline`` one a package
    ships (its data checked against tiktoken's own hash); None if neither loads."""
    import tiktoken

    for candidate in (name, f"{name}_offline"):
        if candidate != name and candidate not in tiktoken.list_encoding_names():
            continue
        try:
            return tiktoken.get_encoding(candidate)
        except Exception:  # no network for its download, a broken cache
            logger.debug("tiktoken encoding %s did not load", candidate, exc_info=True)
    return None


def token_counter(model: Any = None) -> TokenCounter:
    """The best counter for ``model`` (a model, a ``"provider:model"`` name or None)."""
    provider, name = model_name_of(model)
    if provider not in _OPENAI_PROVIDERS or name is None:
        return _estimate("no tokenizer for this model is available here")
    try:
        import tiktoken
    except ImportError:
        return _estimate(f"tiktoken is not installed ({install_hint('tokens')})")
    try:
        encoding_name = tiktoken.encoding_name_for_model(name)
    except KeyError:
        return _estimate(f"tiktoken does not know the model {name!r}")
    encoding = _encoding(encoding_name)
    if encoding is None:
        return _estimate(f"tiktoken could not load {encoding_name} (offline?)")
    return TokenCounter(
        f"tiktoken:{encoding_name}",
        False,
        lambda text: len(encoding.encode(text, disallowed_special=())),
    )
