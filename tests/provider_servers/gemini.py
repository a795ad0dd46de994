"""A local Gemini API (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``).

Frames and shapes are those of the recordings
``recordings/gemini_function_call_signature.sse`` (a whole-argument
``functionCall`` part carrying its ``thoughtSignature``, then a final chunk
with ``finishReason``) and ``recordings/gemini_thought_parts.sse``
(``thought: true`` text parts, ``usageMetadata.thoughtsTokenCount``): each
chunk ``data: {"candidates": [...], "usageMetadata": {...}, "modelVersion",
"responseId"}`` ending in ``\\r\\n\\r\\n``. Thought parts stream only when the
request asks for them (``thinkingConfig.includeThoughts``), as on the real API.

The rules it enforces, with Gemini's real 400 bodies (``recordings/SOURCES.md``):

- in the current turn (after the last user text), the first ``functionCall``
  part of each model step must carry its ``thoughtSignature``: "Function call
  is missing a thought_signature in functionCall parts...";
- a signature must be one this server issued, or the documented dummy
  ``skip_thought_signature_validator``: else "Corrupted thought signature.".
"""

from __future__ import annotations

import base64
import copy
import itertools
import json
from collections.abc import Iterator
from typing import Any

from ._http import Answer, ProviderServer, Turn, pieces, recorded_events

_RECORDED_CHUNK = recorded_events("gemini_function_call_signature.sse")[0]

MISSING_SIGNATURE = (
    "Function call is missing a thought_signature in functionCall parts. This is required for "
    "tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {position}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
CORRUPTED_SIGNATURE = "Corrupted thought signature."
DUMMY_SIGNATURE = b"skip_thought_signature_validator"
"""Accepted in place of a real signature (Gemini's documentation, thought-signatures FAQ)."""


def error_body(message: str) -> dict[str, Any]:
    return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}


def decode_signature(text: str) -> bytes:
    """A signature as the SDK sends it (URL-safe base64) or as the API does (standard)."""
    text = text.replace("+", "-").replace("/", "_")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _field(part: dict[str, Any], camel: str, snake: str) -> Any:
    return part.get(camel, part.get(snake))


class GeminiServer(ProviderServer):
    name = "gemini"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.signatures: set[bytes] = set()
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def answer(self, path: str, request: dict[str, Any], turn: Turn) -> Answer:
        route = path.split("?")[0]
        if "/models/" not in route or not route.endswith(":streamGenerateContent"):
            return Answer(404, {"error": {"code": 404, "message": f"no route {path}"}})
        refusal = self.refusal(request)
        if refusal is not None:
            return Answer(400, error_body(refusal))
        model = route.rsplit("/", 1)[1].split(":")[0]
        config = (request.get("generationConfig") or {}).get("thinkingConfig") or {}
        thoughts = bool(_field(config, "includeThoughts", "include_thoughts"))
        return Answer(frames=self.chunks(turn, model, thoughts))

    def continues_tool_loop(self, request: dict[str, Any]) -> bool:
        contents = request.get("contents") or [{}]
        parts = contents[-1].get("parts") or []
        return any(_field(p, "functionResponse", "function_response") for p in parts)

    def refusal(self, request: dict[str, Any]) -> str | None:
        contents = request.get("contents") or []
        for content in contents:
            for part in content.get("parts") or []:
                signature = _field(part, "thoughtSignature", "thought_signature")
                if signature is None:
                    continue
                raw = decode_signature(signature)
                if raw != DUMMY_SIGNATURE and raw not in self.signatures:
                    return CORRUPTED_SIGNATURE
        turn_start = 0
        for index, content in enumerate(contents):
            parts = content.get("parts") or []
            if content.get("role", "user") == "user" and any("text" in p for p in parts):
                turn_start = index
        for index in range(turn_start, len(contents)):
            content = contents[index]
            if content.get("role") != "model":
                continue
            for part in content.get("parts") or []:
                call = _field(part, "functionCall", "function_call")
                if call is None:
                    continue
                if _field(part, "thoughtSignature", "thought_signature") is None:
                    return MISSING_SIGNATURE.format(name=call.get("name"), position=index + 1)
                break  # only a step's first call carries one
        return None

    def sign(self) -> str:
        raw = f"ipygenui-test-thought-signature:{next(self._ids)}".encode()
        self.signatures.add(raw)
        return base64.b64encode(raw).decode()

    def chunks(self, turn: Turn, model: str, thoughts: bool) -> Iterator[bytes]:
        response_id = f"test-response-{next(self._ids)}"
        visible = turn.output_tokens - turn.reasoning_tokens
        usage = {
            "promptTokenCount": turn.input_tokens,
            "candidatesTokenCount": visible,
            "totalTokenCount": turn.input_tokens + turn.output_tokens,
            "cachedContentTokenCount": turn.cached_tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": turn.input_tokens}],
            "thoughtsTokenCount": turn.reasoning_tokens,
        }

        def chunk(parts: list[dict[str, Any]], finish: bool = False) -> bytes:
            body = copy.deepcopy(_RECORDED_CHUNK)
            candidate = body["candidates"][0]
            candidate["content"]["parts"] = parts
            if finish:
                candidate["finishReason"] = "STOP"
            body.update(usageMetadata=usage, modelVersion=model, responseId=response_id)
            return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\r\n\r\n"

        if thoughts:
            for piece in pieces(turn.reasoning, turn.chunk_size):
                yield chunk([{"text": piece, "thought": True}])
        for piece in pieces(turn.text, turn.chunk_size):
            yield chunk([{"text": piece}])
        if turn.calls:
            parts: list[dict[str, Any]] = []
            for number, call in enumerate(turn.calls):  # whole arguments, one part per call
                part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.value()}}
                if number == 0:
                    part["thoughtSignature"] = self.sign()
                parts.append(part)
            yield chunk(parts)
        yield chunk([{"text": ""}], finish=True)
