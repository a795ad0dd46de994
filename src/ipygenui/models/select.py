"""``model`` and ``resolve_model``: a model from a ``"provider:model"`` name,
or the one a runtime uses when the user names none.

``"openai:<model>"`` is our own :class:`~ipygenui.models.openai.OpenAIModel`
(the fast path for chat completions); ``"demo"`` the offline demo model; any
other ``provider:model`` name is pydantic-ai's (``anthropic:``, ``google-gla:``,
``openai-responses:``, ``groq:``, ``mistral:``, ``bedrock:``, ``deepseek:``,
``openrouter:``, ``ollama:`` ...), streamed through its direct model-request
API by :class:`~ipygenui.models.providers.ProviderModel` (the
``ipygenui[providers]`` extra, imported only then).
"""

from __future__ import annotations

import os
from typing import Any

from .base import Model

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"

DEMO = "demo"
"""The name of the offline demo model."""


def split_name(name: str) -> tuple[str, str]:
    """``("provider", "model")`` from ``"provider:model"``; a clear error otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"a model name is a string like 'openai:gpt-4o-mini', got {name!r}")
    if name.strip() == DEMO:
        return DEMO, ""
    provider, sep, model_name = name.strip().partition(":")
    if not sep or not provider or not model_name:
        guess = f"'openai:{name.strip()}'" if not sep and name.strip() else "'openai:gpt-4o-mini'"
        raise ValueError(
            f"model name {name!r} needs a provider: write 'provider:model', such as {guess}, "
            "'anthropic:claude-sonnet-4-5' or 'google-gla:gemini-2.5-flash'"
        )
    return provider, model_name


def model(
    name: str, *, base_url: str | None = None, api_key: str | None = None, **settings: Any
) -> Model:
    """The model named ``"provider:model"``, ready to pass as ``model=``.

    ``base_url`` and ``api_key`` go to the provider's client (a gateway, a
    proxy, a local server); ``settings`` are the request's model settings
    (``temperature=``, ``max_tokens=`` ...).
    """
    provider, model_name = split_name(name)
    if provider == DEMO:
        from .demo import DemoModel

        # its other settings mean nothing offline; a price_ref prices its estimates
        return DemoModel(price_ref=settings.get("price_ref"))
    if provider == "openai":
        from .openai import OpenAIModel

        return OpenAIModel(model_name, base_url=base_url, api_key=api_key, **settings)
    from .providers import ProviderModel

    return ProviderModel(name, base_url=base_url, api_key=api_key, **settings)


ENV_MODELS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("ANTHROPIC_API_KEY",), "anthropic:claude-sonnet-4-5"),
    (("GEMINI_API_KEY", "GOOGLE_API_KEY"), "google-gla:gemini-2.5-flash"),
    (("GROQ_API_KEY",), "groq:openai/gpt-oss-120b"),
    (("MISTRAL_API_KEY",), "mistral:mistral-large-latest"),
    (("OPENROUTER_API_KEY",), "openrouter:anthropic/claude-sonnet-4.5"),
)
"""After ``OPENAI_API_KEY``: the model used when one of these keys is set (the
first found), through :class:`~ipygenui.models.providers.ProviderModel`."""

PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "openai-responses": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google-gla": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
}
"""The environment variables a hosted provider's name needs one of (a
provider not listed, such as ``ollama:``, needs none)."""


def missing_key(name: str) -> tuple[str, ...]:
    """The keys ``"provider:model"`` needs when none of them is set, else ``()``:
    known at once, before the provider's SDK is imported."""
    keys = PROVIDER_KEYS.get(name.partition(":")[0].strip().lower(), ())
    return () if any(os.environ.get(k) for k in keys) else keys


def resolve_model(chosen: Model | str | None) -> Model:
    """``chosen`` itself (a model, or a ``"provider:model"`` name); or, when
    none is named, the provider whose key is in the environment: OpenAI for
    ``OPENAI_API_KEY`` (the model named by ``OPENAI_MODEL``, default
    gpt-4o-mini), else Claude for ``ANTHROPIC_API_KEY``, Gemini for
    ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY``, then Groq, Mistral, OpenRouter
    (:data:`ENV_MODELS`; these need the ``ipygenui[providers]`` extra); else
    the offline demo. The model's ``name`` tells the header which."""
    if isinstance(chosen, str):
        return model(chosen)
    if chosen is not None:
        if not callable(getattr(chosen, "stream", None)):
            raise TypeError(f"model must have a stream(request) method, got {chosen!r}")
        return chosen
    if os.environ.get("OPENAI_API_KEY"):
        from .openai import OpenAIModel

        return OpenAIModel(os.environ.get("OPENAI_MODEL") or DEFAULT_OPENAI_MODEL)
    for keys, name in ENV_MODELS:
        found = next((os.environ[k] for k in keys if os.environ.get(k)), None)
        if found:
            from .providers import ProviderModel

            return ProviderModel(name, api_key=found)
    from .demo import DemoModel

    return DemoModel()
