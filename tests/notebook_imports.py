"""What the notebooks import, and what a set of requirements installs."""

from __future__ import annotations

import ast
import json
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def notebook_imports(path: Path) -> set[str]:
    """Top-level modules the notebook's code cells import."""
    found: set[str] = set()
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        source = "\n".join(
            "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
        )
        tree = compile(
            source, path.name, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def _installed_closure(requirements: list[str]) -> set[str]:
    """Distributions these requirements install, with their dependencies
    (read from this environment's metadata)."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue  # not installed here: its modules cannot be counted
        for text in requires:
            dependency = Requirement(text)
            if dependency.marker is None or dependency.marker.evaluate({"extra": ""}):
                todo.append(dependency)
    return seen


def modules_installed_with(requirements: list[str]) -> set[str]:
    """Modules importable after installing ipygenui and ``requirements``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dists = _installed_closure([*requirements, *project["dependencies"]])
    modules = {"ipygenui", *sys.stdlib_module_names}
    for module, providers in metadata.packages_distributions().items():
        if any(canonicalize_name(p) in dists for p in providers):
            modules.add(module)
    return modules
