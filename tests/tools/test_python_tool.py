"""``gu.python_tool()``: the model's code runs in the notebook's namespace, with consent.

Faults tried:
- the code running before the user approved it (it must wait, and nothing
  in the namespace changes while it waits);
- code that runs somewhere else than the IPython shell's ``user_ns`` (a
  variable it defines invisible to the next cell);
- edited code approved but the model's original run instead;
- an exception escaping the tool (the model must read its type and traceback)
  or a ``SystemExit`` ending the process;
- a cell printing on the main thread while the code runs in its thread
  losing its output to the tool (capture is per thread);
- figures the code made left open for a later cell, or missing from the result;
- the last expression's value or a new DataFrame lost (it is summarized, by name);
- the model reading a new table's sample rows or the card's preview
  (``for_user``: the card's, dropped from what the model reads), or the card
  left without the first rows and shape of a new table.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import threading
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.testing import ScriptedModel, ScriptedReply
from ipygenui.tools.code import run_code
from runtime_helpers import call, tool_messages


def _script(code: str) -> ScriptedModel:
    return ScriptedModel(
        [
            ScriptedReply(tool_calls=[call("run_python", {"code": code}, id="c1")]),
            ScriptedReply(text="done"),
        ]
    )


@pytest.fixture
def shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    yield shell
    InteractiveShell.clear_instance()


async def test_waits_for_approval_then_defines_a_variable_in_the_shell(shell: Any) -> None:
    shell.run_cell("base = 20")
    tool = gu.python_tool()  # no namespace: the running IPython shell's
    rt = gu.Runtime(model=_script("answer = base + 22\nanswer"), tools=[tool])
    message = await rt.send("compute it")
    assert message.status.type == "requires-action"
    assert message.tool_calls[0].approval is not None
    assert message.tool_calls[0].approval.status == "pending"
    assert "answer" not in shell.user_ns  # nothing ran before the decision

    run = rt.approve("c1")
    assert run is not None
    final = await run
    assert final.status.type == "complete"
    assert shell.user_ns["answer"] == 42
    shell.run_cell("check = answer * 2")  # the next cell sees it
    assert shell.user_ns["check"] == 84
    result = final.tool_calls[0].result
    assert result["value"]["repr"] == "42"
    assert result["names"]["answer"]["ref"] == "answer"  # the name is the reference


async def test_edited_code_runs_instead_of_the_models() -> None:
    namespace: dict[str, Any] = {}
    rt = gu.Runtime(model=_script("x = 'model'"), tools=[gu.python_tool(namespace)])
    await rt.send("go")
    final = await rt.approve("c1", args={"code": "x = 'user'"})  # type: ignore[misc]
    assert namespace["x"] == "user"
    assert final.tool_calls[0].args == {"code": "x = 'user'"}


async def test_rejected_code_never_runs() -> None:
    namespace: dict[str, Any] = {}
    rt = gu.Runtime(model=_script("x = 1"), tools=[gu.python_tool(namespace)])
    await rt.send("go")
    await rt.reject("c1", reason="no")  # type: ignore[misc]
    assert "x" not in namespace


async def test_exception_and_exit_reach_the_model_with_traceback() -> None:
    namespace: dict[str, Any] = {}
    model = _script("def f():\n    return 1 / 0\nprint('before')\nf()")
    rt = gu.Runtime(model=model, tools=[gu.python_tool(namespace, requires_approval=False)])
    await rt.send("go")
    sent = tool_messages(model.requests[1])["c1"]
    assert sent["stdout"] == "before\n"
    assert sent["error"]["type"] == "ZeroDivisionError"
    assert "return 1 / 0" in sent["error"]["traceback"]  # the code's own line, quoted
    assert "tools/code.py" not in sent["error"]["traceback"]  # our frames are cut

    result = run_code("import sys\nsys.exit(3)", namespace, max_output_chars=100)
    assert result["error"]["type"] == "SystemExit"


def test_figures_come_back_and_are_closed() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    result = run_code(
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])", {}, max_output_chars=100
    )
    assert len(result["figures"]) == 1
    assert result["figures"][0]["image"].startswith("data:image/png;base64,iVBOR")
    assert set(plt.get_fignums()) == before


def test_a_default_figure_comes_back_transparent_for_the_theme_a_styled_one_as_made() -> None:
    import base64

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.image import imread

    def corner_alpha(figure: dict[str, Any]) -> float:
        png = base64.b64decode(figure["image"].split(",", 1)[1])
        return float(imread(io.BytesIO(png), format="png")[0, 0, 3])

    code = (
        "import matplotlib.pyplot as plt\n"
        "plt.figure(); plt.plot([1, 2, 3])\n"
        "plt.figure(facecolor='black'); plt.plot([3, 2, 1])"
    )
    plain, styled = run_code(code, {}, max_output_chars=100)["figures"]
    # the card recolours a themed figure in a dark theme (js/src/tool-card/tool-card.js,
    # components/components.css)
    assert plain["themed"] is True and corner_alpha(plain) == 0.0
    assert "themed" not in styled and corner_alpha(styled) == 1.0


def test_new_dataframe_is_summarized_by_name() -> None:
    import pandas as pd

    namespace: dict[str, Any] = {"pd": pd}
    result = run_code(
        "big = pd.DataFrame({'n': range(10_000)})\nunchanged = None",
        namespace,
        max_output_chars=100,
    )
    namespace_after = dict(namespace)
    result2 = run_code("unchanged", namespace, max_output_chars=100)
    summary = result["names"]["big"]
    assert summary["shape"] == [10_000, 1]
    assert summary["ref"] == "big"
    assert "sample" not in summary  # the model reads the name, not rows
    assert "names" not in result2  # nothing rebound the second time
    assert namespace_after.keys() == namespace.keys()


def test_a_cell_printing_meanwhile_keeps_its_output(monkeypatch: pytest.MonkeyPatch) -> None:
    cell_out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", cell_out)
    started, release = threading.Event(), threading.Event()
    namespace: dict[str, Any] = {"started": started, "release": release}
    outcome: dict[str, Any] = {}

    def tool_thread() -> None:
        outcome.update(
            run_code(
                "print('from the tool')\nstarted.set()\nrelease.wait(5)",
                namespace,
                max_output_chars=100,
            )
        )

    worker = threading.Thread(target=tool_thread)
    worker.start()
    assert started.wait(5)
    print("from the cell")  # the main thread, while the tool captures
    release.set()
    worker.join(5)
    assert outcome["stdout"] == "from the tool\n"
    assert cell_out.getvalue() == "from the cell\n"
    assert sys.stdout is cell_out  # given back


async def test_the_event_loop_runs_while_the_code_runs() -> None:
    namespace: dict[str, Any] = {"gate": threading.Event()}
    rt = gu.Runtime(
        model=_script("gate.wait(5)\nfinished = True"),
        tools=[gu.python_tool(namespace, requires_approval=False)],
    )
    run = rt.send("go")
    for _ in range(200):  # the loop keeps turning while the code blocks in its thread
        await asyncio.sleep(0.005)
        if rt.thread.messages[-1].tool_calls:
            break
    assert "finished" not in namespace
    namespace["gate"].set()
    await run
    assert namespace["finished"] is True


async def test_new_frames_and_the_value_are_kept_in_the_chats_data() -> None:
    import pandas as pd

    namespace: dict[str, Any] = {"pd": pd}
    code = "top = pd.DataFrame({'n': range(500)})\ntop[top.n > 100]"
    rt = gu.Runtime(model=_script(code), tools=[gu.python_tool(namespace)])
    await rt.send("go")
    final = await rt.approve("c1")  # type: ignore[misc]
    result = final.tool_calls[0].result
    assert rt.data["top"] is namespace["top"]  # a Table can show it by its name
    value_ref = result["value"]["ref"]
    assert rt.data[value_ref].shape == (399, 1)
    assert result["value"]["shape"] == [399, 1]


async def test_a_value_the_code_named_is_kept_under_its_name_only() -> None:
    """notebooks/03_data's ``by_region = ...; by_region``: the ``@`` menu offers
    ``by_region``, as the user named it, not an internal ``series_2`` beside it."""
    import pandas as pd

    namespace: dict[str, Any] = {"orders": pd.DataFrame({"region": ["n", "s"], "units": [3, 4]})}
    code = "by_region = orders.groupby('region')['units'].sum()\nby_region"
    rt = gu.Runtime(model=_script(code), tools=[gu.python_tool(namespace)])
    await rt.send("go")
    final = await rt.approve("c1")  # type: ignore[misc]
    assert final.tool_calls[0].result["value"]["ref"] == "by_region"
    assert [n for n in rt.data.names() if n != "orders"] == ["by_region"]


async def test_the_model_reads_refs_and_the_card_gets_a_preview() -> None:
    import pandas as pd

    namespace: dict[str, Any] = {"pd": pd}
    code = "sales = pd.DataFrame({'region': ['n', 's'] * 10, 'units': range(20)})\nprint('ok')"
    model = _script(code)
    rt = gu.Runtime(model=model, tools=[gu.python_tool(namespace, requires_approval=False)])
    final = await rt.send("go")
    sent = tool_messages(model.requests[1])["c1"]
    assert sent["stdout"] == "ok\n"
    assert sent["names"]["sales"]["ref"] == "sales"
    assert sent["names"]["sales"]["shape"] == [20, 2]
    assert "sample" not in sent["names"]["sales"]
    assert "for_user" not in sent  # the card's rows are not the model's to read
    (table,) = final.tool_calls[0].result["for_user"]["tables"]
    assert table["name"] == "sales"
    assert table["shape"] == [20, 2]
    assert table["columns"] == ["region", "units"]
    assert table["dtypes"][1] == "int64"
    assert table["rows"][:2] == [["n", 0], ["s", 1]]
    assert len(table["rows"]) == 5


def test_the_preview_is_small_and_marks_the_value() -> None:
    import numpy as np
    import pandas as pd

    wide = "pd.DataFrame({f'c{i}': ['x' * 500] * 100 for i in range(40)})"
    result = run_code(f"arr = np.arange(6)\n{wide}", {"pd": pd, "np": np}, max_output_chars=100)
    value, arr = result["for_user"]["tables"]
    assert value["value"] is True and value["shape"] == [100, 40]
    assert len(value["columns"]) == 12 and len(value["rows"]) == 5
    assert all(len(cell) <= 60 for cell in value["rows"][0])
    assert arr["name"] == "arr" and arr["rows"][0] == [0]
    assert "for_user" not in run_code("x = 1", {}, max_output_chars=100)  # nothing to preview
    again = run_code("same = pd.DataFrame({'a': [1]})\nsame", {"pd": pd}, max_output_chars=100)
    assert len(again["for_user"]["tables"]) == 1  # the value is that name: shown once


def test_for_user_is_dropped_from_any_result_the_model_reads() -> None:
    from ipygenui.messages import ToolCallPart
    from ipygenui.models.history import tool_result_content

    part = ToolCallPart(tool_call_id="t", tool_name="any", has_result=True)
    part.result = {"answer": 1, "for_user": {"tables": [{"rows": [["secret"]]}]}}
    assert json.loads(tool_result_content(part)) == {"answer": 1}
