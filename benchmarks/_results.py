"""Write one benchmark's section of benchmarks/RESULTS.md, keeping the others.

The file starts with a description of the machine (refreshed on every write);
each benchmark owns the block between its ``<!-- section: name -->`` markers,
replaced when it runs again.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib.metadata
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")
_MACHINE = re.compile(r"<!-- machine -->.*?<!-- /machine -->\n?", re.S)


def machine() -> str:
    """nproc, CPU model and Python version, as markdown lines."""
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"- nproc: {os.cpu_count()}\n"
        f"- CPU: {model}\n"
        f"- Python: {sys.version.split()[0]} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.machine()}\n" + _more_facts()
    )


def _more_facts() -> str:
    """Memory, load, the browser-side versions and the date (each only when known)."""
    lines = []
    try:
        meminfo = Path("/proc/meminfo").read_text().split()
        lines.append(f"- memory: {int(meminfo[meminfo.index('MemTotal:') + 1]) / 2**20:.1f} GiB")
    except (OSError, ValueError, IndexError):
        pass
    if hasattr(os, "getloadavg"):
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        lines.append(f"- load average when written (1/5/15 min): {load}")
    for label, cmd in (("Node", ["node", "--version"]), ("Chromium", ["chromium", "--version"])):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=False)
            if out.returncode == 0 and out.stdout.strip():
                lines.append(f"- {label}: {out.stdout.strip()}")
        except (OSError, subprocess.SubprocessError):
            pass
    versions = []
    for dist in ("jupyterlab", "ipykernel", "anywidget", "ipywidgets", "openai"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
    if versions:
        lines.append(f"- packages: {', '.join(versions)}")
    lines.append(f"- written: {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}")
    return "".join(line + "\n" for line in lines)


def update_section(name: str, body: str, path: Path = RESULTS) -> None:
    """Replace (or append) the section ``name`` with ``body`` (markdown)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n\n"
    block = f"<!-- machine -->\n{machine()}<!-- /machine -->\n"
    if _MACHINE.search(text):
        text = _MACHINE.sub(lambda _: block, text, count=1)
    else:
        head, sep, rest = text.partition("\n\n")
        text = f"{head}{sep}{block}\n{rest}" if sep else f"{text}\n\n{block}\n"
    start, end = f"<!-- section: {name} -->", f"<!-- /section: {name} -->"
    section = f"{start}\n## {name}\n\n{body.strip()}\n{end}\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end) + r"\n?", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")
