"""scripts/stages.py, which times the stages of ``make test`` and ``make check``.

Faults tried: a failed stage that make would not stop at (status 0); the table
not printed when a stage fails; two stages beside each other whose held
output is lost; a stage run beside another timed as the sum of both.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stages.py"


@pytest.fixture
def stages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("stages", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "stages", module)  # its dataclass looks itself up
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "RECORD", tmp_path / "times.json")
    return module


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_stages_beside_each_other_keep_their_output_and_own_times(
    stages: ModuleType, capfd: pytest.CaptureFixture[str]
) -> None:
    assert stages.main(["begin", "make", "test"]) == 0
    status = stages.main(
        [
            "run",
            "slow", "--", *_py("import time; time.sleep(1.0); print('slow done')"),
            "quick", "--", *_py("print('quick done')"),
        ]
    )  # fmt: skip
    assert status == 0
    out = capfd.readouterr().out
    assert "slow done" in out
    assert "===== quick (ran beside another stage) =====\nquick done\n" in out
    record = stages._load()
    seconds = {stage["name"]: stage["seconds"] for stage in record["stages"]}
    assert seconds["slow"] >= 1.0
    assert seconds["quick"] < seconds["slow"]  # each its own time, both started at once
    cpu = {stage["name"]: stage["cpu"] for stage in record["stages"]}
    assert cpu["slow"] < 0.9  # asleep: its CPU time is not its wall time
    assert stages.main(["end"]) == 0
    table = capfd.readouterr().out
    assert [line.split()[0] for line in table.splitlines()[2:-1]] == ["slow", "quick", "total"]
    assert "wall clock of make test" in table


def test_a_stage_s_cpu_time_counts_its_children(stages: ModuleType) -> None:
    stages.main(["begin", "make", "test"])
    spin = "import time; end = time.process_time() + 0.5\nwhile time.process_time() < end: pass"
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {spin!r}])"
    assert stages.main(["run", "busy", "--", *_py(child)]) == 0
    [stage] = stages._load()["stages"]
    assert stage["cpu"] >= 0.5  # the grandchild's spin, reaped by the child


def test_a_failed_stage_prints_the_times_so_far_and_returns_its_status(
    stages: ModuleType, capfd: pytest.CaptureFixture[str]
) -> None:
    stages.main(["begin", "make", "check"])
    assert stages.main(["run", "lint", "--", *_py("pass")]) == 0
    status = stages.main(["run", "pytest", "--", *_py("import sys; sys.exit(3)")])
    assert status == 3
    out = capfd.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line[:1].isalpha()}
    assert rows["lint"].endswith("ok")
    assert rows["pytest"].endswith("FAILED (3)")
    assert "The stage pytest failed" in out


def test_a_stage_needs_a_name_and_a_command(stages: ModuleType) -> None:
    with pytest.raises(SystemExit, match="NAME -- COMMAND"):
        stages.main(["run", "make", "lint"])
    with pytest.raises(SystemExit, match="has no command"):
        stages.main(["run", "lint", "--"])
