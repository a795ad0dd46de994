"""Our history (OpenAI chat format) ↔ pydantic-ai's messages, for ``ProviderModel``.

The history a ``ModelRequest`` carries is provider-neutral: text, tool calls,
tool results, and under the private keys ``_reasoning`` / ``_provider_data``
each provider's opaque data keyed by ``provider_key``. This module builds the
pydantic-ai ``ModelMessage`` list one model reads, putting back only that
model's own data (its key), and it describes what a streamed pydantic-ai part
must keep to be rebuilt (:func:`part_data`).

What is kept under a model's key (``"pydantic-ai:<provider>"``):

- on a ``ReasoningPart``: ``{"parts": [...], "response": {...}}``, one entry
  per pydantic-ai ``ThinkingPart`` the reasoning part holds (consecutive
  thinking blocks stream into one of ours): its ``id``, ``signature``,
  ``provider_name``, ``provider_details`` and, when there are several, its
  own ``content``;
- on a ``ToolCallPart``: the call's ``id``, ``provider_name`` and
  ``provider_details`` (Gemini's thought signature, a Responses item id),
  ``"response"``, and on a step's first call the step's text parts' data
  (``"text"``: a Responses message id, Gemini's signature on text) and,
  when the provider sent them in another order than history gives them
  (reasoning, text, calls), the kinds of the step's parts as it sent them
  (``"order"``: a Responses reasoning item must come before the item that
  followed it);
- ``"response"``: the response's ``provider_name``, ``provider_url``,
  ``canonical_system`` and ``provider_response_id``, which pydantic-ai reads
  to decide whether it may send signed or encrypted data back.

Data under any other key is never read: a thinking block signed by another
provider is left out (its text would be replayed as if it were this model's,
its signature refused), so a switch of provider mid-thread sends a request
valid for the new one. A thread file is untrusted: only these fields, of the
types pydantic-ai expects, are taken from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic_ai import messages as pm
from pydantic_ai.settings import ToolChoice
from pydantic_ai.tools import ToolDefinition

from .base import PROVIDER_DATA, REASONING

__all__ = [
    "RESPONSE_FIELDS",
    "part_data",
    "to_model_messages",
    "tool_choice_setting",
    "tool_definitions",
]

_PART_FIELDS = ("id", "signature", "provider_name", "provider_details")
RESPONSE_FIELDS = ("provider_name", "provider_url", "canonical_system", "provider_response_id")


def part_data(part: Any, fields: Sequence[str] = _PART_FIELDS) -> dict[str, Any]:
    """The fields of a pydantic-ai part that its provider wants back (those set)."""
    out: dict[str, Any] = {}
    for name in fields:
        value = getattr(part, name, None)
        if value is not None:
            out[name] = value
    return out


def _own(data: Any, key: str) -> dict[str, Any]:
    """This provider's entry of a part's ``provider_data`` (``{}`` when none)."""
    if not isinstance(data, dict):
        return {}
    own = data.get(key)
    return own if isinstance(own, dict) else {}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _details(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _checked(entry: Any) -> dict[str, Any]:
    """The part fields of a stored entry, those of the wrong type dropped."""
    if not isinstance(entry, dict):
        return {}
    out: dict[str, Any] = {}
    for name in ("id", "signature", "provider_name"):
        value = _str_or_none(entry.get(name))
        if value is not None:
            out[name] = value
    details = _details(entry.get("provider_details"))
    if details is not None:
        out["provider_details"] = details
    if "provider_name" not in out:  # pydantic-ai requires it beside an id or details
        out.pop("id", None)
        out.pop("provider_details", None)
        out.pop("signature", None)
    return out


def _response_fields(own: dict[str, Any]) -> dict[str, str]:
    response = own.get("response")
    if not isinstance(response, dict):
        return {}
    return {name: response[name] for name in RESPONSE_FIELDS if isinstance(response.get(name), str)}


def _thinking_parts(reasoning: Any, key: str) -> tuple[list[pm.ThinkingPart], dict[str, str]]:
    """The step's own thinking parts and the response fields they recorded."""
    parts: list[pm.ThinkingPart] = []
    response: dict[str, str] = {}
    for entry in reasoning if isinstance(reasoning, list) else ():
        if not isinstance(entry, dict):
            continue
        own = _own(entry.get("provider_data"), key)
        stored = own.get("parts")
        if not own or not isinstance(stored, list) or not stored:
            continue  # another provider's reasoning: never replayed to this one
        response = response or _response_fields(own)
        text = entry["text"] if isinstance(entry.get("text"), str) else ""
        for item in stored:
            fields = _checked(item)
            content = item.get("content") if isinstance(item, dict) else None
            if len(stored) > 1 and isinstance(content, str):
                parts.append(pm.ThinkingPart(content, **fields))
            else:
                parts.append(pm.ThinkingPart(text if len(stored) == 1 else "", **fields))
    return parts, response


def _text_parts(content: Any, own_first_call: dict[str, Any]) -> list[pm.TextPart]:
    """The step's text, with the data its text parts had when this provider wrote it."""
    text = _content_text(content)
    stored = own_first_call.get("text")
    if isinstance(stored, list) and stored:
        if len(stored) == 1:
            return [pm.TextPart(text, **_checked(stored[0]))] if text else []
        pieces = [e.get("content") if isinstance(e, dict) else None for e in stored]
        if all(isinstance(p, str) for p in pieces) and "".join(pieces) == text:  # type: ignore[arg-type]
            return [
                pm.TextPart(piece, **_checked(entry))  # type: ignore[arg-type]
                for piece, entry in zip(pieces, stored, strict=True)
            ]
    return [pm.TextPart(text)] if text else []


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _response(entry: dict[str, Any], key: str) -> pm.ModelResponse | None:
    calls = [c for c in entry.get("tool_calls") or () if isinstance(c, dict)]
    thinking, response = _thinking_parts(entry.get(REASONING), key)
    first_own = _own(calls[0].get(PROVIDER_DATA), key) if calls else {}
    parts: list[pm.ModelResponsePart] = [*thinking, *_text_parts(entry.get("content"), first_own)]
    for call in calls:
        own = _own(call.get(PROVIDER_DATA), key)
        response = response or _response_fields(own)
        function = call.get("function") or {}
        fields = _checked(own)
        fields.pop("signature", None)
        parts.append(
            pm.ToolCallPart(
                str(function.get("name") or "unknown"),
                str(function.get("arguments") or "{}"),
                str(call.get("id") or ""),
                **fields,
            )
        )
    if not parts:
        return None
    parts = _in_order(parts, first_own.get("order"))
    return pm.ModelResponse(parts, **response)  # type: ignore[arg-type]


_KINDS: dict[str, type[Any]] = {
    "thinking": pm.ThinkingPart,
    "text": pm.TextPart,
    "call": pm.ToolCallPart,
}


def _in_order(parts: list[pm.ModelResponsePart], order: Any) -> list[pm.ModelResponsePart]:
    """``parts`` in the order the provider sent them (``order``: their kinds),
    when it tells the same parts; else as they are (reasoning, text, calls)."""
    if not isinstance(order, list) or len(order) != len(parts):
        return parts
    queues: dict[str, list[pm.ModelResponsePart]] = {kind: [] for kind in _KINDS}
    for part in parts:
        kind = next(k for k, cls in _KINDS.items() if isinstance(part, cls))
        queues[kind].append(part)
    if any(order.count(kind) != len(queue) for kind, queue in queues.items()):
        return parts  # not the parts it describes (an edited or a forged file)
    return [queues[kind].pop(0) for kind in order]


def _user_part(content: Any) -> pm.UserPromptPart:
    if not isinstance(content, list):
        return pm.UserPromptPart(content if isinstance(content, str) else str(content or ""))
    items: list[pm.UserContent] = []
    for piece in content:
        if not isinstance(piece, dict):
            continue
        if piece.get("type") == "text":
            items.append(str(piece.get("text", "")))
        elif piece.get("type") == "image_url":
            url = str((piece.get("image_url") or {}).get("url", ""))
            if url.startswith("data:"):
                items.append(pm.BinaryContent.from_data_uri(url))
            elif url:
                items.append(pm.ImageUrl(url))
    return pm.UserPromptPart(items)


def to_model_messages(messages: Iterable[dict[str, Any]], key: str) -> list[pm.ModelMessage]:
    """Our chat-format history as pydantic-ai messages, with ``key``'s provider data only.

    System, user and tool entries in a row make one ``ModelRequest``; each
    assistant entry (a model step) one ``ModelResponse``.
    """
    out: list[pm.ModelMessage] = []
    request: list[pm.ModelRequestPart] = []
    names: dict[str, str] = {}  # call id -> tool name, for the tool results
    for entry in messages:
        role = entry.get("role")
        if role == "assistant":
            response = _response(entry, key)
            if response is None:
                continue
            if request:
                out.append(pm.ModelRequest(request))
                request = []
            for part in response.parts:
                if isinstance(part, pm.ToolCallPart):
                    names[part.tool_call_id] = part.tool_name
            out.append(response)
        elif role in ("system", "developer"):
            request.append(pm.SystemPromptPart(_content_text(entry.get("content"))))
        elif role == "tool":
            call_id = str(entry.get("tool_call_id") or "")
            content = entry.get("content")
            request.append(
                pm.ToolReturnPart(
                    names.get(call_id, "unknown"),
                    content if isinstance(content, str) else json.dumps(content, default=str),
                    call_id,
                )
            )
        else:
            request.append(_user_part(entry.get("content")))
    if request:
        out.append(pm.ModelRequest(request))
    return out


def tool_definitions(tools: Iterable[dict[str, Any]]) -> list[ToolDefinition]:
    """OpenAI ``{"type": "function", "function": {...}}`` schemas as pydantic-ai's."""
    out = []
    for tool in tools:
        function = tool.get("function") or {}
        definition = ToolDefinition(
            name=str(function.get("name", "")),
            parameters_json_schema=function.get("parameters")
            or {"type": "object", "properties": {}},
            description=function.get("description"),
        )
        if function.get("strict") is not None:
            definition.strict = bool(function["strict"])
        out.append(definition)
    return out


def tool_choice_setting(choice: str | dict[str, Any]) -> ToolChoice:
    """Our ``tool_choice`` (OpenAI's) as pydantic-ai's setting; None: the default (auto)."""
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        return [str(name)] if name else None
    if choice in ("none", "required"):
        return choice  # type: ignore[return-value]
    return None
