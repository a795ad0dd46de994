"""The Python files one gated tool call enters, in the order it first enters them.

A scripted model calls a tool that needs approval; the chat (over the tests'
recording comm) streams it, the approve click arrives as the browser sends it,
and the tool runs. Every function call into a file of the package is recorded
while that happens, and the files are printed with how often each was entered
from another file. docs/architecture.md's walk of one gated call is read
against this list.

Run from the checkout's root: ``.venv/bin/python tests/project/trace_gated_call.py``.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))  # the shared test helpers

import comm

import ipygenui as gu
from comm_helpers import RecordingComm, click, settle
from ipygenui.testing import ScriptedCall, ScriptedModel

PACKAGE = Path(gu.__file__).parent


@gu.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table from the warehouse."""
    return f"dropped {name}"


def trace() -> list[str]:
    """The package files entered, in order (a file entered from itself is not counted)."""
    entered: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        path = frame.f_code.co_filename
        if event == "call" and path.startswith(str(PACKAGE)):
            name = str(Path(path).relative_to(PACKAGE))
            if not entered or entered[-1] != name:
                entered.append(name)

    async def one_gated_call() -> None:
        comm.create_comm = lambda *a, **k: RecordingComm(*a, **k)
        model = ScriptedModel([ScriptedCall("drop_table", {"name": "t"}, id="call_1"), "Done."])
        chat = gu.Chat(model=model, tools=[drop_table])
        await asyncio.sleep(0)
        sys.setprofile(profile)
        chat.send("drop t")
        await settle(chat)
        click(chat, {"type": "approve", "tool_call_id": "call_1", "args": None})
        await settle(chat)
        sys.setprofile(None)
        chat.close()

    asyncio.run(one_gated_call())
    return entered


def main() -> None:
    entered = trace()
    counts = Counter(entered)
    print(f"{len(counts)} files entered {len(entered)} times")
    for name in dict.fromkeys(entered):
        print(f"{counts[name]:4d}  {name}")


if __name__ == "__main__":
    main()
