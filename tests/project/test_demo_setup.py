"""``make demo`` on a fresh clone: quick, honest, and leaving git clean.

Faults tried: the demo installs the whole test toolchain instead of its own
extra; the demo extra lacks a package a notebook imports; JupyterLab runs on
the tracked notebooks, so autosave leaves them modified; the tracked notebooks
carry stale outputs (text without the widget above it); npm warns about
install scripts nobody reviewed.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from notebook_imports import NOTEBOOKS, ROOT, modules_installed_with, notebook_imports


def _make_dry_run(target: str, tmp_path: Path) -> str:
    """What ``make target`` runs on a fresh clone (``-B``: as if nothing were
    built yet, so a demo copy made earlier in this checkout changes nothing)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    done = subprocess.run(
        ["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_demo_installs_its_extra_only(tmp_path: Path) -> None:
    commands = _make_dry_run("demo", tmp_path)
    installs = [line for line in commands.splitlines() if "pip install" in line and "-e" in line]
    assert installs and all('".[demo]"' in line for line in installs), installs


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_the_demo_extra_installs_every_notebook_import(notebook: Path) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    demo = extras["optional-dependencies"]["demo"]
    missing = notebook_imports(notebook) - modules_installed_with(demo)
    assert not missing, f"{notebook.name} imports {sorted(missing)}: add them to the demo extra"


def test_demo_serves_a_git_ignored_copy_of_the_notebooks(tmp_path: Path) -> None:
    commands = _make_dry_run("demo", tmp_path)
    [lab] = [line for line in commands.splitlines() if "jupyter lab" in line]
    root = lab.split("--ServerApp.root_dir=")[1].split()[0]
    assert Path(root).resolve() != (ROOT / "notebooks").resolve()
    for notebook in NOTEBOOKS:
        copy = f"{root}/{notebook.name}"
        assert f"cp notebooks/{notebook.name} {copy}" in commands
        ignored = subprocess.run(["git", "check-ignore", "-q", copy], cwd=ROOT, check=False)
        assert ignored.returncode == 0, f"{copy} is not git-ignored"
    # what the notebooks open beside them (the agents notebook's MCP server script)
    # and the cassettes 07_replay answers from
    helpers = [p.relative_to(ROOT / "notebooks") for p in (ROOT / "notebooks").glob("*.py")]
    cassettes = (ROOT / "notebooks").glob("cassettes/*.cassette")
    helpers += [p.relative_to(ROOT / "notebooks") for p in cassettes]
    assert len(helpers) >= 3, "helper files beside the notebooks missing: this check proves less"
    for helper in helpers:
        assert f"cp notebooks/{helper} {root}/{helper}" in commands


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_tracked_notebooks_carry_no_outputs(notebook: Path) -> None:
    cells = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in cells)
    # nbval compares stored outputs only in marked cells: none may be left to compare
    assert not [c for c in cells if "NBVAL_CHECK_OUTPUT" in "".join(c["source"])]


def test_every_install_script_in_the_lockfile_was_reviewed() -> None:
    lock = json.loads((ROOT / "js" / "package-lock.json").read_text())
    allowed = json.loads((ROOT / "js" / "package.json").read_text()).get("allowScripts", {})
    with_scripts = {
        path.rsplit("node_modules/", 1)[1]
        for path, entry in lock["packages"].items()
        if path and entry.get("hasInstallScript")
    }
    assert with_scripts, "the lockfile lists no install script: this test checks nothing"
    assert with_scripts <= set(allowed), sorted(with_scripts - set(allowed))
    assert allowed["esbuild"] is True  # its postinstall checks the platform binary
