"""The notebooks read correctly after Run All, top to bottom.

Faults tried: a cell that ends in a bare ``await chat.send(...)`` (the output
shows the message's repr instead of what the text describes); a last cell that
closes a chat whose card the text still asks you to approve; notebook 04's
agent answering a second request with the first one's result ("Done: dropped
t." and no call), because it read every tool result in the history.
"""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import ipygenui as gu
from ipygenui.messages import RequiresAction

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
AGENTS = next(p for p in NOTEBOOKS if p.name == "04_agents.ipynb")
# Notebooks whose chats keep a server running for what the text asks you to click.
SERVING = [p for p in NOTEBOOKS if p.name in ("04_agents.ipynb", "05_standards.ipynb")]


def _code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _tree(source: str, name: str) -> ast.Module:
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    tree = compile(source, name, "exec", flags)
    assert isinstance(tree, ast.Module)
    return tree


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_shows_a_bare_send_result(path: Path) -> None:
    for source in _code_cells(path):
        body = _tree(source, path.name).body
        last = body[-1] if body else None
        shown = (
            isinstance(last, ast.Expr)
            and isinstance(last.value, ast.Await)
            and isinstance(last.value.value, ast.Call)
            and isinstance(last.value.value.func, ast.Attribute)
            and last.value.value.func.attr == "send"
            and not source.rstrip().endswith(";")
        )
        assert not shown, f"{path.name}: a cell shows a send() result as its output:\n{source}"


@pytest.mark.parametrize("path", SERVING, ids=lambda p: p.name)
def test_run_all_closes_no_chat_the_text_refers_to(path: Path) -> None:
    for source in _code_cells(path):
        for node in ast.walk(_tree(source, path.name)):
            call = node.value if isinstance(node, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                closes = call.func.attr == "close"
                guarded = "CLEAN_UP = False" in source  # the optional clean-up cell
                assert not closes or guarded, f"Run All closes something:\n{source}"


@pytest.fixture
def agent_server() -> Any:
    """Notebook 04's agent server cell, run as the notebook runs it (loopback only)."""
    [cell] = [s for s in _code_cells(AGENTS) if "AGUIAdapter.dispatch_request" in s]
    namespace: dict[str, Any] = {"__name__": "notebook_04"}
    exec(compile(cell, AGENTS.name, "exec"), namespace)
    server = namespace["server"]
    try:
        yield namespace["AGENT_URL"]
    finally:
        server.should_exit = True
        threads = [t for t in threading.enumerate() if t.daemon and t.is_alive()]
        for thread in threads:
            if getattr(thread, "_target", None) == server.run:
                thread.join(10)


async def test_asking_the_agent_again_starts_a_new_request(agent_server: str) -> None:
    dropped: list[str] = []

    @gu.tool(requires_approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        dropped.append(name)
        return f"dropped {name}"

    rt = gu.Runtime(agent=gu.AGUIAgent(agent_server), tools=[drop_table], components=[gu.Metric])
    try:
        for table, note in [("t", "drop t"), ("u", "drop u")]:
            waiting = await rt.send(f"Please drop the table {table}")
            assert isinstance(waiting.status, RequiresAction), waiting.text
            [drop] = [c for c in waiting.tool_calls if c.tool_name == "drop_table"]
            assert drop.args == {"name": table} and rt.agent_state == {"note": note}
            run = rt.approve(drop.tool_call_id)
            assert run is not None
            done = await run
            assert done.text.endswith(f"Done: dropped {table}.")
        assert dropped == ["t", "u"]
        waiting = await rt.send("Please drop the table v")
        [drop] = [c for c in waiting.tool_calls if c.tool_name == "drop_table"]
        run = rt.reject(drop.tool_call_id, "keep it")
        assert run is not None
        assert (await run).text.endswith("OK, I left the table v alone.")
        ids = [c.tool_call_id for m in rt.thread.messages for c in m.tool_calls]
        assert len(ids) == len(set(ids))  # each request's calls have their own ids
    finally:
        rt.close()


def test_the_components_notebook_answers_a_submitted_form_from_its_answers() -> None:
    """02's Form sends "Submitted the form …" on Submit: its script reads the
    answers instead of matching "form" and showing another empty form."""
    from ipygenui.models.base import ModelRequest

    components = next(p for p in NOTEBOOKS if p.name == "02_components.ipynb")
    cells = [s for s in _code_cells(components) if "await " not in s]
    model_cell = next(i for i, s in enumerate(cells) if "def script(" in s)
    namespace: dict[str, Any] = {"__name__": "notebook_02"}
    for source in cells[: model_cell + 1]:
        exec(compile(source, components.name, "exec"), namespace)
    namespace["chat"].close()
    message = "Submitted the form “Plan a trip”:\n- City: Porto\n- Nights: 3"
    reply = namespace["script"](ModelRequest(messages=[{"role": "user", "content": message}]))
    assert isinstance(reply, str) and "Porto" in reply, reply


def _text_of(cell: Any) -> str:
    outputs = cell.get("outputs", [])
    errors = [o for o in outputs if o["output_type"] == "error"]
    assert not errors, f"{cell.source}\n{errors[0]['ename']}: {errors[0]['evalue']}"
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in outputs)


@pytest.mark.parametrize(
    ("name", "turn", "shows"),
    [
        ("01_quickstart.ipynb", "Thanks!", ["('user', 'Thanks!')"]),
        ("02_components.ipynb", "Show the metric cards", ["('Metric', 'MetricProps')"] * 2),
    ],
)
def test_the_cells_that_read_the_chat_back_still_run_after_the_user_chats(
    name: str, turn: str, shows: list[str]
) -> None:
    """Run All, then a message typed in the widget (sent here as the widget
    sends it), then the cells that read the chat run again: they show the
    longer history instead of failing an assertion on the first one."""
    import nbformat
    from nbclient import NotebookClient

    path = next(p for p in NOTEBOOKS if p.name == name)
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    readers = [c for c in code if "send(" not in c.source and "gu.Chat(" not in c.source]
    readers = [c for c in readers if "chat." in c.source and "def " not in c.source]
    assert readers, "no cell reads the chat back"
    again = [nbformat.v4.new_code_cell(f"await chat.send({turn!r});")]
    again += [nbformat.v4.new_code_cell(c.source) for c in readers]
    nb.cells = [*code, *again]
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
    shown = "\n".join(_text_of(c) for c in nb.cells[len(code) + 1 :])
    for text in shows:
        assert shown.count(text) >= shows.count(text), shown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_text_uses_no_emoji_a_browser_may_draw_as_a_box(path: Path) -> None:
    """Without an emoji font (many Linux desktops, headless Chromium) "📎"
    is an empty box: a control is named in words, as its label says."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    emoji = sorted({ch for ch in text if ord(ch) >= 0x1F000})
    assert not emoji, f"{path.name}: {emoji}"


def test_the_evaluation_table_shows_seconds_rounded() -> None:
    """06's table of ``gu.evaluate``'s rows: seconds to two decimals, not six."""
    import pandas as pd

    workbench = next(p for p in NOTEBOOKS if p.name == "06_workbench.ipynb")
    [cell] = [s for s in _code_cells(workbench) if "gu.evaluate(" in s]
    body = _tree(cell, workbench.name).body
    *statements, shown = body
    assert isinstance(shown, ast.Expr)
    columns = ["prompt", "expected", "called", "correct", "valid", "input_tokens", "seconds"]
    namespace: dict[str, Any] = {
        "gu": gu,
        "result": pd.DataFrame([["hi", None, None, True, True, 12, 0.0123456]], columns=columns),
    }
    kept = [s for s in statements if "await" not in ast.unparse(s)]  # not the evaluation itself
    exec(compile(ast.Module(kept, []), workbench.name, "exec"), namespace)
    table = eval(compile(ast.Expression(shown.value), workbench.name, "eval"), namespace)
    assert table["seconds"].tolist() == [0.01]
