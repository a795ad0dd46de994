"""The filter of a paged Table runs in the kernel: a ``data_window`` request
with ``filter`` gets the matching rows (case-insensitive, plain text, over the
text of every cell as the Table shows it), their count, and the whole table's
size; a first filter of a table is computed in a worker thread."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ipygenui as gu
from comm_helpers import click, customs, settle
from ipygenui.data import RowWindows, _row_filter
from ipygenui.data._row_filter import cell_texts, matching_mask
from ipygenui.testing import ScriptedCall, ScriptedModel
from ipygenui.widget._protocol import MAX_FILTER
from ipygenui.widget.chat import Chat

ROWS = 20_000


def orders(rows: int = ROWS) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "order_id": np.arange(rows),
            "city": np.where(np.arange(rows) % 1_000 == 7, "North Bay", "Southport"),
            "amount": np.arange(rows) * 1.5,
        }
    )


@pytest.mark.parametrize(
    ("value", "texts"),
    [
        (1234, ("1234", "1,234")),
        (2.0, ("2", "2")),
        (1234.5678, ("1234.5678", "1,234.568")),
        (0.00001, ("0.00001", "0")),
        (True, ("true",)),
        (None, ()),
        (float("nan"), ()),
        ("Ünïcode Ä", ("ünïcode ä",)),
        (pd.Timestamp("2026-05-01"), ("2026-05-01t00:00:00",)),
        ({"a": [1, 2]}, ("{'a': [1, 2]}",)),  # sent as its str
    ],
)
def test_a_cells_texts_are_the_browsers_and_the_shown_ones(value: Any, texts: Any) -> None:
    assert cell_texts(value) == texts


def test_the_filter_is_plain_text_case_insensitive_over_every_column() -> None:
    frame = pd.DataFrame(
        {
            "name": ["a.c", "abc", "A(C", None, "x"],
            "n": [1, 2, 3, 4, 12_345],
            "tags": [["red"], ["blue"], None, ["Red"], []],
        }
    )
    hits = lambda q: matching_mask(frame, q).nonzero()[0].tolist()  # noqa: E731
    assert hits("a.c") == [0]  # no regex: "." is a dot
    assert hits("a(") == [2]  # no regex: a lone bracket is text, not an error
    assert hits("RED") == [0, 3]  # lists are matched as the text sent, any case
    assert hits("12,3") == [4] and hits("2345") == [4]  # shown with separators, or raw
    assert hits("  ") == [0, 1, 2, 3, 4]  # blank: every row
    assert hits("none") == []  # a missing cell is empty, not "None"


def test_a_filtered_window_counts_the_matches_and_keeps_the_sort() -> None:
    frame = orders()
    windows = RowWindows()
    window = windows.window(frame, 0, 5, filter_text="north bay")
    assert window["total_rows"] == 20 and window["all_rows"] == ROWS
    assert [r["order_id"] for r in window["rows"]] == [7, 1007, 2007, 3007, 4007]
    down = windows.window(frame, 18, 5, sort="amount", descending=True, filter_text="NORTH")
    assert [r["order_id"] for r in down["rows"]] == [1007, 7]
    assert windows.window(frame, 0, 5, filter_text="nowhere")["total_rows"] == 0
    assert "all_rows" not in windows.window(frame, 0, 5, filter_text=" ")


async def shown_orders() -> Chat:
    """A chat that shows ``orders()`` in a Table (call ``t1``), paged from the kernel."""
    model = ScriptedModel([ScriptedCall("show_component_Table", {"data": "orders"}, id="t1"), "ok"])
    chat = Chat(model=model, components=[gu.Table], data={"orders": orders()})
    await chat.send("show")
    await settle(chat)
    return chat


async def answered(wire: Any, count: int) -> None:
    """Wait until ``count`` windows are answered (a worker thread cuts a first one)."""
    for _ in range(2_000):
        if len(customs(wire, "data_window")) >= count:
            return
        await asyncio.sleep(0.005)


async def test_a_paged_table_is_filtered_in_the_kernel_off_the_event_loop(
    wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real = _row_filter.matching_mask

    def spy(frame: Any, query: str) -> Any:
        threads.append(threading.current_thread())
        return real(frame, query)

    monkeypatch.setattr(_row_filter, "matching_mask", spy)
    chat = await shown_orders()
    assert chat.component_outputs["t1"]["props"]["paged"]
    for request in (1, 2):  # the second is a slice of the kept result
        click(
            chat,
            {
                "type": "data_window",
                "tool_call_id": "t1",
                "request": request,
                "offset": 0,
                "limit": 100,
                "filter": "north BAY",
            },
        )
        await answered(wire, request)
    answers = customs(wire, "data_window")
    assert [a["request"] for a in answers] == [1, 2]
    assert answers[0]["total_rows"] == 20 and answers[0]["all_rows"] == ROWS
    assert answers[0]["filter"] == "north BAY" and len(answers[0]["rows"]) == 20
    assert all(r["city"] == "North Bay" for r in answers[1]["rows"])
    assert len(threads) == 1 and threads[0] is not threading.main_thread()
    chat.close()


async def test_a_filter_over_the_limit_is_refused_and_nothing_is_filtered(wire: Any) -> None:
    chat = await shown_orders()
    window = {"type": "data_window", "tool_call_id": "t1", "request": 1, "offset": 0, "limit": 5}
    click(chat, {**window, "filter": "x" * (MAX_FILTER + 1)})
    await settle(chat)
    assert "invalid 'data_window'" in customs(wire, "error")[-1]["message"]
    assert customs(wire, "data_window") == []
    click(chat, {**window, "request": 2, "filter": "(" * MAX_FILTER})  # at the limit: plain text
    await answered(wire, 1)
    [answer] = customs(wire, "data_window")
    assert answer["request"] == 2 and answer["total_rows"] == 0 and "error" not in answer
    chat.close()


async def test_the_table_scrolls_on_while_a_filter_is_computed(
    wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A filter of a huge table takes seconds in its worker thread: a window of
    # a view already kept (the unfiltered rows) is answered meanwhile, not
    # held behind it.
    release = threading.Event()
    waits: list[bool] = []  # whether each filter was released (not left to time out)
    real = _row_filter.matching_mask

    started = threading.Event()

    def slow(frame: Any, query: str) -> Any:
        started.set()
        waits.append(release.wait(10))  # held until the unfiltered window is answered
        return real(frame, query)

    monkeypatch.setattr(_row_filter, "matching_mask", slow)
    chat = await shown_orders()
    window = {"type": "data_window", "tool_call_id": "t1", "offset": 0, "limit": 5}
    click(chat, {**window, "request": 1, "filter": "north"})
    for _ in range(2_000):  # until the worker thread holds the filter
        if started.is_set():
            break
        await asyncio.sleep(0.005)
    click(chat, {**window, "request": 2})
    await answered(wire, 1)
    release.set()
    await answered(wire, 2)
    assert [a["request"] for a in customs(wire, "data_window")] == [2, 1]
    assert waits == [True]  # the loop answered while the filter still ran
    chat.close()
