"""Apply a model's deltas to the in-progress assistant message.

Each delta changes the message in place and returns the patch ops (see
``_internal/patch_ops.py``) that tell a view the same change. Work per delta is bounded by
the delta's size: text is appended, tool-call arguments are fed to an
incremental partial-JSON parser, never re-parsed from the start. That parse
is the only one: at the step's end its value (or its error) is recorded on
the part (``ToolCallPart.parsed_args``), which the tool phase, the history,
the widget and the decisions read instead of parsing ``args_text`` again.

A batch of deltas (what one network read brought, see
``models.base.BatchStreaming``) is applied as one change: runs of deltas that
extend the same part are joined first, so the batch costs one op, one parse
of the arguments' value and one standard-parameter split per part, not per
delta.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..._internal.partial_json import PartialJSONError, PartialJSONParser
from ..._internal.patch_ops import AppendOp, PatchOp, add_part_op, set_op
from ..._internal.sanitize import REPLACEMENT, clean_text, json_safe
from ..._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM, split_standard_arguments
from ...messages import (
    ARGS_STREAMING,
    Message,
    ParsedArgs,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    Usage,
    bounded_provider_data,
    new_id,
    parse_args_text,
)
from ...models.base import (
    FinishDelta,
    FinishReason,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    UsageDelta,
)
from ...tools import Tool

_MAYBE_UNSAFE = (
    re.compile(r"\\u[dD][89a-fA-F]"),  # an escaped surrogate, maybe a lone half
    re.compile(r"[0-9]{16}"),  # an integer JavaScript may misread
    re.compile(r"[eE]\+?[0-9]{3}"),  # a float past the double range: inf
)
"""What in a call's text can parse to a value ``json_safe`` would change (raw
lone surrogates never get here: ``_clean_call``). A text with none of these
parses to a safe value, so it is not written out again to be checked."""


class _Call:
    """Streaming state of one tool call: its part index and argument parser."""

    __slots__ = ("declared", "index", "parser")

    def __init__(self, index: int, declared: list[str] | None) -> None:
        self.index = index
        self.declared = declared
        self.parser: PartialJSONParser | None = PartialJSONParser()


def clean_arguments(
    value: Any, declared: list[str] | None
) -> tuple[dict[str, Any], str | None, str | None]:
    """(declared arguments, status message, completion message) from raw parsed args."""
    if not isinstance(value, dict):
        return {}, None, None
    if declared is None:  # unknown tool: keep everything but the standard parameters
        declared = [k for k in value if k not in (STATUS_PARAM, COMPLETION_PARAM)]
    return split_standard_arguments(value, declared)


class Accumulator:
    """Accumulates one model step (one streamed reply) into ``message``.

    ``taken_ids`` are the tool-call ids the thread already has: a call whose
    id is taken gets a fresh one (see :meth:`_unique_id`). They are read at
    the step's first call only (a reply in text reads none of a long thread).
    """

    def __init__(
        self, message: Message, tools: Mapping[str, Tool], taken_ids: Iterable[str] = ()
    ) -> None:
        self.message = message
        self.tools = tools
        self._taken_source: Iterable[str] | None = taken_ids
        self._taken_ids: set[str] = set()
        self.start = len(message.parts)
        self.usage = Usage()
        self.has_usage = False
        self.finish_reason: FinishReason | None = None
        self._calls: dict[int, _Call] = {}
        self._open: int | None = None
        """Index of the text/reasoning part that deltas of its kind extend."""
        self._pieces: dict[tuple[int, str], list[str]] = {}
        """Streamed text not yet joined into its part's field, by (part, field).

        ``part.text += delta`` copies the whole string on every delta (quadratic
        in a long reply); pieces are joined only when someone reads the message
        (:meth:`materialize`)."""
        self._held: tuple[type[TextPart] | type[ReasoningPart], str] | None = None
        """A high surrogate that ended the last text delta: the first half of a
        character the next delta may complete (a stream split inside a pair)."""

    @property
    def tool_call_parts(self) -> list[ToolCallPart]:
        parts = self.message.parts
        return [p for p in parts[self.start :] if isinstance(p, ToolCallPart)]

    def _add(self, part: TextPart | ReasoningPart | ToolCallPart) -> tuple[int, PatchOp]:
        self.message.parts.append(part)
        index = len(self.message.parts) - 1
        return index, add_part_op(index, part.model_dump(mode="json"))

    def _append(self, index: int, field: str, text: str) -> None:
        pieces = self._pieces.get((index, field))
        if pieces is None:
            pieces = self._pieces[(index, field)] = [getattr(self.message.parts[index], field)]
        pieces.append(text)

    def materialize(self) -> None:
        """Join the streamed pieces into the parts, so reads of the message are exact.

        Costs the length of the text joined; call it when the message is read
        (a snapshot, a save, the step's end), not per delta.
        """
        for (index, field), pieces in self._pieces.items():
            if len(pieces) > 1:
                joined = "".join(pieces)
                part = self.message.parts[index]
                setattr(part, field, joined)
                pieces[:] = [joined]
                if isinstance(part, ToolCallPart) and not part.args_complete:
                    # read mid-stream: no reader parses the unfinished text
                    part.record_parsed_args(ParsedArgs(joined, None, ARGS_STREAMING))

    def _open_is(self, kind: type[TextPart] | type[ReasoningPart]) -> bool:
        return self._open is not None and type(self.message.parts[self._open]) is kind

    def _extend(self, kind: type[TextPart] | type[ReasoningPart], text: str) -> list[PatchOp]:
        if self._open is not None:
            part = self.message.parts[self._open]
            if type(part) is kind:
                self._append(self._open, "text", text)
                # per delta: a literal typed as the op, no constructor call
                op: AppendOp = {"op": "append", "part": self._open, "field": "text", "value": text}
                return [op]
        index, added = self._add(kind(text=text))
        self._open = index
        return [added]

    def apply(self, delta: ModelDelta) -> list[PatchOp]:
        """Apply one delta; return the patch ops describing the change."""
        if isinstance(delta, TextDelta):
            return self._text(TextPart, delta.text) if delta.text else []
        if isinstance(delta, ReasoningDelta):
            ops = self._text(ReasoningPart, delta.text) if delta.text else []
            if delta.provider_data and not delta.text and not self._open_is(ReasoningPart):
                # reasoning without text (encrypted, redacted): a part of its own keeps its data
                ops += self._extend(ReasoningPart, "")
            if delta.provider_data and self._open is not None:
                part = self.message.parts[self._open]
                # per delta: the first says where it came from
                if isinstance(part, ReasoningPart) and part.provider_data is None:
                    _merge_provider_data(part, delta.provider_data)
            return ops
        if isinstance(delta, ToolCallDelta):
            return self._release() + self._tool_call(_clean_call(delta))
        if isinstance(delta, UsageDelta):
            self.has_usage = True
            self.usage = self.usage + Usage(
                input_tokens=delta.input_tokens,
                output_tokens=delta.output_tokens,
                reasoning_tokens=delta.reasoning_tokens,
                cache_read_tokens=delta.cache_read_tokens,
                cache_write_tokens=delta.cache_write_tokens,
                estimated=delta.estimated,
            )
            return []
        if isinstance(delta, FinishDelta):
            self.finish_reason = delta.reason
            return []
        raise TypeError(f"unknown model delta: {delta!r}")

    def apply_batch(self, deltas: list[ModelDelta]) -> list[PatchOp]:
        """Apply a batch of deltas as one change; return its patch ops."""
        if len(deltas) == 1:
            return self.apply(deltas[0])
        ops: list[PatchOp] = []
        for delta in _joined(deltas):
            ops += self.apply(delta)
        return ops

    def _text(self, kind: type[TextPart] | type[ReasoningPart], text: str) -> list[PatchOp]:
        """Extend with model text made UTF-8-safe (lone surrogates to U+FFFD)."""
        ops: list[PatchOp] = []
        if self._held is not None:
            if self._held[0] is kind:
                text = self._held[1] + text
                self._held = None
            else:
                ops = self._release()
        if not text.isascii():  # O(1): the check below runs on non-ASCII text only
            if "\ud800" <= text[-1] <= "\udbff":
                self._held = (kind, text[-1])
                text = text[:-1]
            text = clean_text(text)
        return ops + self._extend(kind, text) if text else ops

    def _release(self) -> list[PatchOp]:
        """A held half-character that no delta completed: U+FFFD."""
        if self._held is None:
            return []
        kind, self._held = self._held[0], None
        return self._extend(kind, REPLACEMENT)

    def _tool_call(self, delta: ToolCallDelta) -> list[PatchOp]:
        ops: list[PatchOp] = []
        call = self._calls.get(delta.index)
        if call is None:
            tool = self.tools.get(delta.name or "")
            new = ToolCallPart(
                tool_call_id=self._unique_id(delta.id),
                tool_name=delta.name or "",
                component=tool.component if tool else None,
            )
            index, op = self._add(new)
            ops.append(op)
            call = _Call(index, tool.declared if tool else None)
            self._calls[delta.index] = call
            self._open = None  # text after a call starts a new text part
        part = self._call_part(call)
        if delta.provider_data:  # kernel-only: no patch op, the browser never needs it
            _merge_provider_data(part, delta.provider_data)
        if delta.name and not part.tool_name:  # a name that arrives after the id
            part.tool_name = delta.name
            tool = self.tools.get(delta.name)
            call.declared = tool.declared if tool else None
            ops.append(set_op(call.index, "tool_name", delta.name))
        if delta.arguments:
            self._append(call.index, "args_text", delta.arguments)
            # per delta: a literal typed as the op, no constructor call
            appended: AppendOp = {
                "op": "append",
                "part": call.index,
                "field": "args_text",
                "value": delta.arguments,
            }
            ops.append(appended)
            if call.parser is not None:
                try:
                    call.parser.feed(delta.arguments)
                except PartialJSONError:
                    call.parser = None  # bad JSON: the tool phase tells the model
                else:
                    ops.extend(self._update_args(call, part, call.parser.value))
        return ops

    def _unique_id(self, provider_id: str | None) -> str:
        """The provider's id, unless the thread has it already.

        Providers repeat ids (one id for two calls of a step, "call_0" in
        every step): run under one id, two calls would share a result and an
        approval, and the history would answer an id twice. Our ids are the
        ones the history sends, so a fresh one keeps it valid.
        """
        if self._taken_source is not None:
            self._taken_ids.update(self._taken_source)
            self._taken_source = None
        call_id = provider_id or new_id("call")
        while call_id in self._taken_ids:
            call_id = new_id("call")
        self._taken_ids.add(call_id)
        return call_id

    def _call_part(self, call: _Call) -> ToolCallPart:
        part = self.message.parts[call.index]
        assert isinstance(part, ToolCallPart)
        return part

    def _update_args(self, call: _Call, part: ToolCallPart, value: Any) -> list[PatchOp]:
        args, status, completion = clean_arguments(value, call.declared)
        # No equality test: comparing nested values per delta would cost O(n) each.
        part.args = args
        # per delta: a literal typed as the op, no constructor call
        ops: list[PatchOp] = [{"op": "set", "part": call.index, "field": "args", "value": args}]
        if status is not None and status != part.status_message:
            part.status_message = status
            ops.append(set_op(call.index, "status_message", status))
        if completion is not None and completion != part.completion_status_message:
            part.completion_status_message = completion
            ops.append(set_op(call.index, "completion_status_message", completion))
        return ops

    def finish(self) -> list[PatchOp]:
        """End the step: record every call's parsed arguments, mark them complete."""
        ops: list[PatchOp] = self._release()
        self.materialize()
        for call in self._calls.values():
            part = self._call_part(call)
            parsed = _final_parse(call, part.args_text)
            part.record_parsed_args(parsed)
            if parsed.value is not None:  # else the tool phase reports the bad JSON
                ops.extend(self._update_args(call, part, parsed.value))
            part.args_complete = True
            ops.append(set_op(call.index, "args_complete", True))
        return ops


def _final_parse(call: _Call, text: str) -> ParsedArgs:
    """The parse of a call's whole text: the streaming parser's value when it
    read one complete JSON value, as it does for every well-formed call.

    Any other text (one the parser refused, one cut short, a bare number) is
    parsed once more, on that path only: the model then reads the decoder's
    own message, and what the decoder accepts (NaN) reads as it always did.
    """
    parser = call.parser
    if parser is not None and parser.done:
        value = parser.value
        if any(pattern.search(text) for pattern in _MAYBE_UNSAFE):
            value = json_safe(value)  # "\\ud83d" parses to a lone surrogate; huge ints
        return ParsedArgs(text, value)
    return parse_args_text(text)


def _clean_call(delta: ToolCallDelta) -> ToolCallDelta:
    """The delta with its id, name and argument text UTF-8-safe."""
    fields: dict[str, Any] = {}
    for name in ("id", "name", "arguments"):
        value = getattr(delta, name)
        if value and not value.isascii():
            clean = clean_text(value)
            if clean is not value:
                fields[name] = clean
    return dataclasses.replace(delta, **fields) if fields else delta


def _joined(deltas: list[ModelDelta]) -> list[ModelDelta]:
    """``deltas`` with each run that extends one part joined into one delta.

    A run is consecutive text deltas, consecutive reasoning deltas, or a tool
    call's deltas after its first that carry argument text only (an id or a
    name starts a new run: it may start a new call). Applying the joined
    deltas changes the message exactly as applying each one would.
    """
    out: list[ModelDelta] = []
    run: list[str] = []  # the texts of the run that ends with out[-1]
    for delta in deltas:
        if out:
            last = out[-1]
            if isinstance(delta, TextDelta | ReasoningDelta):
                if type(delta) is type(last) and _same_data(delta, last):
                    run.append(delta.text)
                    continue
            elif (
                isinstance(delta, ToolCallDelta)
                and isinstance(last, ToolCallDelta)
                and delta.index == last.index
                and delta.id is None
                and delta.name is None
                and delta.provider_data is None
            ):
                run.append(delta.arguments)
                continue
            if len(run) > 1:
                out[-1] = _with_text(last, "".join(run))
        out.append(delta)
        if isinstance(delta, TextDelta | ReasoningDelta):
            run = [delta.text]
        elif isinstance(delta, ToolCallDelta):
            run = [delta.arguments]
        else:
            run = []
    if len(run) > 1:
        out[-1] = _with_text(out[-1], "".join(run))
    return out


def _with_text(delta: ModelDelta, text: str) -> ModelDelta:
    if isinstance(delta, ToolCallDelta):
        return dataclasses.replace(delta, arguments=text)
    if isinstance(delta, TextDelta):
        return TextDelta(text)
    return ReasoningDelta(text, getattr(delta, "provider_data", None))


def _same_data(delta: ModelDelta, last: ModelDelta) -> bool:
    return getattr(delta, "provider_data", None) == getattr(last, "provider_data", None)


def _merge_provider_data(part: Any, data: dict[str, Any]) -> None:
    """Merge a delta's provider data (``{provider_key: {...}}``) into the part's."""
    merged = dict(part.provider_data or {})
    for key, value in data.items():
        inner = merged.get(key)
        merged[key] = (
            {**inner, **value} if isinstance(inner, dict) and isinstance(value, dict) else value
        )
    part.provider_data = bounded_provider_data(merged)  # an oversized one is never kept
