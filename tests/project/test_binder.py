"""Binder starts and runs every notebook with no key.

Faults tried: a notebook imports a package Binder does not install (pandas
for the component gallery); Binder's Python is older than the package needs
or its Node older than the widget build needs (nothing pins them); postBuild
or any notebook fails in a fresh environment built from binder/ alone.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from binder_reproduction import (
    BINDER,
    ROOT,
    environment_spec,
    minimum_node,
    pinned_python,
    reproduce,
)
from notebook_imports import NOTEBOOKS, modules_installed_with, notebook_imports


def binder_pip_requirements(binder: Path = BINDER) -> list[str]:
    """What repo2docker pip-installs: environment.yml's pip section, or else
    requirements.txt (ignored when environment.yml exists)."""
    if (binder / "environment.yml").exists():
        return environment_spec(binder / "environment.yml")[1]
    lines = (binder / "requirements.txt").read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_notebook_import_is_installed_on_binder(notebook: Path) -> None:
    missing = notebook_imports(notebook) - modules_installed_with(binder_pip_requirements())
    assert not missing, f"{notebook.name} imports {sorted(missing)}: add them to binder/"


def test_binder_pins_python_and_node_the_package_needs() -> None:
    conda, _ = environment_spec()
    python = pinned_python(conda)
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert python in SpecifierSet(requires)
    assert minimum_node(conda) >= 20
    assert not (BINDER / "requirements.txt").exists(), "repo2docker would ignore it"


def test_postbuild_refuses_an_old_node_with_a_clear_message(tmp_path: Path) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    old_node = fake_bin / "node"
    old_node.write_text('#!/bin/sh\ncase "$1" in -p) echo 18 ;; *) echo v18.19.0 ;; esac\n')
    old_node.chmod(0o755)
    (fake_bin / "python").symlink_to(sys.executable)
    done = subprocess.run(
        ["bash", str(BINDER / "postBuild")],
        cwd=tmp_path,  # nothing to install here: it must stop before
        env={"PATH": f"{fake_bin}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert re.search(r"Node 20\+.*v18\.19\.0", done.stderr)
    assert "environment.yml" in done.stderr


@pytest.mark.packaging
def test_binder_build_runs_every_notebook_without_a_key(tmp_path: Path) -> None:
    executed = reproduce(tmp_path)
    assert [p.name for p in executed] == [p.name for p in NOTEBOOKS]
    for path in executed:
        outputs = [o for c in json.loads(path.read_text())["cells"] for o in c.get("outputs", [])]
        assert not [o for o in outputs if o["output_type"] == "error"]
