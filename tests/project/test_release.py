"""What a release needs, checked without building: one version, complete
metadata, a changelog entry, and the forge's workflows (they cannot run here,
so their parts that matter are read: triggers, what runs, how it publishes).

Faults tried: a second hand-written version (js/package.json, the MCP apps
host version) left behind at a bump; a publish job with a token secret, no
``id-token`` permission or no environment, or one that builds its own files
instead of publishing the checked ones; CI that stops running ``make test``;
``dist/`` left tracked after a build.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import yaml

import ipygenui
from ipygenui.widget import _wire_codegen

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
WORKFLOWS = ROOT / ".github" / "workflows"


def workflow(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    # YAML 1.1 reads the key `on` as True
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps_text(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


def uses(job: dict[str, Any]) -> list[str]:
    return [str(step["uses"]).split("@")[0] for step in job["steps"] if "uses" in step]


def step_using(job: dict[str, Any], action: str) -> dict[str, Any]:
    [step] = [s for s in job["steps"] if str(s.get("uses", "")).split("@")[0] == action]
    return step


def test_the_version_has_one_home() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/ipygenui/__init__.py"
    assert _wire_codegen.package_version() == ipygenui.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", ipygenui.__version__)
    # the JS package is private and unversioned: no second copy to bump
    package = json.loads((ROOT / "js" / "package.json").read_text())
    lock = json.loads((ROOT / "js" / "package-lock.json").read_text())
    assert package["private"] is True
    assert "version" not in package
    assert "version" not in lock and "version" not in lock["packages"][""]


def test_the_browser_names_the_generated_version() -> None:
    generated = (ROOT / "js" / "src" / "protocol-wire.generated.js").read_text()
    assert f"export const PACKAGE_VERSION = {json.dumps(ipygenui.__version__)};" in generated
    app_frame = (ROOT / "js" / "src" / "mcp-apps" / "app-frame.js").read_text()
    assert 'HOST_INFO = { name: "ipygenui", version: PACKAGE_VERSION }' in app_frame
    # no version literal written anywhere in the widget's sources
    for source in (ROOT / "js" / "src").rglob("*.js"):
        if source.name != "protocol-wire.generated.js":
            text = source.read_text()
            assert f'"{ipygenui.__version__}"' not in text, source


def test_the_version_file_reader_reads_the_assignment(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text('"""Doc."""\n\nOTHER = "9.9.9"\n__version__ = "1.2.3"\n')
    assert _wire_codegen.package_version(init) == "1.2.3"


def test_the_metadata_is_complete() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    assert "BSD 3-Clause License" in (ROOT / "LICENSE").read_text()
    assert project["readme"] == "README.md"
    assert project["authors"] == [{"name": "The ipygenui developers"}]
    assert project["keywords"]
    classifiers = set(project["classifiers"])
    assert {
        "Development Status :: 3 - Alpha",
        "Framework :: Jupyter",
        "Framework :: Jupyter :: JupyterLab",
    } <= classifiers
    # each Python the classifiers name is one requires-python allows
    pythons = {c.rsplit(" :: ", 1)[1] for c in classifiers if re.search(r"Python :: 3\.\d+$", c)}
    assert pythons == {"3.11", "3.12", "3.13"}
    assert project["requires-python"] == ">=3.11"
    assert any(c.startswith("Topic :: ") for c in classifiers)
    urls = project["urls"]
    assert urls["Homepage"] == urls["Documentation"] == "https://ipygenui.github.io/ipygenui/"
    for key in ("Source", "Issues", "Changelog"):
        assert urls[key].startswith("https://github.com/ipygenui/ipygenui"), key


def test_the_changelog_has_an_entry_for_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog
    entry = re.search(
        rf"^## \[{re.escape(ipygenui.__version__)}\].*?(?=^## |\Z)", changelog, re.M | re.S
    )
    assert entry is not None, f"CHANGELOG.md has no section for {ipygenui.__version__}"
    assert "### Added" in entry.group(0) or "### Changed" in entry.group(0)


def test_ci_runs_make_test_on_every_push_and_pull_request() -> None:
    ci = workflow("ci.yml")
    assert "push" in ci["on"] and "pull_request" in ci["on"]
    [test_job] = [job for job in ci["jobs"].values() if "make test" in steps_text(job)]
    assert "actions/checkout" in uses(test_job) and "actions/setup-node" in uses(test_job)
    [node] = [
        s for s in test_job["steps"] if str(s.get("uses", "")).startswith("actions/setup-node")
    ]
    assert str(node["with"]["node-version"]) == "20"
    assert "bookworm" in test_job["container"]  # Debian's chromium, installed by make browser


def test_release_publishes_only_what_its_build_job_checked() -> None:
    release = workflow("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    jobs = release["jobs"]
    build, publish = jobs["build"], jobs["publish"]
    built = steps_text(build)
    assert "python -m build" in built and "twine check" in built
    [upload] = [
        s for s in build["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")
    ]
    # the publish job only downloads that artifact and uploads it
    assert publish["needs"] == "build"
    assert uses(publish) == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]
    download = step_using(publish, "actions/download-artifact")
    assert download["with"]["name"] == upload["with"]["name"]
    assert download["with"]["path"].rstrip("/") == upload["with"]["path"].rstrip("/") == "dist"
    assert not steps_text(publish).strip()  # no build of its own
    # trusted publishing: an OIDC token in the pypi environment, no secret
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert "secrets." not in (WORKFLOWS / "release.yml").read_text()
    assert "id-token" not in json.dumps(build.get("permissions", {}))
    assert release["permissions"] == {"contents": "read"}


def test_dist_is_ignored_by_git() -> None:
    done = subprocess.run(
        ["git", "check-ignore", "-q", "dist/ipygenui-0.0.0-py3-none-any.whl"], cwd=ROOT
    )
    assert done.returncode == 0, "dist/ must be git-ignored: python -m build writes it"
