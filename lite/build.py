"""Build the JupyterLite site: the notebooks, ipygenui and the widget in the browser.

Run by ``make lite`` from the build environment (``lite/requirements-build.txt``):

1. the Pyodide runtime from the npm registry (``npm pack pyodide``), cached;
2. ipygenui's wheel from this checkout, cached by the hash of its sources;
3. every Python package the notebooks' kernel loads, as Pyodide wheels from
   PyPI (``pip download --platform pyemscripten_...``), cached;
4. a ``pyodide-lock.json`` that points at those wheels inside the site, so the
   kernel and ``import ipygenui`` need no network at run time. Packages no
   reachable index has as Pyodide wheels (numpy, pandas, matplotlib: Pyodide
   builds them itself) keep their Pyodide CDN address: a notebook that imports
   them needs the internet;
5. ``jupyter lite build`` into ``lite/_output``, with the anywidget and
   ipywidgets labextensions of this environment (the same versions as the
   wheels in the lock, so the widget's frontend and kernel side match).

``lite/_output/offline.json`` says which notebooks run with no network, and
what the others need; the browser test (tests/e2e/test_lite.py) reads it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

LITE = Path(__file__).resolve().parent
REPO = LITE.parent
CACHE = LITE / ".cache"
OUTPUT = LITE / "_output"
CONTENTS = CACHE / "contents"
# The Pyodide addon copies a distribution found here into the site.
PYODIDE_DIR = LITE / "static" / "pyodide"

# The Pyodide release the kernel extension was built against.
PYODIDE_VERSION = "314.0.6"
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full"

# ipygenui's dependencies the browser does without: the demo model needs no
# HTTP client (gu.Chat() never imports openai; see tests/project/test_lite_site.py).
BROWSER_OPTIONAL = {"openai"}
# ipywidgets' Python dependencies that only carry the classic frontends; the
# site has the labextension itself.
FRONTEND_ONLY = {"widgetsnbextension", "jupyterlab-widgets"}
# What the Pyodide kernel installs at start (its worker asks for these).
KERNEL_PACKAGES = ["micropip", "packaging", "comm", "jedi", "ipython"]

# Notebooks a browser kernel cannot run: it has no sockets and no subprocesses.
NEEDS_A_SERVER = {
    "04_agents.ipynb": (
        "This notebook serves an AG-UI agent on a local port and starts an MCP server "
        "process: a browser kernel can do neither. Run it in JupyterLab (`make demo`)."
    ),
    "05_standards.ipynb": (
        "This notebook starts an MCP server process for its MCP app: a browser kernel "
        "cannot. Run it in JupyterLab (`make demo`)."
    ),
}


def log(message: str) -> None:
    print(f"[lite] {message}", flush=True)


def run(*cmd: str | Path, cwd: Path | None = None) -> None:
    subprocess.run([str(c) for c in cmd], check=True, cwd=cwd)


# -- 1. Pyodide --------------------------------------------------------------


def fetch_pyodide() -> dict:
    """Unpack the npm `pyodide` package into lite/static/pyodide; return its lock."""
    tarball = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not tarball.exists():
        log(f"fetching pyodide {PYODIDE_VERSION} from the npm registry")
        CACHE.mkdir(parents=True, exist_ok=True)
        run("npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--silent", cwd=CACHE)
    shutil.rmtree(PYODIDE_DIR, ignore_errors=True)
    PYODIDE_DIR.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            name = member.name.removeprefix("package/")
            if not member.isfile() or "/" in name or name.endswith(".map"):
                continue
            source = tar.extractfile(member)
            assert source is not None
            (PYODIDE_DIR / name).write_bytes(source.read())
    lock: dict = json.loads((PYODIDE_DIR / "pyodide-lock.json").read_text("utf-8"))
    return lock


# -- 2. ipygenui's wheel -----------------------------------------------------


def sources_hash() -> str:
    """A hash of what goes into the wheel: tracked and untracked sources."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "src", "js/src", "js/package.json"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    digest = hashlib.sha256((REPO / "pyproject.toml").read_bytes())
    for rel in sorted(listed):
        path = REPO / rel
        if path.is_file():
            digest.update(rel.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def build_ipygenui_wheel() -> Path:
    folder = CACHE / "ipygenui" / sources_hash()
    wheels = list(folder.glob("ipygenui-*.whl"))
    if wheels:
        log(f"ipygenui wheel up to date: {wheels[0].name}")
        return wheels[0]
    log("building ipygenui's wheel (the widget bundle too, about 40 s)")
    shutil.rmtree(folder.parent, ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", folder, REPO)
    [wheel] = folder.glob("ipygenui-*.whl")
    return wheel


# -- 3. Pyodide wheels from PyPI ---------------------------------------------


def wheel_metadata(wheel: Path) -> dict:
    """Name, version, dependencies and top-level modules of a wheel."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode("utf-8"))
    tops = set()
    for name in names:
        top = name.split("/", 1)[0]
        if top.endswith((".dist-info", ".data")):
            continue
        if "/" in name or top.endswith(".py"):
            tops.add(top.removesuffix(".py"))
    return {
        "name": canonicalize_name(meta["Name"]),
        "version": meta["Version"],
        "requires": meta.get_all("Requires-Dist") or [],
        "imports": sorted(t for t in tops if t.isidentifier()),
    }


def runtime_requirements(ipygenui: Path) -> list[str]:
    """What the kernel needs besides ipygenui, with the build env's widget versions."""
    pins = {name: importlib.metadata.version(name) for name in ("anywidget", "ipywidgets")}
    reqs = [f"{name}=={version}" for name, version in pins.items()]
    for spec in wheel_metadata(ipygenui)["requires"]:
        req = Requirement(spec)
        if req.marker is not None and "extra" in str(req.marker):
            continue
        if canonicalize_name(req.name) in BROWSER_OPTIONAL | set(pins):
            continue
        reqs.append(str(req))
    return reqs + KERNEL_PACKAGES


def download_wheels(requirements: list[str], platform: str, python: str) -> list[Path]:
    """Pyodide wheels (pure or built for ``platform``) for the requirements and their deps."""
    key = hashlib.sha256("\n".join([platform, python, *requirements]).encode()).hexdigest()[:16]
    folder = CACHE / "wheels" / key
    done = folder / ".complete"
    if not done.exists():
        log("downloading Pyodide wheels from PyPI: " + ", ".join(requirements))
        shutil.rmtree(folder.parent, ignore_errors=True)
        folder.mkdir(parents=True)
        run(
            # -qq: errors only (not this machine's warnings about its index folders)
            sys.executable, "-m", "pip", "download", "-qq", "--dest", folder,
            "--only-binary=:all:", "--platform", platform,
            "--python-version", python, "--implementation", "cp",
            "--abi", f"cp{python.replace('.', '')}", "--abi", "abi3", "--abi", "none",
            *requirements,
        )  # fmt: skip
        done.touch()
    return sorted(folder.glob("*.whl"))


# -- 4. the lock -------------------------------------------------------------


def marker_env(info: dict) -> dict[str, str]:
    env = dict(default_environment())
    python = info["python"]
    env.update(
        sys_platform="emscripten",
        platform_system="Emscripten",
        platform_machine=info["arch"],
        python_full_version=python,
        python_version=".".join(python.split(".")[:2]),
        implementation_version=python,
        implementation_name="cpython",
        platform_python_implementation="CPython",
        os_name="posix",
        extra="",
    )
    return env


def write_lock(base: dict, wheels: list[Path]) -> dict:
    """Pyodide's lock with ``wheels`` local to the site and the rest on Pyodide's CDN."""
    env = marker_env(base["info"])
    packages = {}
    for name, spec in base["packages"].items():
        packages[name] = {**spec, "file_name": f"{PYODIDE_CDN}/{spec['file_name']}"}
    local = {}
    for wheel in wheels:
        meta = wheel_metadata(wheel)
        if meta["name"] in FRONTEND_ONLY:
            continue
        shutil.copy2(wheel, PYODIDE_DIR / wheel.name)
        local[meta["name"]] = (wheel, meta)
    for name, (wheel, meta) in local.items():
        old = packages.pop(name, None)
        packages[name] = {
            "name": name,
            "version": meta["version"],
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
            "package_type": "package",
            "imports": old["imports"] if old else meta["imports"],
            "depends": [],
            "unvendored_tests": False,
            "shared_library": False,
        }
    for name, (_, meta) in local.items():
        deps = []
        for spec in meta["requires"]:
            req = Requirement(spec)
            dep = canonicalize_name(req.name)
            if req.marker is not None and not req.marker.evaluate(env):
                continue
            if dep in BROWSER_OPTIONAL | FRONTEND_ONLY:
                continue
            if dep not in packages:
                raise SystemExit(f"{name} needs {dep}, which is neither downloaded nor in Pyodide")
            deps.append(dep)
        packages[name]["depends"] = sorted(set(deps))
    lock = {**base, "packages": dict(sorted(packages.items()))}
    (PYODIDE_DIR / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), "utf-8")
    return lock


def closure(lock: dict, names: list[str]) -> set[str]:
    seen: set[str] = set()
    todo = [canonicalize_name(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen or name not in lock["packages"]:
            continue
        seen.add(name)
        todo.extend(lock["packages"][name]["depends"])
    return seen


# -- 5. the site -------------------------------------------------------------


IMPORT_RE = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", re.MULTILINE)


def stage_contents(lock: dict) -> dict:
    """Copy the notebooks into the site's contents; say what each needs offline."""
    shutil.rmtree(CONTENTS, ignore_errors=True)
    CONTENTS.mkdir(parents=True)
    by_import = {
        module: name for name, spec in lock["packages"].items() for module in spec["imports"]
    }
    report = {}
    cassettes = REPO / "notebooks" / "cassettes"  # gu.replay's recordings, offline answers
    if cassettes.is_dir():
        shutil.copytree(cassettes, CONTENTS / "cassettes")
    for source in sorted((REPO / "notebooks").iterdir()):
        if source.suffix not in {".ipynb", ".py"}:
            continue
        if source.suffix == ".py":
            shutil.copy2(source, CONTENTS / source.name)
            continue
        notebook = json.loads(source.read_text("utf-8"))
        code = "\n".join(
            "".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"
        )
        wanted = sorted({by_import[m] for m in IMPORT_RE.findall(code) if m in by_import})
        remote = sorted(
            name
            for name in closure(lock, wanted)
            if lock["packages"][name]["file_name"].startswith("https://")
        )
        note = NEEDS_A_SERVER.get(source.name)
        if note:
            notebook["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": note})
        elif remote:
            top = sorted(set(remote) & set(wanted)) or remote
            note = (
                f"In the browser this notebook loads {', '.join(top)} from Pyodide's CDN: "
                "it needs the internet to run."
            )
            notebook["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": note})
        (CONTENTS / source.name).write_text(json.dumps(notebook, indent=1), "utf-8")
        report[source.name] = {
            "offline": not remote and source.name not in NEEDS_A_SERVER,
            "from_cdn": sorted(set(remote) & set(wanted)) or remote,
            "needs_a_server": source.name in NEEDS_A_SERVER,
        }
    return report


def build_site() -> None:
    log("jupyter lite build")
    # From clean every time (a few seconds): no file of an earlier build stays
    # behind, and doit's record of done tasks (written to the working
    # directory) cannot skip a step whose output was removed.
    shutil.rmtree(OUTPUT, ignore_errors=True)
    (CACHE / ".jupyterlite.doit.db").unlink(missing_ok=True)
    run(
        sys.executable, "-m", "jupyter", "lite", "build",
        "--lite-dir", LITE, "--output-dir", OUTPUT, "--contents", CONTENTS,
        cwd=CACHE,
    )  # fmt: skip


def main() -> None:
    base = fetch_pyodide()
    info = base["info"]
    platform = f"pyemscripten_{info['abi_version']}_{info['arch']}"
    python = ".".join(info["python"].split(".")[:2])
    ipygenui = build_ipygenui_wheel()
    wheels = download_wheels(runtime_requirements(ipygenui), platform, python)
    lock = write_lock(base, [ipygenui, *wheels])
    report = stage_contents(lock)
    build_site()
    (OUTPUT / "offline.json").write_text(json.dumps(report, indent=1), "utf-8")
    for name, what in report.items():
        state = (
            "offline"
            if what["offline"]
            else "needs "
            + (
                "a server"
                if what["needs_a_server"]
                else "the CDN for " + ", ".join(what["from_cdn"])
            )
        )
        log(f"{name}: {state}")
    log(f"site ready in {OUTPUT.relative_to(REPO)}/ (serve it with any static server)")


if __name__ == "__main__":
    main()
