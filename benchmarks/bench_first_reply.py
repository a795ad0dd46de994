"""The first reply of a fresh process through ``OpenAIModel``, beside later ones.

``bench_lab`` measures the 2,000-token text reply in real JupyterLab (issue 16,
item 2: at most 0.1 s of kernel CPU, the client's decode included): a later
reply fits, the first reply of a kernel does not. This script says what the
difference is, outside Jupyter so that nothing else in the process counts:

- In a fresh interpreter, ``gu.Chat`` over the recording comm (``_kernel.py``)
  gets the same reply three times from the local server (another process),
  each time with a fresh chat, model and client. Best of 3 processes.
- The costs paid once per process, each timed alone in a fresh interpreter
  after ``import ipygenui.models.openai`` (best of 5): the openai SDK's
  chat-completions modules (it imports them on the first ``client.chat``),
  the HTTP core library (imported when the aiohttp transport sets up TLS,
  even for an ``http://`` URL), and loading the CA bundle into that context.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_first_reply.py``
"""

from __future__ import annotations

import os
import subprocess
import sys

from _paths import ROOT
from _results import update_section
from _server import server_process
from bench_startup import _env, import_seconds

TOKENS = 2_000
PROCESSES = 3
REPLIES = 3

CHILD = """
import asyncio, sys, time
sys.path[:0] = [{bench!r}, {tests!r}]
import _kernel
_kernel.install_recording_comm()
from ipygenui.widget.chat import Chat
from ipygenui.models.openai import OpenAIModel

async def main():
    cpu = []
    for _ in range({replies}):
        chat = Chat(model=OpenAIModel("bench", base_url={url!r}, api_key="k"))
        start = time.process_time()
        await chat.send("go")
        cpu.append(time.process_time() - start)
        assert chat.thread.messages[-1].status.type == "complete", chat.thread.messages[-1].status
    print(*cpu)

asyncio.run(main())
"""

SETUP = "import ipygenui.models.openai; "
ONCE = {  # label: (statement, the module it loads, which SETUP must not have loaded)
    "openai's chat-completions modules (first `client.chat`)": (
        "import openai.resources.chat.chat",
        "openai.resources.chat.chat",
    ),
    "the HTTP core library (`httpcore2`), imported by the transport's TLS set-up": (
        "import httpcore2",
        "httpcore2",
    ),
    "the CA bundle loaded into a TLS context": ("import ssl; ssl.create_default_context()", None),
}


def replies(url: str) -> list[float]:
    """CPU seconds of each reply, best per position over fresh processes."""
    code = CHILD.format(
        bench=str(ROOT / "benchmarks"), tests=str(ROOT / "tests"), url=url, replies=REPLIES
    )
    best = [float("inf")] * REPLIES
    for _ in range(PROCESSES):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()
        )
        cpu = [float(x) for x in out.stdout.split()]
        best = [min(a, b) for a, b in zip(best, cpu, strict=True)]
    return best


def not_loaded_by_setup(module: str) -> bool:
    """Whether ``module`` is still to load after SETUP (else importing it costs nothing)."""
    check = f"{SETUP}import sys; print({module!r} in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True, env=_env()
    )
    return out.stdout.strip() == "False"


def main() -> None:
    load = os.getloadavg()
    with server_process(rows=0, text_tokens=TOKENS) as url:
        cpu = replies(url)
    first, later = cpu[0], min(cpu[1:])
    once = {}
    for label, (statement, module) in ONCE.items():
        if module and not not_loaded_by_setup(module):
            raise SystemExit(f"{module} is already loaded by {SETUP!r}: measure something else")
        once[label] = import_seconds(statement, SETUP)[1]
    lines = [
        f"- first reply of a process: {first * 1000:.0f} ms CPU; later replies (a fresh chat, "
        f"model and client each): {', '.join(f'{c * 1000:.0f}' for c in cpu[1:])} ms; "
        f"difference {(first - later) * 1000:.0f} ms",
        *(
            f"- once per process, {label}: {seconds * 1000:.0f} ms CPU"
            for label, seconds in once.items()
        ),
        f"- those three together: {sum(once.values()) * 1000:.0f} ms of the "
        f"{(first - later) * 1000:.0f} ms difference; a later reply costs {later * 1000:.0f} ms, "
        "within the 0.1 s target, and the first adds what the SDK and the TLS set-up do once "
        "per process",
    ]
    print("\n".join(lines))
    body = "\n".join(
        [
            f"The {TOKENS:,}-token text reply through `OpenAIModel` and `gu.Chat` (recording comm,",
            "no Jupyter), the local server in another process sending as fast as it can.",
            f"Best of {PROCESSES} fresh processes; load average at the start: "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (2 cores).",
            "",
            *lines,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_first_reply.py`",
        ]
    )
    update_section("bench_first_reply", body)


if __name__ == "__main__":
    main()
