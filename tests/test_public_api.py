"""The public names (``ipygenui.__all__``, what the README documents) exist,
load lazily, and stay in sync."""

import subprocess
import sys

import ipygenui as gu


def test_every_listed_name_imports():
    missing = [name for name in gu.__all__ if not hasattr(gu, name)]
    assert missing == []


def test_all_and_lazy_table_agree():
    assert set(gu.__all__) - {"__version__"} == set(gu._EXPORTS)


def test_design_names_are_public():
    for name in [
        "Chat",
        "Runtime",
        "Run",
        "tool",
        "Component",
        "component",
        "Registry",
        "OpenAIModel",
        "ScriptedModel",
        "should_continue",
        "Thread",
        "Message",
    ]:
        assert name in gu.__all__, name
    assert callable(gu.should_continue)


def test_unknown_name_is_a_clear_attribute_error():
    try:
        gu.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_headless_runtime_imports_no_widget_code():
    code = (
        "import sys, ipygenui as gu; gu.Runtime; gu.OpenAIModel; gu.Component; gu.tool;"
        "bad = [m for m in ('ipywidgets', 'anywidget', 'traitlets', 'ipygenui.widget.chat')"
        " if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_our_mcp_package_does_not_shadow_the_sdk():
    # ipygenui/mcp/ imports the SDK as ``mcp``: absolute imports never mean a sibling
    code = (
        "import ipygenui.mcp._connection, ipygenui.mcp._results, mcp, mcp.types;"
        "print(mcp.__name__, hasattr(mcp, 'ClientSession'), 'ipygenui' in mcp.__file__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["mcp", "True", "False"]
