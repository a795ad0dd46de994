"""Puts this checkout's ``src/`` and ``tests/`` first on ``sys.path``.

A benchmark runs as a script (``python benchmarks/bench_x.py``), so
``benchmarks/`` is on the path already; every module here imports this one
before the project's modules, so the package measured is this checkout's and
the test helpers (``openai_server``) import by name, as under pytest.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

sys.path[:0] = [p for p in (str(ROOT / "src"), str(ROOT / "tests")) if p not in sys.path]
