"""The Responses API's input items, each with its ``type`` said, for
``openai-responses:`` (``providers.py``).

pydantic-ai sends a message as ``{"role": ..., "content": "text"}``: OpenAI
reads it, but a strict server does not guess. llama.cpp's refuses an item
without a ``type`` ("Cannot determine type of 'item'") and an assistant
message whose content is not ``output_text`` parts. So every message goes
as ``{"type": "message", "role": ..., "content": [parts]}``: a user's (or
system's) text as an ``input_text`` part, an assistant's as an
``output_text`` part with its (empty) ``annotations``, as pydantic-ai sends
an assistant message that has an item id.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["responses_model_class", "typed_items"]


def typed_items(items: list[Any]) -> list[Any]:
    """``items`` with every message typed and its text content in typed parts."""
    return [_typed(item) for item in items]


def _typed(item: Any) -> Any:
    if not isinstance(item, dict) or "role" not in item or item.get("type", "message") != "message":
        return item
    typed = {"type": "message", **item}
    content = item.get("content")
    if isinstance(content, str):
        if item["role"] == "assistant":
            typed["content"] = [{"type": "output_text", "text": content, "annotations": []}]
        else:
            typed["content"] = [{"type": "input_text", "text": content}]
    return typed


@functools.cache
def responses_model_class() -> type[Any]:
    """pydantic-ai's ``OpenAIResponsesModel`` sending typed items (made once,
    on first use: pydantic-ai is imported only when a provider model is made)."""
    from pydantic_ai.models.openai import OpenAIResponsesModel

    class TypedItemsResponsesModel(OpenAIResponsesModel):
        # the one builder of every Responses request's input (create, streamed
        # or not, over HTTP or a websocket, and the token count)
        async def _build_responses_request_params(self, *args: Any, **kwargs: Any) -> Any:
            params = await super()._build_responses_request_params(*args, **kwargs)
            params.input = typed_items(params.input)
            return params

    return TypedItemsResponsesModel
