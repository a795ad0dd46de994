"""The MCP server of ``bench_apps.py``, built with the ``mcp`` SDK (stdio).

One tool, ``show_board``, whose ``_meta.ui.resourceUri`` names the app
``ui://bench/board``: a small page (about 6 KB, like a real dashboard's
markup and script) that paints the tool's input and result and, one frame
after painting the result, posts a ``bench/painted`` notification with its
wall-clock time, so the page can time the result to the app's paint.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("ipygenui-bench-apps")
UI = "ui://bench/board"
MIME = "text/html;profile=mcp-app"

ROWS = "".join(
    f"<tr><td>row {i}</td><td class='v' id='v{i}'>-</td><td>{'x' * 40}</td></tr>" for i in range(40)
)
BOARD_HTML = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Board</title>
<style>body {{ font: 13px sans-serif; margin: 0; padding: 8px; }} td {{ padding: 1px 6px; }}</style>
</head><body>
<h3 id="title">Board</h3><div>input: <b id="input">none</b> · result: <b id="result">none</b></div>
<table>{ROWS}</table>
<script>
const now = () => performance.timeOrigin + performance.now();
const post = (m) => window.parent.postMessage({{ jsonrpc: "2.0", ...m }}, "*");
window.addEventListener("message", (event) => {{
  const m = event.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id === 1 && !m.method) {{
    post({{ method: "ui/notifications/initialized", params: {{}} }});
    return;
  }}
  if (m.method === "ui/notifications/tool-input") {{
    document.getElementById("input").textContent = JSON.stringify(m.params.arguments);
  }} else if (m.method === "ui/notifications/tool-result") {{
    const got = now();
    const text = (m.params.content || []).map((c) => c.text).join(" ");
    document.getElementById("result").textContent = text;
    for (const td of document.querySelectorAll(".v")) td.textContent = String(got % 97 | 0);
    // the frame with the result is painted when the next one starts
    requestAnimationFrame(() => requestAnimationFrame(() =>
      post({{ method: "bench/painted", params: {{ got, painted: now() }} }})));
  }} else if (m.method === "ui/resource-teardown") {{
    post({{ id: m.id, result: {{}} }});
  }}
}});
post({{ id: 1, method: "ui/initialize", params: {{ appInfo: {{ name: "board", version: "1" }},
  appCapabilities: {{}}, protocolVersion: "2026-01-26" }} }});
</script></body></html>
"""


@server.resource(UI, name="board", mime_type=MIME)
def board_app() -> str:
    """The board app."""
    return BOARD_HTML


@server.tool(meta={"ui": {"resourceUri": UI}})
def show_board(n: int) -> str:
    """Show board number ``n``."""
    return f"Board {n} shown"


if __name__ == "__main__":
    server.run()
