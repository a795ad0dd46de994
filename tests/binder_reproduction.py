"""Binder's build, reproduced as closely as this machine allows.

repo2docker clones the repository, builds a conda environment from
``binder/environment.yml``, runs ``binder/postBuild`` from the repository's
root, and starts Jupyter with no API key. Here, with no conda:

1. the repository's files (tracked, or new and not ignored) are copied to a
   temporary directory, as a clone would hold them;
2. ``environment.yml``'s conda part is read for its Python and Node pins, and
   this machine's ``python3.X`` and ``node`` must satisfy them (they are not
   installed: that is the difference from Binder);
3. a fresh venv from that Python gets exactly the pip section (pip's cache is
   used, as a warm Binder cache would be);
4. ``binder/postBuild`` runs with that venv first on ``PATH``;
5. every notebook in ``notebooks/`` is executed with ``jupyter nbconvert
   --execute`` from the venv, with no ``OPENAI_API_KEY``; any error fails.

Run it with ``python tests/binder_reproduction.py`` (``--keep`` keeps the
temporary directory); ``tests/project/test_binder.py`` runs it under ``make packaging``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
ENVIRONMENT = BINDER / "environment.yml"

# Variables that would make the build or the kernels use something other
# than the fresh environment (this repository's src/, a real model, a venv).
_SCRUBBED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "JUPYTER_PATH")


class ReproductionError(RuntimeError):
    """A step of Binder's build failed; the message says which and why."""


def environment_spec(path: Path = ENVIRONMENT) -> tuple[dict[str, str], list[str]]:
    """The conda dependencies (name -> version spec) and the pip section."""
    data = yaml.safe_load(path.read_text())
    conda: dict[str, str] = {}
    pip: list[str] = []
    for entry in data.get("dependencies", []):
        if isinstance(entry, dict):
            pip.extend(str(item) for item in entry.get("pip", []))
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", str(entry).strip())
        if match is None:
            raise ReproductionError(f"{path}: cannot read the dependency {entry!r}")
        conda[match.group(1)] = match.group(2).strip()
    return conda, pip


def pinned_python(conda: dict[str, str]) -> str:
    """``3.11`` for ``python=3.11``; environment.yml must pin it."""
    match = re.fullmatch(r"=?=?(\d+\.\d+)(?:\.\*)?", conda.get("python", ""))
    if match is None:
        raise ReproductionError(
            "binder/environment.yml must pin python to a minor version (python=3.11): "
            "repo2docker's default Python is older than ipygenui supports"
        )
    return match.group(1)


def minimum_node(conda: dict[str, str]) -> int:
    """``20`` for ``nodejs>=20``; environment.yml must ask for Node 20+."""
    match = re.fullmatch(r"(?:>=|=)=?(\d+)(?:[.\d*]*)", conda.get("nodejs", ""))
    if match is None or int(match.group(1)) < 20:
        raise ReproductionError(
            "binder/environment.yml must ask for nodejs>=20: postBuild builds the widget with it"
        )
    return int(match.group(1))


def copy_checkout(target: Path) -> Path:
    """The repository's files as a clone of this working tree would hold them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_symlink() or not source.is_file():
            continue  # deleted in the working tree, or a link into another checkout
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
    return target


def clean_environment(venv: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env = {k: v for k, v in env.items() if not k.startswith("OPENAI_")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    # Only the venv's kernels and settings: none from this user's Jupyter.
    env["JUPYTER_DATA_DIR"] = str(home / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(home / "jupyter-config")
    env["IPYTHONDIR"] = str(home / "ipython")
    env["MPLBACKEND"] = "Agg"
    # Throwaway environments: pip's ahead-of-time byte-compiling of every
    # module (JupyterLab's included) is minutes of CPU on two cores, and the
    # imports compile what they use; no version check against the index.
    env["PIP_NO_COMPILE"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _step(title: str, command: list[str], *, cwd: Path, env: dict[str, str]) -> None:
    print(f"\n== {title}\n$ {' '.join(command)}", flush=True)
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, check=False)
    print(f"   ({time.monotonic() - started:.0f} s)", flush=True)
    if done.returncode != 0:
        raise ReproductionError(f"{title} failed (exit {done.returncode}); see the output above")


def reproduce(workdir: Path) -> list[Path]:
    """Binder's build in ``workdir``; the executed notebooks."""
    conda, pip_requirements = environment_spec()
    python_version = pinned_python(conda)
    node_major = minimum_node(conda)
    python = shutil.which(f"python{python_version}")
    if python is None:
        raise ReproductionError(
            f"binder pins Python {python_version}: python{python_version} is not on PATH"
        )
    node = shutil.which("node")
    found = (
        subprocess.run([node, "--version"], capture_output=True, text=True).stdout if node else ""
    )
    if not found or int(found.lstrip("v").split(".")[0]) < node_major:
        raise ReproductionError(
            f"binder asks for Node {node_major}+, this machine has {found.strip() or 'none'}"
        )
    print(f"Python {python_version} ({python}) and Node {found.strip()} stand in for conda's.")

    repo = copy_checkout(workdir / "repo")
    venv = workdir / "env"
    env = clean_environment(venv, workdir)
    _step("fresh environment", [python, "-m", "venv", str(venv)], cwd=workdir, env=env)
    _step(
        "pip section of binder/environment.yml (a few minutes on a cold pip cache)",
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--progress-bar",
            "off",
            *pip_requirements,
        ],
        cwd=repo,
        env=env,
    )
    _step("binder/postBuild", ["bash", str(repo / "binder" / "postBuild")], cwd=repo, env=env)

    executed = workdir / "executed"
    notebooks = sorted((repo / "notebooks").glob("*.ipynb"))
    if not notebooks:
        raise ReproductionError("notebooks/ holds no notebook to execute")
    for notebook in notebooks:
        _step(
            f"execute {notebook.name} with no OPENAI_API_KEY",
            [
                str(venv / "bin" / "jupyter"),
                "nbconvert",
                "--to",
                "notebook",
                "--execute",
                "--ExecutePreprocessor.timeout=300",
                "--output-dir",
                str(executed),
                str(notebook),
            ],
            cwd=notebook.parent,
            env=env,
        )
    return sorted(executed.glob("*.ipynb"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="ipygenui-binder-"))
    try:
        executed = reproduce(workdir)
    except ReproductionError as error:
        print(f"\nBinder reproduction FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"Kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nBinder reproduction passed: {', '.join(p.name for p in executed)} ran with no key.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
