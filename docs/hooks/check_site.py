"""Check a built site: every public name in the API reference, no install from an index.

Run by ``make docs`` after ``mkdocs build --strict`` (which already fails on a
broken internal link or anchor)::

    python docs/hooks/check_site.py [site]

The reference's names are read from ``site/objects.inv``, the Sphinx
inventory mkdocstrings writes (a text header, then zlib-compressed lines
``name domain:role priority uri display``), and compared with every
``__all__`` (``public_names.py``). Until the package is published, no page
may tell a reader to ``pip install ipygenui`` (or with extras) from an index
(the API reference's docstrings and the notebooks included). Links to other hosts cannot be followed
here (no network): they are written to ``site/external-links.txt`` and not
checked.
"""

from __future__ import annotations

import html
import re
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from site_urls import is_remote, page_urls

FROM_INDEX = re.compile(r"pip install\s+(?:-\S+\s+)*[\"']?ipygenui\b(?!/)")
"""``pip install ipygenui``, ``"ipygenui[mcp]"``: a name on an index, not a path or ``.``"""
_TAG = re.compile(r"<[^>]+>")

_HEADER_LINES = 4  # "# Sphinx inventory version 2", project, version, compression note


def read_inventory(data: bytes) -> set[str]:
    """The object names in a Sphinx inventory (version 2), from its bytes."""
    lines = data.split(b"\n", _HEADER_LINES)
    if not lines[0].startswith(b"# Sphinx inventory version 2"):
        raise ValueError("not a Sphinx inventory version 2")
    if len(lines) <= _HEADER_LINES:
        return set()
    body = zlib.decompress(lines[_HEADER_LINES]).decode("utf-8")
    return {line.split(" ", 1)[0] for line in body.splitlines() if line.strip()}


def missing_names(expected: Iterable[str], inventory: set[str]) -> list[str]:
    """The expected names the inventory lacks, in the order given."""
    return [name for name in expected if name not in inventory]


def index_installs(site: Path) -> dict[str, list[str]]:
    """page -> the installs from an index its text tells a reader to run."""
    found = {}
    for page in sorted(site.rglob("*.html")):
        text = html.unescape(_TAG.sub("", page.read_text(encoding="utf-8")))
        hits = [m.group(0) for m in FROM_INDEX.finditer(text)]
        if hits:
            found[page.relative_to(site).as_posix()] = hits
    return found


def external_links(site: Path) -> dict[str, list[str]]:
    """link -> the pages (relative to ``site``) that link to it, for every link to another host."""
    found: dict[str, set[str]] = {}
    for page in sorted(site.rglob("*.html")):
        for url in page_urls(page.read_text(encoding="utf-8"))[1]:
            if is_remote(url):
                found.setdefault(url, set()).add(page.relative_to(site).as_posix())
    return {url: sorted(pages) for url, pages in sorted(found.items())}


def main(site: Path) -> int:
    from public_names import expected_identifiers

    inventory = read_inventory((site / "objects.inv").read_bytes())
    expected = expected_identifiers()
    missing = missing_names(expected, inventory)
    if missing:
        print(f"the API reference lacks {len(missing)} public names:", file=sys.stderr)
        for name in missing:
            print(f"  {name}", file=sys.stderr)
        return 1
    installs = index_installs(site)
    if installs:
        print("pages that install from an index (use a checkout or a wheel):", file=sys.stderr)
        for page, hits in installs.items():
            print(f"  {page}: {', '.join(hits)}", file=sys.stderr)
        return 1
    links = external_links(site)
    listing = "".join(f"{url}\t{' '.join(pages)}\n" for url, pages in links.items())
    (site / "external-links.txt").write_text(listing, encoding="utf-8")
    print(
        f"API reference: all {len(expected)} public names documented. "
        f"{len(links)} external links (not checked offline) in {site / 'external-links.txt'}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "site")))
