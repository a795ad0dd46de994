"""What the JupyterLite site (lite/build.py) counts on from the package.

The browser kernel gets ipygenui's wheel without the OpenAI client (Pyodide's
lock lists the package's other dependencies only), so the offline path must
never import it: a chat, the demo model's answers and a sync tool call.
The site carries the shipped cassettes, so a notebook replays them offline.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# What the site leaves out of the browser kernel (lite/build.py BROWSER_OPTIONAL
# and what only the OpenAI client pulls in).
NOT_IN_THE_BROWSER = ["openai", "aiohttp", "httpx", "anyio", "jiter"]

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys
    import ipygenui as gu

    @gu.tool
    def get_weather(city: str) -> dict:
        \"\"\"Look up the current weather in a city.\"\"\"
        return {"city": city, "temperature_c": 21, "sky": "clear"}

    async def main():
        chat = gu.Chat()
        await chat.send("Hello! What can you do?")
        weather = gu.Chat(tools=[get_weather])
        reply = await weather.send("What's the weather in Paris?")
        assert [p.is_error for p in reply.tool_calls] == [False], reply

    asyncio.run(main())
    print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
    """
)


def test_the_offline_chat_imports_no_http_client() -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}  # no OPENAI_API_KEY
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    imported = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "ipygenui" in imported
    assert sorted(imported & set(NOT_IN_THE_BROWSER)) == []


def test_the_site_carries_every_shipped_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("lite_build", root / "lite" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    monkeypatch.setattr(build, "CONTENTS", tmp_path / "contents")
    build.stage_contents({"packages": {}})
    shipped = sorted(p.name for p in (root / "notebooks" / "cassettes").glob("*.cassette"))
    assert {"lesson.cassette", "tools_lesson.cassette"} <= set(shipped)
    for name in shipped:
        staged = tmp_path / "contents" / "cassettes" / name
        assert staged.read_bytes() == (root / "notebooks" / "cassettes" / name).read_bytes()
