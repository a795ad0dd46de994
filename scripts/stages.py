"""Run the stages of ``make test`` / ``make check`` and print how long each took.

The Makefile calls it once per step; it needs only the standard library, so it
runs before the project's venv exists::

    python3 scripts/stages.py begin make test
    python3 scripts/stages.py run setup -- make setup
    python3 scripts/stages.py run e2e -- make e2e  docs -- make docs
    python3 scripts/stages.py end

``run`` takes one stage or several, each ``NAME -- COMMAND...`` (a word
followed by ``--`` starts the next). Several run at the same time: the first
with its output live, the others' output held and printed as each finishes,
so no two stages' lines interleave. Each stage's start, wall time and CPU
time (its processes' and their children's, from ``os.wait4``) go to
the record (the file ``STAGE_TIMES`` names, default ``.stage-times``). When a
stage fails, ``run`` prints the times so far and exits with its status, so
make stops there; ``end`` prints the table of a green run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypedDict

RECORD = Path(os.environ.get("STAGE_TIMES", ".stage-times"))


class _Timed(TypedDict):
    name: str
    start: float
    seconds: float
    cpu: float
    status: int


class _Record(TypedDict):
    title: str
    began: float
    stages: list[_Timed]


def _load() -> _Record:
    if not RECORD.exists():  # `run` without `begin`: time from now
        return {"title": "stages", "began": time.time(), "stages": []}
    record: _Record = json.loads(RECORD.read_text(encoding="utf-8"))
    return record


def _save(record: _Record) -> None:
    RECORD.write_text(json.dumps(record, indent=1), encoding="utf-8")


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}"


def table(record: _Record) -> str:
    """The stages in the order they started: start (since ``begin``), wall time,
    CPU time, result. The total's CPU says how long the run must take at the
    least on a machine with that many cores."""
    stages = sorted(record["stages"], key=lambda stage: stage["start"])
    width = max([len(stage["name"]) for stage in stages] + [len("stage")])
    rows = [f"{'stage':<{width}}  start   time    cpu  result"]
    for stage in stages:
        start, seconds = _clock(stage["start"] - record["began"]), _clock(stage["seconds"])
        cpu = _clock(stage.get("cpu", 0.0))
        result = "ok" if stage["status"] == 0 else f"FAILED ({stage['status']})"
        rows.append(f"{stage['name']:<{width}}  {start:>5}  {seconds:>5}  {cpu:>5}  {result}")
    total = _clock(time.time() - record["began"])
    cpu = _clock(sum(stage.get("cpu", 0.0) for stage in stages))
    rows.append(
        f"{'total':<{width}}  {'':>5}  {total:>5}  {cpu:>5}  wall clock of {record['title']}"
    )
    rule = "-" * max(len(row) for row in rows)
    return "\n".join([rule, *rows, rule])


def _parse(argv: list[str]) -> list[tuple[str, list[str]]]:
    """``NAME -- CMD... NAME -- CMD...`` into [(NAME, CMD), ...]."""
    stages: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(argv):
        if i + 1 >= len(argv) or argv[i + 1] != "--":
            raise SystemExit(f"stages.py run: expected NAME -- COMMAND, got {argv[i:]}")
        name, i = argv[i], i + 2
        command: list[str] = []
        while i < len(argv) and not (i + 1 < len(argv) and argv[i + 1] == "--"):
            command.append(argv[i])
            i += 1
        if not command:
            raise SystemExit(f"stages.py run: the stage {name} has no command")
        stages.append((name, command))
    return stages


@dataclass
class _Running:
    name: str
    command: list[str]
    proc: subprocess.Popen[bytes]
    started: float
    held: IO[bytes] | None  # the output of a stage that runs beside the live one

    def print_held(self) -> None:
        if self.held is None:
            return
        self.held.seek(0)
        sys.stdout.write(f"\n===== {self.name} (ran beside another stage) =====\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(self.held.read())
        sys.stdout.write(f"===== end of {self.name} =====\n")
        sys.stdout.flush()
        self.held.close()


def _start(name: str, command: list[str], live: bool) -> _Running:
    started = time.time()
    if live:
        return _Running(name, command, subprocess.Popen(command), started, None)
    held = tempfile.TemporaryFile()  # noqa: SIM115 - closed once printed
    proc = subprocess.Popen(command, stdout=held, stderr=subprocess.STDOUT)
    return _Running(name, command, proc, started, held)


def run(argv: list[str]) -> int:
    """Run the stages (at the same time when several); 0, or the first failure's status."""
    running = [_start(name, cmd, i == 0) for i, (name, cmd) in enumerate(_parse(argv))]
    failed: list[_Running] = []
    while running:
        for stage in list(running):
            # wait4, not poll: the finished stage's CPU time comes with its status
            pid, wait_status, usage = os.wait4(stage.proc.pid, os.WNOHANG)
            if pid == 0:
                continue
            status = os.waitstatus_to_exitcode(wait_status)
            stage.proc.returncode = status
            running.remove(stage)
            stage.print_held()
            record = _load()
            seconds = time.time() - stage.started
            cpu = usage.ru_utime + usage.ru_stime
            record["stages"].append(
                {
                    "name": stage.name,
                    "start": stage.started,
                    "seconds": seconds,
                    "cpu": cpu,
                    "status": status,
                }
            )
            _save(record)
            if status != 0:
                failed.append(stage)
        time.sleep(0.2)
    if not failed:
        return 0
    print(table(_load()))
    print(f"The stage {failed[0].name} failed: {' '.join(failed[0].command)}")
    return failed[0].proc.returncode or 1


def main(argv: list[str]) -> int:
    action, rest = (argv[0], argv[1:]) if argv else ("", [])
    if action == "begin":
        _save({"title": " ".join(rest) or "stages", "began": time.time(), "stages": []})
        return 0
    if action == "run":
        return run(rest)
    if action == "end":
        print(table(_load()))
        return 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
