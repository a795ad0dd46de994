"""Thread → OpenAI chat messages, always valid for the chat API.

Rules that keep a request valid whatever state the thread is in:
- an assistant message is split into its model steps (``metadata["steps"]``),
  each becoming one assistant message followed by its tool messages;
- every tool call is answered by exactly one tool message, right after the
  assistant message that made it; a call with no result yet (interrupted) is
  answered with an error result so the model knows it did not run;
- arguments that are not a JSON object are sent as ``{}`` (the call's error
  result quotes the bad text); which they are is read from the call's parse
  (``ToolCallPart.parsed_args``), so a step's history parses nothing again;
- call ids are distinct within an assistant message (a thread saved before
  ids were made unique on ingest may repeat one: the repeat gets a suffix);
- a tool result longer than ``max_result_chars`` is cut there, with a notice
  saying how much was left out (the thread keeps the whole result);
- component state the user changed rides on the user message sent after
  it, as ``<component_state>`` blocks after the text (the system prompt
  tells the model to read them and never write them);
- provider data (``provider_data`` of a tool call or reasoning part: Gemini's
  thought signature, DeepSeek's reasoning) rides under the private keys
  :data:`PROVIDER_DATA` (on a tool call) and :data:`REASONING` (on the
  assistant message), keyed by provider; the model adapter picks its own
  provider's and drops every ``_`` key before sending (history is
  provider-neutral);
- a user message's attachments: text and data summaries as ``<attachment>``
  blocks after the text, images as image content parts (the content becomes
  a list of parts only when there is an image, so text-only servers are
  never sent one).
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .._internal.per_message import PerMessage
from .._internal.user_view import for_model
from ..messages import AttachmentPart, Message, ReasoningPart, TextPart, Thread, ToolCallPart
from .base import PROVIDER_DATA, REASONING

_DATA_URL = re.compile(r"data:image/[\w.+-]+;base64,[A-Za-z0-9+/=]*")

UNANSWERED = "This tool call has no result: it was interrupted before it ran."

DEFAULT_MAX_RESULT_CHARS = 20_000
"""Characters of one tool result the model reads by default (a 20 MB result
sent verbatim would overflow any context window and cost a fortune)."""


def step_ranges(message: Message) -> list[tuple[int, int]]:
    """Part index ranges [start, end) of the message's model steps.

    Uses ``metadata["steps"]`` written by the runtime; without it (a message
    built by hand) a new step starts wherever text follows a tool call.
    """
    steps = message.metadata.get("steps")
    n = len(message.parts)
    if steps:
        ranges = []
        for i, step in enumerate(steps):
            start = int(step.get("start", 0))
            end = step.get("end")
            if end is None:
                end = steps[i + 1].get("start", n) if i + 1 < len(steps) else n
            ranges.append((start, min(int(end), n)))
        if ranges and ranges[0][0] > 0:  # parts before the first recorded step
            ranges.insert(0, (0, ranges[0][0]))
        return ranges
    ranges, start, seen_call = [], 0, False
    for i, part in enumerate(message.parts):
        if isinstance(part, ToolCallPart):
            seen_call = True
        elif seen_call and not isinstance(part, ReasoningPart):
            ranges.append((start, i))
            start, seen_call = i, False
    ranges.append((start, n))
    return ranges


def _arguments(part: ToolCallPart) -> str:
    """The call's arguments as the model wrote them (the text itself, not
    written again), or ``{}`` when they are not a JSON object."""
    if not isinstance(part.parsed_args.value, dict):
        return "{}"
    return part.args_text.strip() or "{}"


def tool_result_content(part: ToolCallPart, max_chars: int | None = None) -> str:
    """The text of the tool message that answers ``part``, cut to ``max_chars``
    characters (plus a notice) when longer; ``None``: whole."""
    if not part.has_result:
        return json.dumps({"error": UNANSWERED})
    result: Any = for_model(part.result)  # a card's own rows are not for the model
    text = result if isinstance(result, str) else json.dumps(result, default=repr)
    if "data:image/" in text:  # a figure is for the user's eyes: base64 tells the model nothing
        text = _DATA_URL.sub("[image shown to the user]", text)
    return within_budget(text, max_chars)


def within_budget(text: str, max_chars: int | None) -> str:
    """``text``, or its first ``max_chars`` characters and how many were left out."""
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}\n[… {len(text) - max_chars:,} more characters not shown]"


def _distinct_ids(calls: Sequence[ToolCallPart]) -> list[str]:
    """The calls' ids for the wire, a repeated id made distinct with a suffix."""
    taken = {p.tool_call_id for p in calls}
    if len(taken) == len(calls):
        return [p.tool_call_id for p in calls]
    seen: set[str] = set()
    out: list[str] = []
    for part in calls:
        wire_id, n = part.tool_call_id, 1
        while wire_id in seen or (n > 1 and wire_id in taken):  # never another call's id
            n += 1
            wire_id = f"{part.tool_call_id}_{n}"
        seen.add(wire_id)
        out.append(wire_id)
    return out


def _call_entry(call_id: str, part: ToolCallPart) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": call_id,
        "type": "function",
        "function": {"name": part.tool_name or "unknown", "arguments": _arguments(part)},
    }
    if part.provider_data:
        entry[PROVIDER_DATA] = part.provider_data
    return entry


def assistant_messages(
    message: Message,
    parts_end: int | None = None,
    *,
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
) -> list[dict[str, Any]]:
    """One assistant message (plus its tool messages) per model step."""
    out: list[dict[str, Any]] = []
    end_limit = len(message.parts) if parts_end is None else parts_end
    for start, end in step_ranges(message):
        end = min(end, end_limit)
        if start >= end:
            continue
        parts = message.parts[start:end]
        text = "".join(p.text for p in parts if isinstance(p, TextPart))
        calls = [p for p in parts if isinstance(p, ToolCallPart) and not p.synthetic]
        if not text and not calls:
            continue
        entry: dict[str, Any] = {"role": "assistant", "content": text or None}
        ids = _distinct_ids(calls)
        if calls:
            entry["tool_calls"] = [
                _call_entry(call_id, p) for call_id, p in zip(ids, calls, strict=True)
            ]
            reasoning = [
                {"text": p.text, "provider_data": p.provider_data}
                for p in parts
                if isinstance(p, ReasoningPart) and p.provider_data
            ]
            if reasoning:
                entry[REASONING] = reasoning
        out.append(entry)
        out.extend(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": tool_result_content(p, max_result_chars),
            }
            for call_id, p in zip(ids, calls, strict=True)
        )
    return out


def to_openai_messages(
    thread: Thread | Iterable[Message],
    system: str | None = None,
    *,
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
) -> list[dict[str, Any]]:
    """The whole thread as chat messages, system prompt first."""
    messages = thread.messages if isinstance(thread, Thread) else list(thread)
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in messages:
        if message.role == "assistant":
            out.extend(assistant_messages(message, max_result_chars=max_result_chars))
        else:
            out.append({"role": message.role, "content": user_content(message)})
    return out


def user_content(message: Message) -> str | list[dict[str, Any]]:
    """A user message's content: its text, component states and attachments."""
    text = _content_with_state(message)
    attachments = message.attachments
    if not attachments:
        return text
    blocks = [text] if text else []
    images: list[dict[str, Any]] = []
    for part in attachments:
        if part.kind == "image" and part.data is not None:
            encoded = base64.b64encode(part.data).decode("ascii")
            url = f"data:{part.mime};base64,{encoded}"
            images.append({"type": "image_url", "image_url": {"url": url}})
            blocks.append(_attachment_block(part, "The image follows this text."))
        elif part.kind == "image":
            blocks.append(_attachment_block(part, "This image is no longer available."))
        else:
            blocks.append(_attachment_block(part, part.text or ""))
    joined = "\n\n".join(blocks)
    if not images:
        return joined
    return [{"type": "text", "text": joined}, *images]


def _attachment_block(part: AttachmentPart, body: str) -> str:
    ref = f' ref="{html.escape(part.ref)}"' if part.ref else ""
    notice = f"\n[{part.notice}]" if part.notice else ""
    return (
        f'<attachment name="{html.escape(part.name)}" kind="{part.kind}"{ref}>'
        f"{body}{notice}</attachment>"
    )


def _content_with_state(message: Message) -> str:
    states = message.metadata.get("component_state")
    catalogue = message.metadata.get(CATALOGUE_KEY)
    if not states and not catalogue:
        return message.text
    blocks = [
        f'<component_state component="{html.escape(entry["component"])}" '
        f'id="{html.escape(cid)}">{json.dumps(entry["state"], default=str)}</component_state>'
        for cid, entry in (states or {}).items()
    ]
    if catalogue:
        blocks.append(catalogue_block(catalogue))
    return f"{message.text}\n\n" + "\n".join(blocks)


CATALOGUE_KEY = "data_catalogue"
"""User message metadata: the data catalogue as it was when the message was sent."""


def catalogue_block(catalogue: Any) -> str:
    """The catalogue as the model reads it, after the user's text."""
    listed = json.dumps(catalogue, default=str, ensure_ascii=False)
    return (
        "<data_catalogue>Data in the notebook you can reference by name (pass a name "
        "where a tool or a component takes data, e.g. Table's data; never copy rows): "
        f"{html.escape(listed, quote=False)}</data_catalogue>"
    )


class InvalidHistory(AssertionError):
    """Raised by :func:`check_openai_history` with the rule that failed."""


def check_openai_history(messages: Sequence[dict[str, Any]]) -> None:
    """Raise ``InvalidHistory`` unless ``messages`` follows the chat API's tool rules.

    Every assistant tool call is answered by exactly one tool message among
    the tool messages that immediately follow it, and every tool message
    answers a call of the assistant message just before its block.
    """
    i = 0
    while i < len(messages):
        entry = messages[i]
        role = entry.get("role")
        if role not in ("system", "user", "assistant", "tool", "developer"):
            raise InvalidHistory(f"message {i}: unknown role {role!r}")
        if role == "tool":
            raise InvalidHistory(f"message {i}: tool message not preceded by its tool call")
        if role == "assistant":
            calls = entry.get("tool_calls") or []
            if not calls and entry.get("content") in (None, ""):
                raise InvalidHistory(f"message {i}: empty assistant message")
            ids = [c["id"] for c in calls]
            if len(set(ids)) != len(ids):
                raise InvalidHistory(f"message {i}: duplicate tool call ids {ids}")
            for call in calls:
                if not isinstance(json.loads(call["function"]["arguments"]), dict):
                    raise InvalidHistory(f"message {i}: arguments of {call['id']} not an object")
            answered: list[str] = []
            j = i + 1
            while j < len(messages) and messages[j].get("role") == "tool":
                answered.append(messages[j]["tool_call_id"])
                if not isinstance(messages[j].get("content"), str):
                    raise InvalidHistory(f"message {j}: tool content must be a string")
                j += 1
            if sorted(answered) != sorted(ids):
                raise InvalidHistory(
                    f"message {i}: tool calls {ids} answered by tool messages {answered}"
                )
            i = j
            continue
        i += 1


class HistoryCache:
    """:func:`to_openai_messages` kept incrementally, for one run loop: each
    message's chat messages are built once (see ``_internal/per_message.py``
    for what rebuilds them: an edit, a regenerate, a branch or thread switch,
    a change to a message not yet complete); another result budget rebuilds
    everything. The history is provider-neutral: each model adapter converts
    it to its own format from it.

    The entries are shared between requests: nothing may change them in place
    (the adapters copy what they rewrite).
    """

    def __init__(self) -> None:
        self._budget: int | None = DEFAULT_MAX_RESULT_CHARS
        self._cache = PerMessage(self._convert)
        self._flat: list[dict[str, Any]] = []
        self._ends: list[int] = []
        """The chat messages joined, and where each thread message's end in it
        (a turn joins only what is new)."""

    def _convert(self, message: Message) -> list[dict[str, Any]]:
        return to_openai_messages([message], max_result_chars=self._budget)

    @property
    def built(self) -> int:
        """Messages converted so far (what a test counts)."""
        return self._cache.computed

    def messages(
        self,
        messages: Sequence[Message],
        system: str | None = None,
        *,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        stop: int | None = None,
    ) -> list[dict[str, Any]]:
        """``to_openai_messages(messages[:stop], system, max_result_chars=...)``,
        built once (the thread's own list and a ``stop``, not a slice of it, lets
        a turn skip checking the messages before: ``per_message.py``)."""
        if max_result_chars != self._budget:
            self._cache.clear()
            self._budget = max_result_chars
        values = self._cache.values(messages, stop)
        keep = self._cache.kept
        flat, ends = self._flat, self._ends
        del ends[keep:], flat[ends[-1] if ends else 0 :]
        for i in range(keep, len(values)):  # by index: islice would step over the kept ones
            flat.extend(values[i])
            ends.append(len(flat))
        head = [{"role": "system", "content": system}] if system else []
        return head + flat
