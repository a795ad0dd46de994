"""A saved notebook's size per chat: the widget bundle once, not once per chat.

Notebooks with 1 and 5 ``gu.Chat()`` cells are executed by a real kernel
(``nbclient``, which keeps the widget state the kernel sent, as JupyterLab
saves it in the notebook's metadata) and written to disk. Their sizes, and
what each chat after the first adds (``(size_5 - size_1) / 4``), for this
checkout and for the baseline: the package as it was before the shared
bundle model (commit ``BASELINE``, its ``src/`` from ``git archive``, with
this checkout's built ``static/`` so both carry the same bundle), when every
Chat's comm_open carried ``widget.js`` and ``widget.css`` itself.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_saved_notebook.py``
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _paths import ROOT
from _results import update_section

BASELINE = "1618945"
"""The last commit whose Chat sent the bundle in its own ``_esm``/``_css``."""
COUNTS = (1, 5)
TARGET = 10_000
"""Bytes a chat after the first may add to a saved notebook."""

_EXECUTE = """
import sys, nbformat
from nbclient import NotebookClient
n, out = int(sys.argv[1]), sys.argv[2]
nb = nbformat.v4.new_notebook()
cells = ["import ipygenui as gu"] + ["gu.Chat()"] * n
nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True).execute()
nbformat.write(nb, out)
"""


def _baseline_src(tmp: Path) -> Path:
    """The baseline's ``src/`` with this checkout's built frontend in it."""
    archive = tmp / "baseline.tar"
    subprocess.run(["git", "archive", "-o", str(archive), BASELINE, "src"], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(tmp / "baseline", filter="data")
    src = tmp / "baseline" / "src"
    shutil.copytree(ROOT / "src" / "ipygenui" / "static", src / "ipygenui" / "static")
    return src


def _saved(src: Path, n: int, out: Path) -> dict[str, int]:
    """Execute an ``n``-chat notebook against ``src``; its bytes and its widget state's."""
    env = {**os.environ, "PYTHONPATH": str(src), "OPENAI_API_KEY": ""}
    subprocess.run(
        [sys.executable, "-c", _EXECUTE, str(n), str(out)], env=env, check=True, timeout=300
    )
    notebook = json.loads(out.read_text("utf-8"))
    state = notebook["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]
    return {"file": out.stat().st_size, "state": len(json.dumps(state))}


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for label, src in (("baseline", _baseline_src(tmp)), ("now", ROOT / "src")):
            sizes = {n: _saved(src, n, tmp / f"{label}-{n}.ipynb") for n in COUNTS}
            one, five = sizes[1]["file"], sizes[5]["file"]
            rows.append((label, one, five, (five - one) / 4))
    lines = [
        "| package | 1 chat | 5 chats | each chat after the first |",
        "|---|---:|---:|---:|",
    ]
    for label, one, five, per in rows:
        name = f"before (`{BASELINE}`)" if label == "baseline" else "now (shared bundle model)"
        sizes_kb = " | ".join(f"{value / 1000:.1f} KB" for value in (one, five, per))
        lines.append(f"| {name} | {sizes_kb} |")
    per_now = rows[-1][3]
    verdict = "met" if per_now < TARGET else "MISSED"
    lines += [
        "",
        f"Target: each chat after the first adds under {TARGET / 1000:.0f} KB: {verdict} "
        f"({per_now / 1000:.1f} KB).",
    ]
    print("\n".join(lines))
    body = "\n".join(
        [
            "Saved `.ipynb` bytes of notebooks with 1 and 5 empty `gu.Chat()` cells, executed by",
            "a real kernel (nbclient, widget state stored in the metadata as JupyterLab saves",
            "it). The baseline is the package before the shared bundle model, with the same",
            "built bundle.",
            "",
            *lines,
            "",
            "Run: `PYTHONPATH=src .venv/bin/python benchmarks/bench_saved_notebook.py`",
        ]
    )
    update_section("bench_saved_notebook", body)


if __name__ == "__main__":
    main()
