"""``chat.apps()``: the MCP apps a chat showed, read from Python, with the
real demo server (notebooks/mcp_demo_server.py).

Faults tried: the app's model context lost; a call that shows no app listed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ipygenui as gu
from ipygenui.components import ShownApp

DEMO_SERVER = Path(__file__).parents[2] / "notebooks" / "mcp_demo_server.py"


async def test_apps_reads_each_apps_call_result_and_context(tmp_path: Path) -> None:
    tools = gu.MCPTools.stdio(sys.executable, [str(DEMO_SERVER)], trust_annotations=True)
    runtime = gu.Runtime(model=gu.model("demo", delay=0), tools=[tools])
    try:
        await runtime.send("What's the weather in Paris?")  # get_weather: no app
        assert runtime.apps() == []
        await runtime.send("Show me the weather dashboard for Oslo")
        [app] = runtime.apps()
        part = runtime.thread.messages[-1].tool_calls[0]
        assert isinstance(app, ShownApp)
        assert (app.tool_call_id, app.tool_name) == (part.tool_call_id, "weather_dashboard")
        assert app.server == tools.display_name and app.server
        assert app.uri == "ui://ipygenui-demo/weather"
        assert app.input == {"city": "Oslo"}
        assert app.structured == {"city": "Oslo", "temperature_c": 22, "sky": "partly cloudy"}
        assert '"city": "Oslo"' in app.text
        assert app.model_context is None
        assert "<script" not in repr(app)  # the page is the iframe's alone

        context = {"content": [{"type": "text", "text": "showing Oslo"}]}
        runtime.set_app_context(app.tool_call_id, context)
        assert runtime.apps()[0].model_context == context
        runtime.save(tmp_path / "thread.json")
    finally:
        runtime.close()
    loaded = gu.Runtime.load(tmp_path / "thread.json", model=gu.model("demo", delay=0))
    try:
        [again] = loaded.apps()
        assert again == runtime.apps()[0]
    finally:
        loaded.close()
