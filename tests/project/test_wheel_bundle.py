"""A wheel ships the widget built from the js/src it was built with.

Fault tried: the build reuses an existing ``static/widget.js`` (left by an
earlier build) after js/src changed, so a stale bundle ships.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path

import pytest

from binder_reproduction import copy_checkout


@pytest.mark.packaging
def test_a_wheel_built_after_a_js_edit_carries_the_edit(tmp_path: Path) -> None:
    repo = copy_checkout(tmp_path / "repo")
    static = repo / "src" / "ipygenui" / "static"
    static.mkdir(parents=True, exist_ok=True)
    (static / "widget.js").write_text('export default { render() { "STALE BUNDLE"; } };\n')
    (static / "widget.css").write_text("/* STALE BUNDLE */\n")
    mark = f"edited-{uuid.uuid4().hex}"
    with (repo / "js" / "src" / "widget.js").open("a") as source:
        source.write(f'\nglobalThis.__ipygenuiBuildMark = "{mark}";\n')  # kept by the minifier

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            ".",
        ],
        cwd=repo,
        env=env,
        check=True,
    )
    [wheel] = (tmp_path / "dist").glob("ipygenui-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        bundle = archive.read("ipygenui/static/widget.js").decode()
        css = archive.read("ipygenui/static/widget.css").decode()
        highlighter = archive.read("ipygenui/static/highlight.js").decode()
        loader = archive.read("ipygenui/static/loader.js").decode()
    assert mark in bundle and "STALE BUNDLE" not in bundle
    assert "export" in highlighter  # the code highlighter, loaded on demand
    assert "STALE BUNDLE" not in css
    # each Chat's own module: it takes the bundle from the shared model
    assert "_bundle" in loader and "get_model" in loader and mark not in loader
