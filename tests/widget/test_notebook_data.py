"""The composer's ``@`` menu offers the notebook's own DataFrames and arrays.

Faults tried:
- a chat in a kernel listing only its own data, so a DataFrame the user made
  in a cell cannot be attached by name;
- a pick of a notebook variable refused as an unknown name, or copied (its
  rows sent) instead of kept by reference;
- IPython's private names (``_``, ``_1``) and objects that are not tables
  offered;
- the list going stale as the user runs cells (``post_run_cell``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from IPython.core.events import EventManager

from comm_helpers import customs, settle
from ipygenui.testing import ScriptedModel
from ipygenui.widget import _notebook_data
from ipygenui.widget.chat import Chat


class _Shell:
    """The part of an IPython shell the chat uses: its namespace and events."""

    def __init__(self) -> None:
        self.user_ns: dict[str, Any] = {}
        self.events = EventManager(self, {"post_run_cell": lambda result: None})

    def run_cell(self, **assign: Any) -> None:
        self.user_ns.update(assign)
        self.events.trigger("post_run_cell", None)


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch) -> _Shell:
    fake = _Shell()
    monkeypatch.setattr("IPython.core.getipython.get_ipython", lambda: fake)
    return fake


async def test_the_menu_lists_the_notebooks_tables_and_a_pick_keeps_it_by_reference(
    shell: _Shell, wire: list[Any]
) -> None:
    orders = pd.DataFrame({"order_id": range(500), "amount": [1.5] * 500})
    shell.user_ns.update(orders=orders, _=orders, _7=orders, text="not a table")
    chat = Chat(model=ScriptedModel(["Read it."]))
    assert chat.data_names == ["orders"]
    shell.run_cell(prices=np.arange(3))  # a cell run later: the menu follows
    assert chat.data_names == ["orders", "prices"]
    send = {"type": "send", "text": "what is in it?", "ref": "v-1"}
    chat._handlers._dispatch({**send, "attachments": [{"kind": "data", "name": "orders"}]})
    await settle(chat)
    assert customs(wire, "error") == []
    part = chat.thread.messages[0].attachments[0]
    assert part.kind == "data" and part.name == part.ref == "orders"
    assert chat.runtime.data["orders"] is orders  # kept, not copied
    assert '"shape": [500, 2]' in (part.text or "") and "499" not in (part.text or "")
    chat.close()
    shell.run_cell(later=np.arange(2))
    assert "later" not in chat.data_names  # a closed chat stops listening


def test_outside_a_kernel_only_the_chats_data_is_listed() -> None:
    chat = Chat(model=ScriptedModel(["x"]))
    chat.runtime.data["sales"] = pd.DataFrame({"x": [1]})
    chat._sync.refresh_data_names()
    assert chat.data_names == ["sales"]
    assert _notebook_data.notebook_tables({}) == {}
    chat.close()


def test_the_menu_says_each_names_kind_and_shape_the_chats_own_too(shell: _Shell) -> None:
    sales = pd.DataFrame({"region": ["n"] * 1_200, **{f"c{i}": range(1_200) for i in range(4)}})
    shell.user_ns.update(sales=sales, prices=np.zeros((3, 4, 2)))
    chat = Chat(model=ScriptedModel(["ok"]), data={"units": pd.Series(range(7)), "note": "hi"})
    assert chat.data_details == {
        "units": {"kind": "Series", "shape": [7]},
        "note": {"kind": "str", "shape": None},
        "sales": {"kind": "DataFrame", "shape": [1_200, 5]},
        "prices": {"kind": "array", "shape": [3, 4, 2]},
    }
    shell.run_cell(sales=sales.head(10))  # the same name, a new frame: the menu follows
    assert chat.data_details["sales"] == {"kind": "DataFrame", "shape": [10, 5]}
    chat.close()
