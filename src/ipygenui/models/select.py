"""``resolve_model``: the model a runtime uses when the user names none."""

from __future__ import annotations

import os

from .base import Model

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


def resolve_model(model: Model | None) -> Model:
    """``model`` itself; or OpenAI when ``OPENAI_API_KEY`` is set (the model named by
    ``OPENAI_MODEL``, default gpt-4o-mini); else the offline demo."""
    if model is not None:
        if not callable(getattr(model, "stream", None)):
            raise TypeError(f"model must have a stream(request) method, got {model!r}")
        return model
    if os.environ.get("OPENAI_API_KEY"):
        from .openai import OpenAIModel

        return OpenAIModel(os.environ.get("OPENAI_MODEL") or DEFAULT_OPENAI_MODEL)
    from .demo import DemoModel

    return DemoModel()
