"""The chat widget's frontend alone in headless Chromium, on a stand-in model.

The ESM bundle is built from ``js/src`` (esbuild, when ``js/node_modules`` is
there; else the packaged ``static/widget.js``) and imported in a blank page
with the widget's CSS. A small fake of the anywidget model (traits, events,
child models through ``widget_manager.get_model``) feeds it exactly what the
kernel would send; ``requestAnimationFrame`` is queued by hand so a frame's
render can be timed synchronously, including the layout it forces.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from _paths import ROOT
from e2e.harness import CHROMIUM_ARGS, require_chromium

STATIC = ROOT / "src" / "ipygenui" / "static"
ESBUILD = ROOT / "js" / "node_modules" / ".bin" / "esbuild"


def _esbuild(entry: str, out: Path, *flags: str) -> bool:
    source = str(ROOT / "js" / "src" / entry)
    cmd = [str(ESBUILD), source, "--bundle", *flags, f"--outfile={out}", "--log-level=error"]
    done = subprocess.run(cmd, check=False)
    return done.returncode == 0


def widget_bundle() -> tuple[str, str, str]:
    """(ESM source, CSS, where it came from): built from js/src when possible.

    The script is not minified, so a profile names the functions of js/src.
    """
    if ESBUILD.exists():
        with tempfile.TemporaryDirectory() as tmp:
            js, css = Path(tmp) / "widget.js", Path(tmp) / "widget.css"
            if _esbuild("widget.js", js, "--format=esm", "--target=es2020") and _esbuild(
                "widget.css", css, "--minify"
            ):
                return js.read_text("utf-8"), css.read_text("utf-8"), "js/src"
    return packaged_bundle()


# A fake anywidget model and widget manager, and a manual animation-frame queue.
PAGE_SETUP_JS = """
async ([source, css]) => {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
  const frames = [];
  window.__realRAF = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (fn) => { frames.push(fn); return frames.length; };
  window.__flushFrames = () => {
    while (frames.length) frames.shift()(performance.now());
  };
  const models = new Map();
  class FakeModel {
    constructor(id, state) {
      this.model_id = id; this.state = state; this.handlers = {}; this.sent = [];
      this.widget_manager = { get_model: async (ref) => models.get(ref) };
      models.set(id, this);
    }
    get(key) { return this.state[key]; }
    set(key, value) {
      this.state[key] = value; this.trigger('change:' + key); this.trigger('change');
    }
    on(name, fn) { (this.handlers[name] ??= []).push(fn); }
    off(name, fn) { this.handlers[name] = (this.handlers[name] ?? []).filter((f) => f !== fn); }
    trigger(name, ...args) { for (const fn of this.handlers[name] ?? []) fn(...args); }
    send(msg) { this.sent.push(msg); }
  }
  window.FakeModel = FakeModel;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const start = performance.now();
  window.__widget = (await import(url)).default;
  return performance.now() - start;
}
"""


def cpu_profile_summary(profile: dict[str, Any], top: int = 10) -> list[tuple[str, float]]:
    """Self time (ms) per function of a DevTools ``Profiler.stop`` profile, largest first."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_ms: dict[int, float] = {}
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=False):
        self_ms[node_id] = self_ms.get(node_id, 0.0) + delta / 1000
    by_name: dict[str, float] = {}
    for node_id, ms in self_ms.items():
        frame = nodes[node_id]["callFrame"]
        name = frame["functionName"] or "(anonymous)"
        if frame.get("url"):
            url = frame["url"]
            where = "widget bundle" if url.startswith("blob:") else url.rsplit("/", 1)[-1][:40]
            name = f"{name} ({where}:{frame['lineNumber'] + 1})"
        by_name[name] = by_name.get(name, 0.0) + ms
    ranked = sorted(by_name.items(), key=lambda kv: kv[1], reverse=True)
    return [(name, ms) for name, ms in ranked if not name.startswith("(idle)")][:top]


def packaged_bundle() -> tuple[str, str, str]:
    """(ESM source, CSS, origin) of the built package (``npm run build``: minified)."""
    js, css = (STATIC / "widget.js").read_text("utf-8"), (STATIC / "widget.css").read_text("utf-8")
    return js, css, "static/widget.js"


@contextlib.contextmanager
def widget_page(bundle: tuple[str, str, str] | None = None) -> Iterator[tuple[Page, float, str]]:
    """A blank page with the widget module imported: (page, import ms, bundle origin).
    ``bundle``: (source, CSS, origin), by default built from js/src (`widget_bundle`)."""
    source, css, origin = bundle or widget_bundle()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=require_chromium(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_content("<!doctype html><html><body><div id='out'></div></body></html>")
            import_ms = page.evaluate(PAGE_SETUP_JS, [source, css])
            yield page, float(import_ms), origin
        finally:
            browser.close()


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))
    return ordered[rank]


def stats(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": percentile(values, 0.5),
        "p95": percentile(values, 0.95),
        "max": max(values) if values else float("nan"),
    }
