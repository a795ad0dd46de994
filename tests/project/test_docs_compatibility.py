"""docs/compatibility.md cannot go stale silently: every test file it cites
exists, every row has a known status, and every row marked supported cites a
test against a real peer in its "Proved by" column.

Faults tried: a cited test file renamed or removed; a supported row with no
test, or with a test that runs no real peer; a misspelt status (it would
escape the check for supported rows); a role's table removed.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "compatibility.md"
STATUSES = {"supported", "partial", "not supported"}
SECTIONS = (
    "## AG-UI server",
    "## AG-UI client",
    "## MCP client",
    "### MCP Apps host",
    "### A2UI renderer",
)
REAL_PEERS = (
    "tests/agui/test_agui_official_client*.py",  # the official @ag-ui/client
    "tests/agui/test_agui_agent.py",  # a pydantic-ai agent behind its own AG-UI adapter
    "tests/mcp/test_mcp_*.py",  # server-everything and servers written with the mcp SDK
    "tests/faults/test_mcp.py",
    "tests/e2e/test_mcp_apps.py",  # JupyterLab and Chromium with an mcp-SDK server's ui:// apps
    "tests/e2e/test_a2ui.py",  # A2UI surfaces drawn by JupyterLab and Chromium
    "tests/e2e/test_a2ui_samples.py",  # the spec's own samples drawn by JupyterLab and Chromium
    "tests/a2ui/test_a2ui_official_client.py",  # the official @ag-ui/client reads our A2UI activity
)
CITED = re.compile(r"`(tests/[\w/.-]+\.py)`")


def rows() -> dict[str, list[list[str]]]:
    """Each section's (or subsection's) table rows (cells), header and
    separator left out."""
    out: dict[str, list[list[str]]] = {}
    section = ""
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.startswith(("## ", "### ")):
            section = line
            out[section] = []
        elif line.startswith("|") and section:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] != "Feature" and not set(cells[0]) <= {"-"}:
                out[section].append(cells)
    return out


def test_every_role_has_a_table_of_four_columns_and_known_statuses() -> None:
    tables = rows()
    for title in SECTIONS:
        found = [s for s in tables if s.startswith(title)]
        assert len(found) == 1, f"docs/compatibility.md: no one section {title!r}"
        [section] = found
        assert tables[section], f"{section}: no rows"
        for cells in tables[section]:
            assert len(cells) == 4, cells
            assert cells[1] in STATUSES, f"{cells[0]}: status {cells[1]!r}"


def test_every_cited_test_file_exists() -> None:
    cited = set(CITED.findall(TABLE.read_text(encoding="utf-8")))
    assert cited
    missing = sorted(path for path in cited if not (ROOT / path).is_file())
    assert missing == [], f"docs/compatibility.md cites missing tests: {missing}"


def test_every_supported_row_cites_a_real_peer_test() -> None:
    for section, table in rows().items():
        for feature, status, _, proved_by in (r for r in table if len(r) == 4):
            if status != "supported":
                continue
            tests = CITED.findall(proved_by)
            assert tests, f"{section} / {feature}: supported, but cites no test"
            peers = [t for t in tests if any(fnmatch(t, p) for p in REAL_PEERS)]
            assert peers, f"{section} / {feature}: {tests} run no real peer"
