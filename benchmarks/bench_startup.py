"""Start-up (issue 7, item 7): ``import ipygenui`` and an empty chat's first paint.

- Import, each in a fresh interpreter (best of 5): ``import ipygenui`` (its
  public names load lazily), then ``gu.Chat`` (the widget stack: anywidget,
  ipywidgets, pydantic models, the runtime) and ``gu.Runtime`` alone.
- First paint in headless Chromium (``_page.py``): importing the widget's ES
  module, then rendering an empty chat to a laid-out DOM, then the time to
  the next painted frame. The JupyterLab figure (cell to visible widget) is in
  ``bench_lab``.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py``
"""

from __future__ import annotations

import os
import subprocess
import sys

from _page import widget_page
from _paths import ROOT
from _results import update_section

RUNS = 5

IMPORTS = {
    "`import ipygenui`": "import ipygenui",
    "`ipygenui.Runtime` (core, no widget code)": "import ipygenui as gu; gu.Runtime",
    "`ipygenui.Chat` (with the widget stack)": "import ipygenui as gu; gu.Chat",
}

PAINT_JS = """
async () => {
  const chat = new FakeModel('startup', {
    messages: [], phase: 'idle', running: false, suggestions: [], model_name: 'bench',
    offline: false, human_tools: [], component_specs: [], component_outputs: {},
  });
  const el = document.createElement('div');
  document.body.append(el);
  const t0 = performance.now();
  await window.__widget.render({ model: chat, el });
  window.__flushFrames();
  void el.querySelector('.gu-chat').offsetHeight;
  const built = performance.now() - t0;
  // the page's own animation frames (the widget's were queued by hand)
  await new Promise((resolve) => window.__realRAF(() => window.__realRAF(resolve)));
  return { built, painted: performance.now() - t0 };
}
"""


def _env() -> dict[str, str]:
    paths = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def import_seconds(statement: str) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    best = float("inf")
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        best = min(best, float(out.stdout.strip().splitlines()[-1]))
    return best


def heaviest_imports(statement: str, top: int = 6) -> list[tuple[str, float]]:
    """Packages by the import time of all their modules (``python -X importtime``)."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
    )
    found: dict[str, float] = {}
    for line in out.stderr.splitlines():
        head, _, rest = line.partition(":")
        fields = rest.split("|")
        if head != "import time" or len(fields) != 3 or not fields[0].strip().isdigit():
            continue
        package = fields[2].strip().split(".")[0]
        found[package] = found.get(package, 0.0) + int(fields[0]) / 1000  # self time
    return sorted(found.items(), key=lambda kv: kv[1], reverse=True)[:top]


def main() -> None:
    lines = [f"- {label}: {import_seconds(stmt) * 1000:.0f} ms" for label, stmt in IMPORTS.items()]
    heavy = heaviest_imports(IMPORTS["`ipygenui.Chat` (with the widget stack)"])
    lines.append(
        "- where that time goes, by package (own import time of its modules, one "
        "`-X importtime` run): " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in heavy)
    )
    with widget_page() as (page, import_ms, _origin):
        paint = page.evaluate(PAINT_JS)
    lines += [
        f"- widget ES module import in the page: {import_ms:.1f} ms",
        f"- empty chat rendered to a laid-out DOM: {paint['built']:.1f} ms; "
        f"first painted frame after {paint['painted']:.1f} ms",
    ]
    print("\n".join(lines))
    body = "\n".join(
        [
            f"Imports in a fresh interpreter each (best of {RUNS}); first paint in headless",
            "Chromium with the widget's own bundle (the JupyterLab figure, cell to visible",
            "widget, is in bench_lab).",
            "",
            *lines,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py`",
        ]
    )
    update_section("bench_startup", body)


if __name__ == "__main__":
    main()
