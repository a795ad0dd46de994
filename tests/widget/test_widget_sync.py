"""FrameCoalescer: merging rules and cadence, on a fake clock (no kernel, no timing)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ipygenui.widget._sync import FrameCoalescer


class FakeLoop:
    """A clock and call_later that only move when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, Callable[[], None], FakeTimer]] = []

    def call_later(self, delay: float, fn: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer()
        self.timers.append((self.now + delay, fn, timer))
        return timer

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now and not t[2].cancelled]
        self.timers = [t for t in self.timers if t not in due]
        for _, fn, _ in due:
            fn()


class FakeTimer:
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def make() -> tuple[FrameCoalescer, FakeLoop, list[dict[str, Any]]]:
    loop = FakeLoop()
    frames: list[dict[str, Any]] = []
    return FrameCoalescer(frames.append, loop.call_later, lambda: loop.now), loop, frames


def append(part: int, value: str, field: str = "text") -> dict[str, Any]:
    return {"op": "append", "part": part, "field": field, "value": value}


def test_consecutive_appends_merge_into_one_op_per_frame() -> None:
    co, loop, frames = make()
    for token in ["Hel", "lo", " wor", "ld"]:
        co.add("m1", [append(0, token)])
    assert frames == []  # held until the timer fires
    loop.advance(0.001)
    assert frames == [
        {"type": "frame", "seq": 1, "patches": [{"id": "m1", "ops": [append(0, "Hello world")]}]}
    ]


def test_appends_merge_across_interleaved_ops_on_other_fields() -> None:
    co, _, frames = make()
    for i, piece in enumerate(['{"a"', ": 1", ', "b": 2}']):
        co.add(
            "m1",
            [
                append(1, piece, "args_text"),
                {"op": "set", "part": 1, "field": "args", "value": {"a": i}},
                {"op": "set", "part": 1, "field": "status_message", "value": f"step {i}"},
            ],
        )
    co.flush()
    ops = frames[0]["patches"][0]["ops"]
    # args are left to the frontend's partial parser while args_text streams in the frame
    assert ops == [
        append(1, '{"a": 1, "b": 2}', "args_text"),
        {"op": "set", "part": 1, "field": "status_message", "value": "step 2"},
    ]


def test_set_of_args_is_sent_when_no_args_text_streams_in_the_frame() -> None:
    co, _, frames = make()
    co.add("m1", [{"op": "set", "part": 0, "field": "args", "value": {"x": 1}}])
    co.flush()
    assert frames[0]["patches"][0]["ops"] == [
        {"op": "set", "part": 0, "field": "args", "value": {"x": 1}}
    ]


def test_order_is_kept_for_the_same_field_and_around_add_part() -> None:
    co, _, frames = make()
    co.add("m1", [{"op": "add_part", "part": 0, "value": {"type": "text", "text": "a"}}])
    co.add("m1", [append(0, "b")])
    co.add("m1", [{"op": "set", "part": 0, "field": "text", "value": "X"}])
    co.add("m1", [append(0, "c"), append(0, "d")])
    co.flush()
    assert frames[0]["patches"][0]["ops"] == [
        {"op": "add_part", "part": 0, "value": {"type": "text", "text": "a"}},
        append(0, "b"),
        {"op": "set", "part": 0, "field": "text", "value": "X"},
        append(0, "cd"),
    ]


def test_at_most_one_frame_per_interval_whatever_the_chunk_rate() -> None:
    co, loop, frames = make()
    # 3 seconds of a token every millisecond
    for _ in range(3000):
        co.add("m1", [append(0, "x")])
        loop.advance(0.001)
    co.flush()
    assert len(frames) <= 3 / co.interval + 2
    assert [f["seq"] for f in frames] == list(range(1, len(frames) + 1))
    assert "".join(f["patches"][0]["ops"][0]["value"] for f in frames) == "x" * 3000
    sent_at: list[float] = []
    co2, loop2, frames2 = make()
    co2._send = lambda f: (frames2.append(f), sent_at.append(loop2.now))  # type: ignore[method-assign]
    for _ in range(1000):
        co2.add("m1", [append(0, "y")])
        loop2.advance(0.001)
    gaps = [b - a for a, b in itertools.pairwise(sent_at)]
    assert min(gaps) >= co2.interval - 1e-9


def test_drop_forgets_a_message_whose_snapshot_is_sent() -> None:
    co, loop, frames = make()
    co.add("m1", [append(0, "a")])
    co.add("m2", [append(0, "b")])
    co.drop("m1")
    loop.advance(1)
    assert [p["id"] for p in frames[0]["patches"]] == ["m2"]
    co.drop("m2")
    assert co.flush() is None and not co.pending


def test_seq_counts_frames_and_close_cancels() -> None:
    co, loop, frames = make()
    co.add("m1", [append(0, "a")])
    co.close()
    loop.advance(1)
    assert frames == [] and co.seq == 0
    co.add("m1", [])
    assert not co.pending
