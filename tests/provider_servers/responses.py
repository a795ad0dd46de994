"""A local OpenAI Responses API (``POST /v1/responses``, ``stream: true``).

Events and shapes are those of the recordings
``recordings/responses_reasoning_summary.sse`` (a reasoning item ``rs_...``
with ``encrypted_content`` and its summary deltas, a message item, usage with
``reasoning_tokens`` and ``cached_tokens``) and
``recordings/responses_function_call.sse`` (a ``function_call`` item ``fc_...``
streamed as ``function_call_arguments.delta`` / ``.done``): ``response.created``
and ``response.in_progress`` (the recorded response object, with our id and
model), an ``output_item.added`` / ``.done`` pair around each item, then
``response.completed`` holding every item and the usage. ``encrypted_content``
is sent only when the request includes ``reasoning.encrypted_content``.

The rules it enforces, with OpenAI's real 400 bodies (``recordings/SOURCES.md``):

- an input ``function_call`` or ``message`` item whose id this server issued
  after a reasoning item needs that reasoning item in the same input: "Item
  'fc_...' of type 'function_call' was provided without its required
  'reasoning' item: 'rs_...'.";
- an input reasoning item this server issued must be followed by an item it
  issued after it: "Item 'rs_...' of type 'reasoning' was provided without its
  required following item.".
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Iterator
from typing import Any

from ._http import Answer, ProviderServer, Turn, pieces, recorded_events

_RECORDED_RESPONSE = recorded_events("responses_reasoning_summary.sse")[0]["response"]

MISSING_REASONING = (
    "Item '{item}' of type '{kind}' was provided without its required 'reasoning' "
    "item: '{reasoning}'."
)
MISSING_FOLLOWER = (
    "Item '{reasoning}' of type 'reasoning' was provided without its required following item."
)


def error_body(message: str) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
    }


class ResponsesServer(ProviderServer):
    name = "responses"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.reasoning_of: dict[str, str] = {}
        """Each function_call / message item id issued -> the reasoning item id it needs."""
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def answer(self, path: str, request: dict[str, Any], turn: Turn) -> Answer:
        if not path.split("?")[0].endswith("/responses"):
            return Answer(404, {"error": {"message": f"no route {path}"}})
        refusal = self.refusal(request)
        if refusal is not None:
            return Answer(400, error_body(refusal))
        encrypted = "reasoning.encrypted_content" in (request.get("include") or [])
        return Answer(frames=self.events(turn, request.get("model", "gpt"), encrypted))

    def continues_tool_loop(self, request: dict[str, Any]) -> bool:
        items = request.get("input")
        return (
            isinstance(items, list)
            and bool(items)
            and (items[-1].get("type") == "function_call_output")
        )

    def refusal(self, request: dict[str, Any]) -> str | None:
        items = request.get("input")
        if not isinstance(items, list):
            return None
        sent_reasoning = {item.get("id") for item in items if item.get("type") == "reasoning"}
        for position, item in enumerate(items):
            kind = item.get("type", "message")
            if kind == "reasoning" and item.get("id") in self.reasoning_of.values():
                following = items[position + 1] if position + 1 < len(items) else {}
                if self.reasoning_of.get(following.get("id") or "") != item["id"]:
                    return MISSING_FOLLOWER.format(reasoning=item["id"])
            needed = self.reasoning_of.get(item.get("id") or "")
            if needed is not None and needed not in sent_reasoning:
                return MISSING_REASONING.format(item=item["id"], kind=kind, reasoning=needed)
        return None

    def _id(self, prefix: str) -> str:
        return f"{prefix}_test{next(self._ids):08d}"

    def events(self, turn: Turn, model: str, encrypted: bool) -> Iterator[bytes]:
        sequence = itertools.count()
        response = copy.deepcopy(_RECORDED_RESPONSE)
        response.update(id=self._id("resp"), model=model, output=[], usage=None)
        response["reasoning"] = {"effort": "medium", "summary": "detailed"}

        def event(kind: str, **fields: Any) -> bytes:
            payload = {"type": kind, "sequence_number": next(sequence), **fields}
            data = json.dumps(payload, separators=(",", ":"))
            return f"event: {kind}\ndata: {data}\n\n".encode()

        yield event("response.created", response=copy.deepcopy(response))
        yield event("response.in_progress", response=copy.deepcopy(response))
        output: list[dict[str, Any]] = []
        size = turn.chunk_size
        reasoning_id = None
        if turn.reasoning:
            reasoning_id = self._id("rs")
            index = len(output)
            item: dict[str, Any] = {"id": reasoning_id, "type": "reasoning", "summary": []}
            if encrypted:
                item["encrypted_content"] = f"gAAAAAB-test-{reasoning_id}"
            yield event("response.output_item.added", output_index=index, item=item)
            where = {"item_id": reasoning_id, "output_index": index, "summary_index": 0}
            empty = {"type": "summary_text", "text": ""}
            yield event("response.reasoning_summary_part.added", **where, part=empty)
            for piece in pieces(turn.reasoning, size):
                yield event("response.reasoning_summary_text.delta", **where, delta=piece)
            yield event("response.reasoning_summary_text.done", **where, text=turn.reasoning)
            summary = {"type": "summary_text", "text": turn.reasoning}
            yield event("response.reasoning_summary_part.done", **where, part=summary)
            item = {**item, "summary": [summary]}
            yield event("response.output_item.done", output_index=index, item=item)
            output.append(item)
        if turn.text:
            message_id = self._id("msg")
            if reasoning_id is not None:
                self.reasoning_of[message_id] = reasoning_id
            index = len(output)
            item = {
                "id": message_id,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            }
            yield event("response.output_item.added", output_index=index, item=item)
            where = {"item_id": message_id, "output_index": index, "content_index": 0}
            part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
            yield event("response.content_part.added", **where, part=part)
            for piece in pieces(turn.text, size):
                yield event("response.output_text.delta", **where, delta=piece, logprobs=[])
            yield event("response.output_text.done", **where, text=turn.text, logprobs=[])
            part = {**part, "text": turn.text}
            yield event("response.content_part.done", **where, part=part)
            item = {**item, "status": "completed", "content": [part]}
            yield event("response.output_item.done", output_index=index, item=item)
            output.append(item)
        for number, call in enumerate(turn.calls):
            call_item_id = self._id("fc")
            if reasoning_id is not None:
                self.reasoning_of[call_item_id] = reasoning_id
            index = len(output)
            item = {
                "type": "function_call",
                "id": call_item_id,
                "call_id": call.id or f"call_test{number:02d}{next(self._ids):06d}",
                "name": call.name,
                "arguments": "",
                "status": "in_progress",
            }
            yield event("response.output_item.added", output_index=index, item=item)
            where = {"item_id": call_item_id, "output_index": index}
            for piece in pieces(call.text(), size):
                yield event("response.function_call_arguments.delta", **where, delta=piece)
            yield event("response.function_call_arguments.done", **where, arguments=call.text())
            item = {**item, "arguments": call.text(), "status": "completed"}
            yield event("response.output_item.done", output_index=index, item=item)
            output.append(item)
        response.update(
            status="completed",
            output=output,
            usage={
                "input_tokens": turn.input_tokens,
                "input_tokens_details": {"cached_tokens": turn.cached_tokens},
                "output_tokens": turn.output_tokens,
                "output_tokens_details": {"reasoning_tokens": turn.reasoning_tokens},
                "total_tokens": turn.input_tokens + turn.output_tokens,
            },
        )
        yield event("response.completed", response=response)
