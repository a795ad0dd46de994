"""How a card names an MCP server when the server gives no name of its own:
the short form of how it was started, never the venv's absolute path; the
full command (a URL without its query) for the card's details, bounded.
A real server's own name is tested in tests/faults/test_mcp.py and
tests/mcp/test_mcp_requests.py."""

from __future__ import annotations

import pytest

from ipygenui.mcp._connection import HTTP, Stdio
from ipygenui.mcp._server_name import MAX_COMMAND_CHARS, command_text, server_name


@pytest.mark.parametrize(
    ("command", "args", "named"),
    [
        ("/w/.venv/bin/python", ["/w/notebooks/mcp_demo_server.py"], "python mcp_demo_server.py"),
        ("/usr/bin/npx", ["-y", "@mcp/server-everything"], "npx -y @mcp/server-everything"),
        ("/opt/bin/python", ["-m", "weather.server", "--port", "1"], "python -m weather.server"),
        ("/usr/local/bin/weather-mcp", [], "weather-mcp"),
    ],
)
def test_a_server_without_a_name_is_named_by_its_short_command(command, args, named) -> None:
    transport = Stdio(command, args, None, None)
    assert server_name(None, transport) == named
    assert command_text(transport).startswith(command)


def test_a_url_is_named_by_its_host_and_path_and_its_query_never_shown() -> None:
    transport = HTTP("https://mcp.example.org/v1/mcp?key=secret#x", None)
    assert server_name(None, transport) == "mcp.example.org/v1/mcp"
    assert command_text(transport) == "https://mcp.example.org/v1/mcp"


def test_the_full_command_is_bounded() -> None:
    transport = Stdio("/bin/server", ["x" * 50_000], None, None)
    assert len(command_text(transport)) == MAX_COMMAND_CHARS
