"""mkdocs hook: the notebooks' live widgets, served from the site itself.

A notebook page carries its widgets' saved state (mkdocs-jupyter executes it
with nbclient, which stores the state), and, as nbconvert's HTML export does,
asks three CDNs for the code that renders it: require.js (cdnjs), the Jupyter
widget manager ``@jupyter-widgets/html-manager``'s ``embed-amd.js`` (unpkg),
and the ``anywidget`` AMD module (jsdelivr, asked for by the manager). Those
packages are devDependencies of ``js/package.json``; this hook copies their
files into ``site/assets/widgets/`` and points the pages at them (require.js
finds ``anywidget`` by its ``paths`` entry, so the manager never falls back to
a CDN). MathJax's and Mermaid's loaders go: the notebooks have no maths and no diagram.

A page that still loads a script, style or image from another host fails the
build, so the site stays readable offline.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

sys.path.insert(0, str(Path(__file__).parent))
from site_urls import remote_fetches

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "js" / "node_modules"
ASSETS = "assets/widgets"

# site file -> (npm package, file in it, the version range the pages ask for)
_FILES = {
    "require.js": ("requirejs", "require.js", "^2"),
    "embed-amd.js": ("@jupyter-widgets/html-manager", "dist/embed-amd.js", "^1"),
    "anywidget.js": ("anywidget", "dist/index.js", "~0.11"),
}

_REQUIRE_JS = re.compile(
    r'<script src="https://cdnjs\.cloudflare\.com/ajax/libs/require\.js/[^"]+"></script>'
)
# the manager, and the pre-2016 manager nbconvert names for widget state older than v2
_EMBED_JS = re.compile(
    r"https://unpkg\.com/@jupyter-(?:widgets/html-manager|js-widgets)@[^/']+/dist/embed(?:-amd)?\.js"
)
# nbconvert's Mermaid loader (it imports mermaid from cdnjs when a page has a diagram)
_MERMAID = re.compile(
    r'<script type="module">(?:(?!</script>).)*?mermaid\.esm(?:(?!</script>).)*</script>', re.S
)
_MATHJAX = re.compile(r"<script[^>]*\bsrc=\"[^\"]*mathjax[^\"]*\"[^>]*>\s*</script>", re.I)
_WIDGET_STATE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)
_CDN = re.compile(r"https://(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com)/[^\s\"'<>]*")


def _version(package: str) -> str:
    manifest = NODE_MODULES / package / "package.json"
    if not manifest.is_file():
        raise PluginError(f"js/node_modules/{package} is missing: run `cd js && npm ci`")
    version: str = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    return version


def _satisfies(version_range: str, version: str) -> bool:
    """Enough of semver for ``^2``, ``^1.0.1``, ``~0.11`` and ``~0.11.*``."""
    bare = version_range.lstrip("^~=").removesuffix(".*").removesuffix(".x")
    if version_range.startswith("^") and not bare.startswith("0."):
        bare = bare.split(".")[0]
    return version == bare or version.startswith(bare + ".")


def _check_range(package: str, version_range: str) -> None:
    version = _version(package)
    if not _satisfies(version_range, version):
        raise PluginError(
            f"the notebook pages ask for {package}@{version_range}; js/node_modules has {version}"
        )


def _relative_assets(page: Page) -> str:
    depth = page.url.count("/") if page.url else 0
    return "../" * depth + ASSETS


def _anywidget_ranges(html: str) -> set[str]:
    """The ``anywidget`` versions the page's saved widgets ask the manager for."""
    ranges = set()
    for found in _WIDGET_STATE.finditer(html):
        for model in json.loads(found.group(1))["state"].values():
            for side in ("model", "view"):
                if model.get(f"{side}_module") == "anywidget":
                    ranges.add(model[f"{side}_module_version"])
    return ranges


def _rewrite(html: str, page: Page) -> str:
    assets = _relative_assets(page)
    for version_range in _anywidget_ranges(html):
        _check_range("anywidget", version_range)
    require = (
        f'<script src="{assets}/require.js"></script>\n'
        "<script>require.config({paths: {anywidget: "
        f'"{assets}/anywidget"}}}});</script>'
    )
    html = _REQUIRE_JS.sub(lambda _: require, html)
    html = _EMBED_JS.sub(f"{assets}/embed-amd.js", html)
    return _MERMAID.sub("", _MATHJAX.sub("", html))


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    if "application/vnd.jupyter.widget-state+json" in output:
        output = _rewrite(output, page)
    remote = remote_fetches(output) + sorted(set(_CDN.findall(output)))
    if remote:
        raise PluginError(f"{page.file.src_uri} loads from the network: {', '.join(remote)}")
    return output


def on_post_build(config: MkDocsConfig, **_: Any) -> None:
    target = Path(config.site_dir) / ASSETS
    target.mkdir(parents=True, exist_ok=True)
    for name, (package, file, version_range) in _FILES.items():
        _check_range(package, version_range)
        shutil.copy2(NODE_MODULES / package / file, target / name)
