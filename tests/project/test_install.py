"""The install page's commands work as written, in a clone anywhere.

docs/install.md (and README.md, once it holds the same marked block) gives
two blocks between marker comments: install from a checkout
(``install:start``) and build a wheel, then install it (``wheel:start``).
Under ``make packaging`` they are run as written, in fresh venvs, the
``git clone`` of the forge replaced by a clone of this working tree (its
tracked and new files, committed in a scratch repository): the clone goes
to a folder named ``ipygenui`` under a path that holds ``ipygenui``, as a
user's clone often does. Then the built wheel goes into a second venv with no
Node on ``PATH`` and runs the page's quickstart offline, and that clone runs
the tests that read paths.

Faults tried: a doc that installs from an index the package is not on; a
block whose commands fail as written; a wheel that needs Node or lacks the
built widget; an sdist that misses what its wheel is built from (js/src, the
lockfile, LICENSE) or carries local folders (node_modules, a venv, a built
site); a test that fails in a clone whose path holds the package's name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import ipygenui
from binder_reproduction import clean_environment, copy_checkout

ROOT = Path(__file__).resolve().parents[2]
INSTALL_PAGE = ROOT / "docs" / "install.md"
README = ROOT / "README.md"
FORGE_CLONE = "git clone https://github.com/ipygenui/ipygenui ipygenui"
WHEEL = f"ipygenui-{ipygenui.__version__}-py3-none-any.whl"
SDIST = f"ipygenui-{ipygenui.__version__}.tar.gz"

# The tests whose outcome could depend on where the checkout lies or what its
# folder is called: the whole-project checks (paths of the package, the MCP
# SDK beside our mcp/ package, the layers' module names), scripts run from
# src/, warnings attributed to a test file, schemas found beside the package,
# MCP servers started from the tests' and the notebooks' folders (one test
# each: the rest of that file starts the same server the same way).
PATH_SENSITIVE_TESTS = (
    "tests/project",
    "tests/runtime/test_scripts.py",
    "tests/widget/test_widget_names.py",
    "tests/a2ui/test_a2ui.py",
    "tests/mcp/test_mcp_tools.py::test_the_servers_tools_are_chat_tools_with_their_schemas_as_given",
    "tests/mcp/test_mcp_tools.py::test_the_notebook_demo_servers_form_and_sampling_with_the_offline_model",
)
BASH = shutil.which("bash") or "/bin/bash"
"""Found before a test empties ``PATH`` (the shell the page's blocks are typed in)."""
# What a user's shell may hold that would make the offline run not offline.
_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def marked_commands(text: str, marker: str) -> list[str]:
    """The shell lines of the fenced block between ``<!-- marker:start -->``
    and ``<!-- marker:end -->``."""
    found = re.search(
        rf"<!-- {marker}:start -->\n```bash\n(.*?)```\n<!-- {marker}:end -->", text, re.S
    )
    if found is None:
        raise AssertionError(f"no ```bash block between the {marker} markers")
    return [line for line in found.group(1).splitlines() if line.strip()]


def python_block_after(text: str, heading: str) -> str:
    """The first ```python block under ``heading``."""
    found = re.search(rf"^## {re.escape(heading)}\n.*?```python\n(.*?)```", text, re.S | re.M)
    if found is None:
        raise AssertionError(f"no python block under '## {heading}'")
    return found.group(1)


def with_local_clone(commands: list[str], source: Path) -> list[str]:
    """The commands with the forge's clone replaced by a clone of ``source``."""
    cloned = [line.replace(FORGE_CLONE, f"git clone -q {source} ipygenui") for line in commands]
    assert sum(a != b for a, b in zip(commands, cloned, strict=True)) == 1, commands
    return cloned


def test_the_page_holds_both_blocks_as_a_user_types_them() -> None:
    page = INSTALL_PAGE.read_text()
    install = marked_commands(page, "install")
    assert install[0].startswith(FORGE_CLONE + " && cd ipygenui")
    assert [line.split("#")[0].strip() for line in install[1:]] == [
        "python -m pip install .",
        'python -m pip install ".[mcp,agui]"',
    ]
    wheel = marked_commands(page, "wheel")
    assert wheel[0].startswith("python -m pip install build && python -m build")
    # the file names the wheel block gives are the ones this version builds
    assert f"python -m pip install dist/{WHEEL}" in wheel[1]
    assert set(re.findall(r"ipygenui-[\w.]+-py3-none-any\.whl", page)) == {WHEEL}


def test_the_page_never_installs_from_an_index() -> None:
    for line in INSTALL_PAGE.read_text().splitlines():
        assert not re.search(r"pip install\s+\"?ipygenui\b", line), line


def test_the_extras_table_lists_every_extra_and_no_other() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", INSTALL_PAGE.read_text(), re.M)
    assert sorted(rows) == sorted(extras)


def test_the_readme_gives_the_same_blocks() -> None:
    readme = README.read_text()
    if "<!-- install:start -->" not in readme:
        pytest.skip(
            "README.md holds no install markers yet: the install block goes there "
            "verbatim with the README's rewrite; until then only docs/install.md is run"
        )
    page = INSTALL_PAGE.read_text()
    for marker in ("install", "wheel"):
        assert marked_commands(readme, marker) == marked_commands(page, marker), marker


def test_the_block_reader_reads_only_the_marked_fence() -> None:
    text = (
        "```bash\nnot this\n```\n<!-- x:start -->\n```bash\nfirst   # note\n\nsecond\n```\n"
        "<!-- x:end -->\n"
    )
    assert marked_commands(text, "x") == ["first   # note", "second"]
    with pytest.raises(AssertionError):
        marked_commands(text, "y")
    assert with_local_clone([FORGE_CLONE + " && cd ipygenui"], Path("/src")) == [
        "git clone -q /src ipygenui && cd ipygenui"
    ]


# --- under make packaging: the blocks run ------------------------------------------


@dataclass
class Installed:
    home: Path
    """Where the user ran the blocks (its path holds ``ipygenui``)."""
    clone: Path
    """The clone, a folder named ``ipygenui``."""
    venv: Path
    """The venv the install block installed into."""
    env: dict[str, str]


def run_block(commands: list[str], *, cwd: Path, env: dict[str, str]) -> None:
    script = "set -euo pipefail\n" + "\n".join(commands) + "\n"
    subprocess.run([BASH, "-c", script], cwd=cwd, env=env, check=True)


def snapshot_repository(target: Path) -> Path:
    """A repository whose one commit is this working tree (tracked and new
    files): what a clone of it holds is what a clone of the forge would."""
    copy_checkout(target)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=target, check=True)
    subprocess.run([*git, "add", "-A"], cwd=target, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "snapshot"], cwd=target, check=True)
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Both blocks of the install page, run as written: the install block in
    a fresh venv, then the wheel block in the clone it made."""
    base = tmp_path_factory.mktemp("ipygenui-ipygenui")
    source = snapshot_repository(base / "source")
    home = base / "home"
    home.mkdir()
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = clean_environment(venv, base)
    page = INSTALL_PAGE.read_text()
    run_block(with_local_clone(marked_commands(page, "install"), source), cwd=home, env=env)
    clone = home / "ipygenui"
    run_block(marked_commands(page, "wheel")[:1], cwd=clone, env=env)
    return Installed(home=home, clone=clone, venv=venv, env=env)


def venv_python(venv: Path, code: str, *, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.packaging
def test_the_install_block_installs_the_package_with_its_extras(installed: Installed) -> None:
    out = venv_python(
        installed.venv,
        "import ipygenui, mcp, jsonschema, re2, starlette, uvicorn, httpx, jsonpatch\n"
        "from ipygenui.widget.static_files import bundle_sources\n"
        "js, css = bundle_sources()\n"
        "print(ipygenui.__version__, ipygenui.__file__, len(js) > 10_000, len(css) > 1_000)",
        cwd=installed.home,
        env=installed.env,
    )
    version, location, has_js, has_css = out.split()
    assert version == ipygenui.__version__
    assert Path(location).is_relative_to(installed.venv)  # installed, not the clone's src/
    assert has_js == has_css == "True"


@pytest.mark.packaging
def test_the_wheel_block_builds_a_checked_sdist_and_wheel(installed: Installed) -> None:
    dist = installed.clone / "dist"
    assert sorted(p.name for p in dist.iterdir()) == sorted([SDIST, WHEEL])
    # three builds in the clone (two installs, then build) leave only ignored files
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=installed.clone, capture_output=True, text=True
    )
    assert status.stdout == "", status.stdout
    subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *dist.iterdir()], check=True
    )

    with tarfile.open(dist / SDIST) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    needed = {
        "pyproject.toml",
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "js/package.json",
        "js/package-lock.json",
        "js/src/widget.js",
        "js/src/protocol-wire.generated.js",
        "src/ipygenui/__init__.py",
        "src/ipygenui/py.typed",
    }
    assert needed <= names, needed - names
    local = ("node_modules/", ".venv/", "site/", "lite/", ".demo/", ".ci/", ".github/", "dist/")
    assert not [n for n in names if any(n.startswith(d) or f"/{d}" in n for d in local)]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]

    with zipfile.ZipFile(dist / WHEEL) as wheel:
        members = set(wheel.namelist())
        metadata = wheel.read(f"ipygenui-{ipygenui.__version__}.dist-info/METADATA").decode()
    for built in ("widget.js", "widget.css", "loader.js", "highlight.js", "workbench.js"):
        assert f"ipygenui/static/{built}" in members
    assert f"ipygenui-{ipygenui.__version__}.dist-info/licenses/LICENSE" in members
    assert not [m for m in members if not m.startswith(("ipygenui/", "ipygenui-"))]
    assert "License-Expression: BSD-3-Clause" in metadata
    assert "Project-URL: Documentation, https://ipygenui.github.io/ipygenui/" in metadata
    assert "Framework :: Jupyter :: JupyterLab" in metadata


@pytest.mark.packaging
def test_the_wheel_installs_without_node_and_runs_the_quickstart_offline(
    installed: Installed, tmp_path: Path
) -> None:
    venv = tmp_path / "wheel-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = clean_environment(venv, tmp_path)
    env["PATH"] = str(venv / "bin")  # no node, no npm, no git: only the venv
    for key in _KEYS:
        env.pop(key, None)
    # nothing may go out: any HTTP client honouring the proxy fails at once
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", NO_PROXY="")
    assert shutil.which("node", path=env["PATH"]) is None
    install_wheel = marked_commands(INSTALL_PAGE.read_text(), "wheel")[1]
    pip_env = {k: v for k, v in env.items() if not k.endswith("_PROXY")}  # pip may reach its index
    run_block([install_wheel], cwd=installed.clone, env=pip_env)

    quickstart = python_block_after(INSTALL_PAGE.read_text(), "Check that it works")
    check = (
        "\nimport ipygenui.widget.static_files as static_files\n"
        "assert isinstance(chat, gu.Chat)\n"
        "js, css = static_files.bundle_sources()\n"
        "print('REPLY', repr(runtime.thread.messages[-1].text[:60]))\n"
        "print('FILE', gu.__file__)\n"
        "print('BUNDLE', len(js), len(css))\n"
    )
    out = venv_python(venv, quickstart + check, cwd=tmp_path, env=env)
    lines = dict(line.split(" ", 1) for line in out.splitlines() if line[:1].isupper())
    assert "offline demo model" in lines["REPLY"]
    assert Path(lines["FILE"]).is_relative_to(venv)
    js_size, css_size = map(int, lines["BUNDLE"].split())
    assert js_size > 10_000 and css_size > 1_000


@pytest.mark.packaging
def test_a_clone_named_ipygenui_under_an_ipygenui_path_passes_its_path_tests(
    installed: Installed,
) -> None:
    clone = installed.clone
    assert clone.name == "ipygenui" and "ipygenui" in str(clone.parent)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = str(clone / "src")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *PATH_SENSITIVE_TESTS,
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not e2e and not packaging",
            "-x",
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # the clone's own package was the one tested
    where = subprocess.run(
        [sys.executable, "-c", "import ipygenui; print(ipygenui.__file__)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(clone / "src")
