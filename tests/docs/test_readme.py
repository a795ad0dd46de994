"""The README stays a front page and the pages never install from an index.

The README is at most 200 lines and carries the install block of
``docs/install.md`` verbatim (``tests/packaging`` runs its commands); until the
package is published, no page tells a user to ``pip install ipygenui`` (or
with extras) from an index it is not on.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
_BLOCK = re.compile(r"<!-- install:start -->\n.*?<!-- install:end -->", re.S)

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
from check_site import FROM_INDEX as _FROM_INDEX  # noqa: E402  (the built site's check)


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 200, f"README.md is {lines} lines: move the detail into docs/"


def test_the_readme_and_the_install_page_share_the_install_block() -> None:
    [in_readme] = _BLOCK.findall(README.read_text(encoding="utf-8"))
    [in_page] = _BLOCK.findall((ROOT / "docs" / "install.md").read_text(encoding="utf-8"))
    assert in_readme == in_page


def test_the_readme_links_into_the_site_and_to_the_local_build() -> None:
    text = README.read_text(encoding="utf-8")
    assert "https://ipygenui.github.io/ipygenui/" in text
    assert "make docs" in text and "site/index.html" in text
    assert "docs/install.md" in text  # the wheel instructions


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_installs_from_an_index(path: Path) -> None:
    found = _FROM_INDEX.findall(path.read_text(encoding="utf-8"))
    assert found == [], f"{path.name} installs from an index: {found}"


def test_the_index_pattern_tells_a_name_from_a_path() -> None:
    assert _FROM_INDEX.search('pip install "ipygenui[mcp]"')
    assert _FROM_INDEX.search("python -m pip install -U ipygenui")
    assert not _FROM_INDEX.search('pip install ".[mcp]"')
    assert not _FROM_INDEX.search("pip install dist/ipygenui-0.1.0-py3-none-any.whl")


SITE = "https://ipygenui.github.io/ipygenui/"


def _source_of(page: str) -> Path:
    """The file a page of the site is built from (``use_directory_urls: false``)."""
    stem = page.removesuffix(".html")
    if stem.startswith("notebooks/"):
        return ROOT / f"{stem}.ipynb"
    if stem.startswith("api/"):  # generated from the package by docs/hooks/api_pages.py
        return ROOT / "docs" / "hooks" / "api_pages.py"
    return ROOT / "docs" / f"{stem}.md"


def test_the_readme_links_only_to_pages_the_site_has() -> None:
    links = re.findall(re.escape(SITE) + r"([^)>\s]*)", README.read_text(encoding="utf-8"))
    pages = [link for link in links if link]
    assert len(pages) >= 10
    assert [p for p in pages if not p.endswith(".html") or not _source_of(p).is_file()] == []
