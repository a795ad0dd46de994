"""A local Anthropic Messages API (``POST /v1/messages``, ``stream: true``).

The event sequence and shapes are those of the recordings
``recordings/anthropic_thinking_text.sse`` (thinking_delta, signature_delta,
text_delta, message_delta, message_stop) and
``recordings/anthropic_tool_use_input_json.sse`` (a tool_use block streamed
as input_json_delta): ``message_start`` (its message object is the recorded
one, with our id, model and usage), then one content block per thinking,
text and tool call, a ``ping`` after the first block starts, ``message_delta``
with the stop reason and usage, ``message_stop``.

Thinking streams only when the request enables it, as on the real API. The
rules it enforces, with Anthropic's real 400 bodies (``recordings/SOURCES.md``):

- with thinking enabled, a request continuing a tool loop (its last message
  carries a ``tool_result``) whose last assistant message does not start
  with a thinking block: "Expected `thinking` or `redacted_thinking`, but
  found `tool_use`...";
- a thinking block whose signature this server did not issue for exactly
  that thinking text (another provider's, or edited): "Invalid `signature`
  in `thinking` block".

Usage::

    with AnthropicServer() as server:
        server.script(Turn(reasoning="...", calls=[Call("add", {"a": 1})]))
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="k")
"""

from __future__ import annotations

import base64
import copy
import hashlib
import itertools
import json
from collections.abc import Iterator
from typing import Any

from ._http import Answer, ProviderServer, Turn, pieces, recorded_events

_RECORDED_START = recorded_events("anthropic_thinking_text.sse")[0]

MISSING_THINKING = (
    "messages.{position}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
INVALID_SIGNATURE = "messages.{position}.content.{block}: Invalid `signature` in `thinking` block"


def error_body(message: str) -> dict[str, Any]:
    """Anthropic's error envelope, as its API answers a 400."""
    return {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": message},
        "request_id": "req_011CUdL49e3Fu9bCKbWF6cXD",
    }


def _sse(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


class AnthropicServer(ProviderServer):
    name = "anthropic"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.signatures: dict[str, str] = {}
        """Each signature issued -> the thinking text it signs."""
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def answer(self, path: str, request: dict[str, Any], turn: Turn) -> Answer:
        if not path.split("?")[0].endswith("/v1/messages"):
            return Answer(404, {"type": "error", "error": {"type": "not_found_error"}})
        refusal = self.refusal(request)
        if refusal is not None:
            return Answer(400, error_body(refusal))
        thinking = (request.get("thinking") or {}).get("type") in ("enabled", "adaptive")
        return Answer(frames=self.events(turn, request.get("model", "claude"), thinking))

    def continues_tool_loop(self, request: dict[str, Any]) -> bool:
        messages = request.get("messages") or []
        return bool(messages) and _has_tool_result(messages[-1])

    def refusal(self, request: dict[str, Any]) -> str | None:
        """The error message of the rule ``request`` breaks, or None."""
        messages = request.get("messages") or []
        for position, message in enumerate(messages):
            if message.get("role") != "assistant" or isinstance(message.get("content"), str):
                continue
            for block_index, block in enumerate(message.get("content") or []):
                if block.get("type") != "thinking":
                    continue
                if self.signatures.get(block.get("signature", "")) != block.get("thinking"):
                    return INVALID_SIGNATURE.format(position=position, block=block_index)
        if (request.get("thinking") or {}).get("type") not in ("enabled", "adaptive"):
            return None
        if not messages or not _has_tool_result(messages[-1]):
            return None
        for position in range(len(messages) - 1, -1, -1):
            message = messages[position]
            if message.get("role") != "assistant":
                continue
            content = message.get("content")
            blocks = [{"type": "text"}] if isinstance(content, str) else content or [{}]
            found = blocks[0].get("type")
            if found not in ("thinking", "redacted_thinking"):
                return MISSING_THINKING.format(position=position, found=found)
            return None
        return None

    def sign(self, thinking: str) -> str:
        digest = hashlib.sha256(thinking.encode()).hexdigest()[:24]
        raw = f"ipygenui-test-signature:{next(self._ids)}:{digest}".encode()
        signature = base64.b64encode(raw).decode()
        self.signatures[signature] = thinking
        return signature

    def events(self, turn: Turn, model: str, thinking: bool) -> Iterator[bytes]:
        start = copy.deepcopy(_RECORDED_START)
        message = start["message"]
        message.update(model=model, id=f"msg_test{next(self._ids):06d}")
        message["usage"].update(
            input_tokens=turn.input_tokens - turn.cached_tokens,
            cache_read_input_tokens=turn.cached_tokens,
        )
        yield _sse(start)
        index = 0
        size = turn.chunk_size
        if thinking and turn.reasoning:
            block: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
            yield _sse({"type": "content_block_start", "index": index, "content_block": block})
            yield _sse({"type": "ping"})
            for piece in pieces(turn.reasoning, size):
                delta = {"type": "thinking_delta", "thinking": piece}
                yield _sse({"type": "content_block_delta", "index": index, "delta": delta})
            delta = {"type": "signature_delta", "signature": self.sign(turn.reasoning)}
            yield _sse({"type": "content_block_delta", "index": index, "delta": delta})
            yield _sse({"type": "content_block_stop", "index": index})
            index += 1
        if turn.text:
            block = {"type": "text", "text": ""}
            yield _sse({"type": "content_block_start", "index": index, "content_block": block})
            for piece in pieces(turn.text, size):
                delta = {"type": "text_delta", "text": piece}
                yield _sse({"type": "content_block_delta", "index": index, "delta": delta})
            yield _sse({"type": "content_block_stop", "index": index})
            index += 1
        for number, call in enumerate(turn.calls):
            block = {
                "type": "tool_use",
                "id": call.id or f"toolu_test{number:02d}{next(self._ids):06d}",
                "name": call.name,
                "input": {},
            }
            yield _sse({"type": "content_block_start", "index": index, "content_block": block})
            for piece in ["", *pieces(call.text(), size)]:  # the first is "", as recorded
                delta = {"type": "input_json_delta", "partial_json": piece}
                yield _sse({"type": "content_block_delta", "index": index, "delta": delta})
            yield _sse({"type": "content_block_stop", "index": index})
            index += 1
        stop = {"stop_reason": "tool_use" if turn.calls else "end_turn", "stop_sequence": None}
        usage = {
            "input_tokens": turn.input_tokens - turn.cached_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": turn.cached_tokens,
            "output_tokens": turn.output_tokens,
        }
        yield _sse({"type": "message_delta", "delta": stop, "usage": usage})
        yield _sse({"type": "message_stop"})


def _has_tool_result(message: dict[str, Any]) -> bool:
    content = message.get("content")
    if message.get("role") != "user" or isinstance(content, str):
        return False
    return any(block.get("type") == "tool_result" for block in content or [])
