"""Real JupyterLab + Chromium: an MCP app's first paint and what one app and
ten apps in a thread cost, beside the same for A2UI surfaces (issue 25).

One JupyterLab server and one headless Chromium (the e2e harness); each
scenario gets a fresh notebook and kernel. A scripted model calls
``show_board`` on a real MCP server written with the ``mcp`` SDK
(``benchmarks/_apps_server.py``), once per message: its app paints the
tool's result and, one frame later, posts ``bench/painted``.

- First paint: in the page, a MutationObserver stamps (``performance.now()``
  on the wall clock) the moment each call's card shows its result and the
  moment its iframe enters the DOM; a ``message`` listener stamps the app's
  ``ui/notifications/initialized``; the app stamps when it got the result and
  when the frame that shows it was painted.
- Kernel cost: CPU of the kernel process (``psutil``), and of the MCP server
  it started, from the send until the websocket is quiet; bytes and frames the
  page received on its websockets.
- Browser cost: after a forced garbage collection, the page's JS heap and DOM
  nodes and its frames (DevTools ``Performance.getMetrics``; an app's frame
  may run in a process of its own, so its heap is not the page's), the app
  iframes in the DOM, the unique memory (USS) of every Chromium process,
  apps' processes included, and how many renderer processes run.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_apps.py`` (``BENCH_KINDS=app``
or ``a2ui``: one scenario alone)
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

import psutil
from playwright.sync_api import Browser, expect

import _paths  # noqa: F401  (this checkout's src/ and tests/ first on sys.path)
from _page import stats
from _results import update_section
from bench_lab import NOTEBOOK, WireCounter, lab, progress
from e2e.harness import LabPage, LabServer
from e2e.widget import send_from_ui

APPS_SERVER = Path(__file__).with_name("_apps_server.py")
COUNT = 10
QUIET = 1.0
"""Seconds without a websocket frame that end a measurement."""
WAIT = 60.0
"""Ceiling for a scenario step on a slow machine; never a measured figure."""

PREAMBLE = """
import json, os, re, sys
import ipygenui as gu
from ipygenui.testing import ScriptedCall, ScriptedModel, ScriptedReply, last_user_text
BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"

def number(request):
    return int(re.findall(r"\\d+", last_user_text(request) or "0")[0])

def board(request):
    if request.messages and request.messages[-1].get("role") == "tool":
        return ScriptedReply(text="Shown.")
    return ScriptedCall("show_board", {"n": number(request)})

def surface(request):
    if request.messages and request.messages[-1].get("role") == "tool":
        return ScriptedReply(text="Shown.")
    sid = f"s{number(request)}"
    rows = [{"id": f"r{i}", "component": "Text", "text": f"row {i}: " + "x" * 40}
            for i in range(40)]
    go = {"event": {"name": "go", "context": {"who": {"path": "/name"}}}}
    components = [
        {"id": "root", "component": "Card", "child": "col"},
        {"id": "col", "component": "Column",
         "children": ["title", "name", "go", *(r["id"] for r in rows)]},
        {"id": "title", "component": "Text", "text": "Board " + sid, "variant": "h3"},
        {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
        {"id": "go_label", "component": "Text", "text": "Go"},
        {"id": "go", "component": "Button", "child": "go_label", "action": go},
        *rows,
    ]
    messages = [
        {"version": "v0.9", "createSurface": {"surfaceId": sid, "catalogId": BASIC}},
        {"version": "v0.9", "updateComponents": {"surfaceId": sid, "components": components}},
        {"version": "v0.9",
         "updateDataModel": {"surfaceId": sid, "path": "/", "value": {"name": ""}}},
    ]
    return ScriptedCall("show_a2ui", {"messages": messages})

print(os.getpid())
"""

SETUPS = {
    "app": (
        "tools = gu.MCPTools.stdio(sys.executable, [{server!r}], requires_approval=False)\n"
        "chat = gu.Chat(model=ScriptedModel(board, delay=0), tools=[tools])\nchat"
    ),
    "a2ui": "chat = gu.Chat(model=ScriptedModel(surface, delay=0), components=[gu.A2UI])\nchat",
}

# Stamps (wall-clock ms) per tool call: result shown in its card, iframe in the
# DOM, the app's initialized, and the app's own got/painted times.
RECORDER_JS = """
() => {
  const now = () => performance.timeOrigin + performance.now();
  const root = document.querySelector('.jp-OutputArea-output .gu-chat');
  const calls = {};
  const entry = (card) => (calls[card.dataset.toolCallId] ??= {});
  const look = () => {
    for (const card of root.querySelectorAll('.gu-tool-call[data-tool-call-id]')) {
      const e = entry(card);
      if (e.result === undefined && card.dataset.status === 'done') e.result = now();
      if (e.iframe === undefined && card.querySelector('iframe.gu-app-frame')) e.iframe = now();
      const drawn = card.querySelector('[data-a2ui-id="title"]');
      if (e.surface === undefined && drawn) e.surface = now();
    }
  };
  const observer = new MutationObserver(look);
  observer.observe(root, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'],
  });
  const cardOf = (source) => {
    for (const f of root.querySelectorAll('iframe.gu-app-frame')) {
      if (f.contentWindow === source) return f.closest('.gu-tool-call');
    }
    return null;
  };
  window.addEventListener('message', (event) => {
    const m = event.data;
    const card = m && m.method ? cardOf(event.source) : null;
    if (!card) return;
    const e = entry(card);
    if (m.method === 'ui/notifications/initialized') e.initialized ??= now();
    if (m.method === 'bench/painted') {
      Object.assign(e, { got: m.params.got, painted: m.params.painted });
    }
  });
  window.__benchCalls = calls;
}
"""


def chromium_memory() -> tuple[float, int]:
    """(unique memory (USS, bytes) of every Chromium process this script started,
    how many of them are renderers)."""
    total, renderers = 0.0, 0
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "chrom" in proc.name().lower():
                total += proc.memory_full_info().uss
                renderers += any(a == "--type=renderer" for a in proc.cmdline())
    return total, renderers


class Scenario:
    """A fresh notebook and kernel showing one chat of ``kind``."""

    counter = 0

    def __init__(self, server: LabServer, browser: Browser, kind: str) -> None:
        Scenario.counter += 1
        self.kind = kind
        self.path = f"bench_apps_{Scenario.counter}.ipynb"
        (server.root / self.path).write_text(json.dumps(NOTEBOOK))
        self.lab = LabPage(server, browser)
        self.wire = WireCounter()
        self.lab.page.on("websocket", self.wire.attach)
        self.lab.open(self.path)
        self.kernel = psutil.Process(int(self.lab.run_code(PREAMBLE).strip().splitlines()[-1]))
        self.cdp = self.lab.context.new_cdp_session(self.lab.page)
        self.cdp.send("Performance.enable")
        progress(f"{kind}: kernel {self.kernel.pid} ready")

    def cpu(self) -> tuple[float, float]:
        """(kernel CPU s, CPU s of the kernel's child processes: the MCP server)."""
        own = self.kernel.cpu_times()
        children = 0.0
        for child in self.kernel.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                t = child.cpu_times()
                children += t.user + t.system
        return own.user + own.system, children

    def wait_quiet(self) -> None:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and time.monotonic() - self.wire.last < QUIET:
            self.lab.page.wait_for_timeout(100)

    def browser_cost(self) -> dict[str, float]:
        self.cdp.send("HeapProfiler.collectGarbage")
        listed = self.cdp.send("Performance.getMetrics")["metrics"]
        metrics = {m["name"]: m["value"] for m in listed}
        iframes = self.lab.page.locator("iframe.gu-app-frame").count()
        uss, renderers = chromium_memory()
        return {
            "heap": metrics["JSHeapUsedSize"],
            "nodes": metrics["Nodes"],
            "page_frames": metrics["Frames"],
            "iframes": iframes,
            "uss": uss,
            "renderers": renderers,
        }

    def wait_shown(self, count: int) -> None:
        """Until ``count`` calls are painted (apps) or drawn (surfaces)."""
        key = "painted" if self.kind == "app" else "surface"
        try:
            self.lab.page.wait_for_function(
                f"(n) => Object.values(window.__benchCalls).filter((e) => e.{key}).length >= n",
                arg=count,
                timeout=WAIT * 1000,
            )
        except Exception as exc:
            seen = self.lab.page.evaluate("() => window.__benchCalls")
            raise RuntimeError(f"{count} not shown: {seen}") from exc

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.lab.close()


def measure(server: LabServer, browser: Browser, kind: str) -> dict[str, Any]:
    sc = Scenario(server, browser, kind)
    try:
        sc.lab.run_code(SETUPS[kind].replace("{server!r}", repr(str(APPS_SERVER))))
        chat = sc.lab.chat(0)
        sc.wait_quiet()
        sc.lab.page.evaluate(RECORDER_JS)
        before = sc.browser_cost()
        points: dict[int, dict[str, Any]] = {}
        sc.wire.reset()
        cpu0, server0 = sc.cpu()
        for n in range(1, COUNT + 1):
            # from the composer, as a user would: a cell run below would scroll the
            # chat out of view, and Chromium does not paint an iframe out of view
            send_from_ui(chat, f"show {n}")
            sc.wait_shown(n)
            replied = chat.locator('.gu-message[data-role="assistant"][data-status="complete"]')
            expect(replied).to_have_count(n, timeout=WAIT * 1000)
            if n in (1, COUNT):
                sc.wait_quiet()
                cpu, server_cpu = sc.cpu()
                points[n] = {
                    "cpu": cpu - cpu0,
                    "server_cpu": server_cpu - server0,
                    "bytes": sc.wire.bytes,
                    "frames": sc.wire.frames,
                    **{k: v - before[k] for k, v in sc.browser_cost().items()},
                }
                progress(f"{kind}: {n} shown: {points[n]}")
        calls = sc.lab.page.evaluate("() => window.__benchCalls")
        thread_kb = sc.lab.run_json(
            "len(__import__('ipygenui.persistence').persistence.encode_thread(chat.thread)) / 1000"
        )
    finally:
        sc.close()
        server.shutdown_kernels()
    return {"points": points, "calls": list(calls.values()), "thread_kb": thread_kb}


def _cost_rows(name: str, r: dict[str, Any]) -> list[str]:
    rows = []
    for n, p in sorted(r["points"].items()):
        rows.append(
            f"| {name}, {n} | {p['cpu'] * 1000:,.0f} ms | {p['server_cpu'] * 1000:,.0f} ms "
            f"| {p['bytes'] / 1e3:,.1f} KB in {p['frames']:,} | {p['heap'] / 1e6:+,.2f} MB "
            f"| {p['nodes']:+,.0f} | {p['iframes']:+.0f} ({p['page_frames']:+.0f}) "
            f"| {p['uss'] / 1e6:+,.0f} MB | {p['renderers']:+d} |"
        )
    return rows


def main() -> None:
    load = os.getloadavg()
    wall = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    for kind in os.environ.get("BENCH_KINDS", "app,a2ui").split(","):
        # a browser of its own: the last scenario's processes do not exit during this one
        with lab() as (server, browser):
            try:
                results[kind] = measure(server, browser, kind)
            except Exception as exc:  # one broken scenario must not hide the other's figures
                errors.append(f"- {kind} failed: {type(exc).__name__}: {str(exc)[:300]}")
                print(errors[-1], flush=True)
    wall = time.perf_counter() - wall
    lines = [
        "Real JupyterLab and headless Chromium (the e2e harness), a fresh Lab, browser and",
        f"kernel per scenario; {COUNT} messages sent from the composer, each with one call.",
        "Load average at the start:",
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (2 cores, shared).",
        "",
    ]
    app = results.get("app")
    if app:
        calls = [c for c in app["calls"] if "painted" in c and "result" in c]
        paint = stats([c["painted"] - c["result"] for c in calls])
        got = stats([c["got"] - c["result"] for c in calls])
        boot = stats([c["initialized"] - c["iframe"] for c in calls if "initialized" in c])
        early = sum(1 for c in calls if c.get("initialized", 1e300) < c["result"])
        lines += [
            "### An MCP app's first paint",
            "",
            f"- the tool's result shown in its card to the app's frame with the result painted: "
            f"p50 {paint['p50']:.1f} ms, max {paint['max']:.1f} ms ({paint['n']} apps); "
            f"to the app's message handler: p50 {got['p50']:.1f} ms, max {got['max']:.1f} ms",
            f"- the iframe in the DOM to the app's `ui/notifications/initialized`: "
            f"p50 {boot['p50']:.1f} ms, max {boot['max']:.1f} ms; {early} of {len(calls)} apps "
            "were initialized before their result was shown",
            "",
        ]
    lines += [
        "### Cost of one and of ten in a thread (from the first send; browser figures as",
        "growth over the empty chat, after a forced GC)",
        "",
        "| what, how many | kernel CPU | MCP server CPU | websocket in | page JS heap "
        "| DOM nodes | app iframes (page frames) | Chromium USS | renderer processes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, label in (("app", "MCP app `show_board`"), ("a2ui", "A2UI surface")):
        if kind in results:
            lines += _cost_rows(label, results[kind])
    lines.append("")
    for kind, label in (("app", "MCP apps"), ("a2ui", "A2UI surfaces")):
        if kind in results:
            lines.append(
                f"- the thread of {COUNT} {label} as its saved file (`encode_thread`): "
                f"{results[kind]['thread_kb']:,.1f} KB"
            )
    lines += [
        "- the app is about 6 KB of HTML; the A2UI surface has the same 40 rows of text, a",
        "  field and a button. The page's heap leaves out an app frame that Chromium runs in a",
        "  process of its own (sandboxed frames are isolated); the USS column counts it.",
        "",
        *errors,
        "",
        f"Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_apps.py` ({wall:.0f} s)",
    ]
    body = "\n".join(lines)
    print(body)
    update_section("bench_apps", body)


if __name__ == "__main__":
    main()
