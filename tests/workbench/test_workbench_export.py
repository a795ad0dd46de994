"""Issue 26 item 5: a registry's tool schemas as JSON, and its gallery's thread and page."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest

import ipygenui as gu
from ipygenui._internal.standard_params import STATUS_PARAM
from ipygenui.workbench._preview import samples_for
from ipygenui.workbench.export import gallery_thread, tool_schemas, write_schemas
from ipygenui.workbench.gallery import gallery_html


@gu.tool
def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    return {"city": city}


def test_openai_shape_is_what_a_request_carries() -> None:
    schemas = tool_schemas(components=[gu.Chart], tools=[get_weather])
    assert schemas == [
        get_weather.openai_schema(standard_parameters=True),
        gu.Chart.as_tool().openai_schema(standard_parameters=True),
    ]
    bare = tool_schemas(tools=[get_weather], standard_parameters=False)
    assert STATUS_PARAM not in bare[0]["function"]["parameters"]["properties"]


def test_mcp_shape_names_the_input_schema(tmp_path: Path) -> None:
    [chart] = tool_schemas(components=[gu.Chart], shape="mcp")
    assert set(chart) == {"name", "description", "inputSchema"}
    assert chart["name"] == "show_component_Chart"
    assert chart["inputSchema"]["required"][0] == STATUS_PARAM
    written = write_schemas(tmp_path / "tools.json", tools=[get_weather], shape="mcp")
    assert (
        json.loads(written.read_text())[0]["inputSchema"]["properties"]["city"]["type"] == "string"
    )
    with pytest.raises(ValueError, match="shape"):
        tool_schemas(tools=[get_weather], shape="xml")  # type: ignore[arg-type]


def test_the_gallery_thread_shows_each_valid_sample_and_lists_the_invalid() -> None:
    thread = gallery_thread([gu.Chart, gu.Metric])
    assert [m.role for m in thread.messages] == ["user", "assistant", "assistant"]
    for message, component in zip(thread.messages[1:], [gu.Chart, gu.Metric], strict=True):
        samples = samples_for(component)
        valid = [s for s in samples if s.error is None]
        calls = message.tool_calls
        assert [c.args for c in calls] == [s.props for s in valid]
        assert all(c.component == component.name and c.has_result for c in calls)
        for sample in samples:
            if sample.error is not None:
                assert sample.error in message.text


def test_the_page_embeds_the_chat_and_only_itself(tmp_path: Path) -> None:
    other = gu.Chat(model="demo")  # a chat of the notebook's own stays out of the page
    page = gallery_html([gu.Metric], tmp_path / "g.html", title="Review <1>")
    assert (tmp_path / "g.html").read_text() == page
    assert "<title>Review &lt;1&gt;</title>" in page
    state = json.loads(
        re.search(
            r'<script type="application/vnd\.jupyter\.widget-state\+json">\n(.*?)\n</script>',
            page,
            re.S,
        ).group(1)  # type: ignore[union-attr]
    )["state"]
    chats = [m for m in state.values() if m["model_name"] == "AnyModel"]
    assert len(chats) == 1 and "Metric" in json.dumps(chats[0]["state"]["component_specs"])
    assert other.model_id not in state
    other.close()


NODE_MODULES = Path(__file__).resolve().parents[2] / "js" / "node_modules"
_CDN_FILE = re.compile(
    r"^https://cdn\.jsdelivr\.net/npm/(?P<pkg>(?:@[^/@]+/)?[^/@]+)@(?P<version>[^/]+)/(?P<file>.+)$"
)


def _pinned_file(url: str) -> Path:
    """The file of js/node_modules a CDN URL names, at the exact version installed there."""
    found = _CDN_FILE.match(url)
    assert found, f"not a pinned npm CDN URL: {url}"
    package = NODE_MODULES / found["pkg"]
    installed = json.loads((package / "package.json").read_text())["version"]
    assert found["version"] == installed, f"{url}: js/node_modules has {installed}"
    return package / found["file"]


def _sri(path: Path) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()


def test_every_script_the_gallery_loads_is_pinned_by_its_hash() -> None:
    page = gallery_html([gu.Metric])
    tags = re.findall(r"<script\b[^>]*\bsrc=[^>]*>", page)
    assert len(tags) == 2  # require.js, then the widget manager
    for tag in tags:
        src = re.search(r'src="([^"]+)"', tag).group(1)  # type: ignore[union-attr]
        integrity = re.search(r'integrity="([^"]+)"', tag)
        assert integrity, f"no integrity on {tag}"
        assert integrity.group(1) == _sri(_pinned_file(src)), src
        assert 'crossorigin="anonymous"' in tag
    # the modules require.js loads itself (anywidget's): pinned too, each by its URL
    pins = json.loads(re.search(r"const pins = (\{.*?\});", page).group(1))  # type: ignore[union-attr]
    assert any("/anywidget@" in url for url in pins)
    for url, integrity in pins.items():
        assert integrity == _sri(_pinned_file(url)), url
    assert "onNodeCreated" in page
