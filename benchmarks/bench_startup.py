"""Start-up (issue 7, item 7): ``import ipygenui`` and an empty chat's first paint.

- Import, each in a fresh interpreter (best of 5, wall and CPU time, with
  bytecode cached as in an installed package): ``import ipygenui`` (its
  public names load lazily), ``gu.Runtime`` alone, then ``gu.Chat()`` (the
  widget stack: anywidget, ipywidgets, pydantic models, the runtime). The
  floor beside it: the libraries a Chat cannot show without (pydantic,
  anywidget with ipywidgets and IPython), imported alone.
- The widget bundle's size: it is sent with every Chat's comm_open and saved
  with the notebook's widget state. The code highlighter is a module of its
  own (``static/highlight.js``), sent by the kernel when a code block first
  shows; the baseline beside it, built in the same run, is the bundle with the
  highlighter in it, as it was before.
- First paint in headless Chromium (``_page.py``), for the packaged bundle and
  the baseline, interleaved, best of 5: importing the widget's ES module,
  then rendering an empty chat to a laid-out DOM, then the time to the next
  painted frame. The JupyterLab figure (cell to visible widget) is in
  ``bench_lab``.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py``
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _page import ESBUILD, STATIC, packaged_bundle, widget_page
from _paths import ROOT
from _results import update_section

RUNS = 5

CHAT = "`import ipygenui; gu.Chat()`"
FLOOR = "floor: `import pydantic, anywidget` (ipywidgets, IPython)"
NO_AGUI = "`import ipygenui; gu.Chat()` with `ag_ui` imported before (not timed)"
IN_KERNEL = (
    "`import ipygenui; gu.Chat()` as in a kernel: IPython imported and one cell run through "
    "its input transformer before the clock (not timed)"
)
IMPORTS = {
    "`import ipygenui`": "import ipygenui",
    "`ipygenui.Runtime` (core, no widget code)": "import ipygenui as gu; gu.Runtime",
    CHAT: "import ipygenui as gu; gu.Chat()",
    NO_AGUI: "import ipygenui as gu; gu.Chat()",
    IN_KERNEL: "import ipygenui as gu; gu.Chat()",
    FLOOR: "import pydantic, anywidget",
}
UNTIMED = {
    NO_AGUI: "import ag_ui.core; ",
    # a kernel has IPython loaded and runs every cell through its input transformer
    IN_KERNEL: (
        "from IPython.core.inputtransformer2 import TransformerManager; "
        "TransformerManager().transform_cell('1'); "
    ),
}
"""Work done before the clock starts: what start-up costs once AG-UI loads lazily, and
what it costs where a kernel has already done its own start-up."""
PYCACHE = tempfile.mkdtemp(prefix="gu-bench-pycache-")
"""Bytecode is written here (the first run of each statement), as an installed
package has it; a machine with PYTHONDONTWRITEBYTECODE would otherwise
measure compiling every module."""

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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
    return env


def import_seconds(statement: str, untimed: str = "") -> tuple[float, float]:
    """(wall, CPU) seconds of ``statement`` in a fresh interpreter, best of RUNS."""
    code = (
        f"{untimed}import time; t, c = time.perf_counter(), time.process_time(); "
        f"{statement}; print(time.perf_counter() - t, time.process_time() - c)"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=_env())
    wall = cpu = float("inf")
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()
        )
        run_wall, run_cpu = map(float, out.stdout.strip().splitlines()[-1].split())
        wall, cpu = min(wall, run_wall), min(cpu, run_cpu)
    return wall, cpu


def sizes(data: bytes) -> tuple[int, int]:
    """(bytes, gzipped bytes)."""
    return len(data), len(gzip.compress(data, 9))


def baseline_bundle() -> str:
    """The widget bundle with the code highlighter in it (as before it became a
    module of its own), built and minified as ``npm run build`` builds the package."""
    entry = 'export { default } from "./widget.js";\nimport "./markdown/highlight.js";\n'
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "baseline.js"
        subprocess.run(
            [str(ESBUILD), "--bundle", "--format=esm", "--minify", "--target=es2020",
             f"--outfile={out}", "--log-level=error"],
            input=entry, text=True, check=True, cwd=ROOT / "js" / "src",
        )  # fmt: skip
        return out.read_text("utf-8")


def first_paint(bundle: tuple[str, str, str]) -> dict[str, Any]:
    """Module import, empty chat laid out, first painted frame (ms) in a fresh page."""
    with widget_page(bundle) as (page, import_ms, _origin):
        paint = page.evaluate(PAINT_JS)
    return {"import": import_ms, **paint}


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
    load = os.getloadavg()
    times = {label: import_seconds(stmt, UNTIMED.get(label, "")) for label, stmt in IMPORTS.items()}
    lines = [
        f"- {label}: {wall * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU)"
        for label, (wall, cpu) in times.items()
    ]
    chat_wall, chat_cpu = times[CHAT]
    floor_wall, floor_cpu = times[FLOOR]
    lines.append(
        f"- {CHAT} in {chat_wall * 1000:.0f} ms (target <= 300 ms): "
        f"{'met' if chat_wall <= 0.3 else 'NOT met'}; of which the floor "
        f"{floor_wall * 1000:.0f} ms, ipygenui's own share "
        f"{(chat_wall - floor_wall) * 1000:.0f} ms "
        f"({(chat_cpu - floor_cpu) * 1000:.0f} ms CPU)"
    )
    heavy = heaviest_imports(IMPORTS[CHAT])
    lines.append(
        "- where that time goes, by package (own import time of its modules, one "
        "`-X importtime` run): " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in heavy)
    )
    packaged = packaged_bundle()
    baseline = (baseline_bundle(), packaged[1], "baseline")
    paints: dict[str, list[dict[str, Any]]] = {"packaged": [], "baseline": []}
    for _ in range(RUNS):  # interleaved: both see the same machine
        paints["packaged"].append(first_paint(packaged))
        paints["baseline"].append(first_paint(baseline))
    best = {
        name: {key: min(run[key] for run in runs) for key in ("import", "built", "painted")}
        for name, runs in paints.items()
    }
    size, zipped = sizes(packaged[0].encode())
    lazy_size, lazy_zipped = sizes((STATIC / "highlight.js").read_bytes())
    base_size, base_zipped = sizes(baseline[0].encode())
    now, before = best["packaged"], best["baseline"]
    lines += [
        f"- widget bundle (`static/widget.js`, minified): {size / 1000:.0f} KB, "
        f"{zipped / 1000:.0f} KB gzipped (sent with every Chat's comm_open); "
        f"before, with the highlighter in it: {base_size / 1000:.0f} KB, "
        f"{base_zipped / 1000:.0f} KB gzipped ({(1 - size / base_size) * 100:.0f}% cut)",
        f"- code highlighter (`static/highlight.js`, loaded when a code block first shows): "
        f"{lazy_size / 1000:.0f} KB, {lazy_zipped / 1000:.0f} KB gzipped",
        f"- first paint, packaged bundle (best of {RUNS}): module import {now['import']:.1f} ms, "
        f"empty chat laid out {now['built']:.1f} ms, painted after {now['painted']:.1f} ms; "
        f"before (same runs, interleaved): {before['import']:.1f} / {before['built']:.1f} / "
        f"{before['painted']:.1f} ms",
    ]
    print("\n".join(lines))
    body = "\n".join(
        [
            f"Imports in a fresh interpreter each (best of {RUNS}, bytecode cached as in an",
            "installed package); first paint in headless Chromium with the packaged bundle",
            "and the baseline (the JupyterLab figure, cell to visible widget, is in bench_lab).",
            f"Load average at the start: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (2 cores).",
            "",
            *lines,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py`",
        ]
    )
    update_section("bench_startup", body)


if __name__ == "__main__":
    main()
