"""``docs/hooks/check_site.py``, which ``make docs`` runs on the built site, can fail.

It reads the Sphinx inventory mkdocstrings writes (``site/objects.inv``) with
zlib alone and reports every public name the API reference lacks; these
tests feed it small inventories made here. The names it expects come from the
package's ``__all__``s (``docs/hooks/public_names.py``).
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parents[2] / "docs" / "hooks"
sys.path.insert(0, str(HOOKS))

import check_site  # noqa: E402
import public_names  # noqa: E402


def inventory(*names: str) -> bytes:
    header = (
        b"# Sphinx inventory version 2\n# Project: ipygenui\n# Version: 0.0.0\n"
        b"# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(f"{name} py:class 1 api/#$ -\n" for name in names)
    return header + zlib.compress(body.encode())


def test_the_inventory_is_read_name_by_name() -> None:
    names = check_site.read_inventory(inventory("ipygenui.Chat", "ipygenui.events.RunEnded"))
    assert names == {"ipygenui.Chat", "ipygenui.events.RunEnded"}


def test_a_file_that_is_no_inventory_is_refused() -> None:
    with pytest.raises(ValueError, match="Sphinx inventory"):
        check_site.read_inventory(b"<html>not found</html>")


def test_a_missing_name_is_reported_in_order() -> None:
    found = check_site.read_inventory(inventory("ipygenui.Chat"))
    expected = ["ipygenui.Chat", "ipygenui.tool", "ipygenui.errors.ToolError"]
    assert check_site.missing_names(expected, found) == [
        "ipygenui.tool",
        "ipygenui.errors.ToolError",
    ]


def test_main_fails_on_a_reference_that_lacks_a_public_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = public_names.expected_identifiers()
    (tmp_path / "objects.inv").write_bytes(inventory(*expected[1:]))
    assert check_site.main(tmp_path) == 1
    assert expected[0] in capsys.readouterr().err

    (tmp_path / "objects.inv").write_bytes(inventory(*expected))
    (tmp_path / "index.html").write_text(
        '<a href="https://example.org/x">x</a><a href="api/">in</a>'
    )
    assert check_site.main(tmp_path) == 0
    assert (tmp_path / "external-links.txt").read_text() == "https://example.org/x\tindex.html\n"


def test_every_public_name_is_expected_top_level_and_module_alike() -> None:
    import ipygenui
    import ipygenui.errors

    expected = set(public_names.expected_identifiers())
    assert {f"ipygenui.{n}" for n in ipygenui.__all__ if n != "__version__"} <= expected
    assert {f"ipygenui.errors.{n}" for n in ipygenui.errors.__all__} <= expected
    # a name a submodule shadows is expected where it is defined
    assert "ipygenui.components.python_component.component" in expected
    assert "ipygenui.components.component" not in expected


def test_a_page_that_installs_from_an_index_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "objects.inv").write_bytes(inventory(*public_names.expected_identifiers()))
    page = "<code><span>pip</span> install &quot;ipygenui[mcp]&quot;</code>"
    (tmp_path / "guide.html").write_text(page)
    assert check_site.main(tmp_path) == 1
    assert 'guide.html: pip install "ipygenui' in capsys.readouterr().err

    (tmp_path / "guide.html").write_text("<code>pip install &quot;.[mcp]&quot;</code>")
    assert check_site.main(tmp_path) == 0


def test_a_page_that_fetches_from_another_host_is_caught() -> None:
    import site_urls

    html = (
        '<link rel="canonical" href="https://example.org/">'
        '<link rel="stylesheet" href="https://fonts.example/css">'
        '<script src="assets/local.js"></script><img srcset="//cdn.example/a.png 2x">'
        '<a href="https://example.org/page">a link is not a fetch</a>'
    )
    assert site_urls.remote_fetches(html) == ["//cdn.example/a.png", "https://fonts.example/css"]
