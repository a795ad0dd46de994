"""Run every benchmark in this folder, in order, each in its own process.

Each ``bench_*.py`` prints its figures and rewrites its own section of
``benchmarks/RESULTS.md``; this script only runs them and stops at the first
failure so a broken benchmark is never reported as a result.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if not scripts:
        print("no benchmarks found", file=sys.stderr)
        return 1
    for script in scripts:
        print(f"== {script.name}", flush=True)
        done = subprocess.run([sys.executable, str(script)], check=False)
        if done.returncode != 0:
            print(f"{script.name} failed with exit code {done.returncode}", file=sys.stderr)
            return done.returncode
    print(f"results: {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
