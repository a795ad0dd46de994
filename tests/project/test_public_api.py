"""The public names (``ipygenui.__all__``, what the README documents) exist,
load lazily, and stay in sync: one grouped table (``_API``), from which
``__all__`` and the lazy loader are derived, and the ``TYPE_CHECKING`` imports
for static checkers, which must name exactly the same things."""

import ast
import inspect
import subprocess
import sys
import warnings

import pytest

import ipygenui as gu
import ipygenui.testing


def test_every_listed_name_imports():
    missing = [name for name in gu.__all__ if not hasattr(gu, name)]
    assert missing == []


def test_all_and_lazy_table_agree():
    assert set(gu.__all__) - {"__version__"} == set(gu._EXPORTS)


def test_the_names_come_in_groups_each_listed_once():
    assert list(gu._API) == [
        "runtime",
        "thread and messages",
        "tools",
        "components",
        "models",
        "events",
        "errors",
        "data",
        "agents and servers",
    ]
    listed = [name for modules in gu._API.values() for names in modules.values() for name in names]
    assert len(listed) == len(set(listed))  # a name in two groups would hide one
    assert gu.__all__ == ["__version__", *listed]
    assert "should_continue" in gu._API["runtime"]["runtime.continuation"]


def _type_checking_imports() -> set[tuple[str, str]]:
    tree = ast.parse(inspect.getsource(gu))
    blocks = [
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1
    found = set()
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.unparse(node)
        for alias in node.names:
            # "X as X" marks a re-export for mypy (no_implicit_reexport) and pyright
            assert alias.asname == alias.name, ast.unparse(node)
            found.add((node.module or "", alias.name))
    return found


def test_static_checkers_see_exactly_the_table():
    assert {(m, n) for n, m in gu._EXPORTS.items()} == _type_checking_imports()


def test_types_in_public_signatures_are_exported():
    for name in [
        "ThreadSummary",
        "MessageAdded",
        "MessagePatched",
        "RunStarted",
        "RunEnded",
        "ThreadEvent",
        "Running",
        "RequiresAction",
        "Complete",
        "Incomplete",
        "TextDelta",
        "ToolCallDelta",
        "FinishDelta",
        "ModelDelta",
        "AGUIApp",
        "AttachmentError",
        "MCPConnectionError",
    ]:
        assert name in gu.__all__, name
        assert getattr(gu, name) is not None


def test_test_doubles_moved_to_ipygenui_testing_with_a_warning():
    for name in ["ScriptedModel", "ScriptedReply", "ScriptedCall"]:
        assert name not in gu.__all__
        assert name not in dir(gu)
        with pytest.warns(DeprecationWarning, match=f"from ipygenui.testing import {name}"):
            old = getattr(gu, name)
        assert old is getattr(ipygenui.testing, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ipygenui.testing.ScriptedModel(["hi"])
    assert isinstance(model, gu.Model)


def test_internal_modules_are_underscored():
    import ipygenui.components as components
    import ipygenui.tools as tools

    for old in ["threads", "transcript", "attachments", "ui_tools", "code_tool", "mcp_tools"]:
        with pytest.raises(ModuleNotFoundError):
            __import__(f"ipygenui.{old}")
    assert "_live" not in components.__all__
    assert {"Tool", "tool", "ToolError", "ToolArgumentsError", "ToolDefinitionError"} <= set(
        tools.__all__
    )


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


INTERNAL_ERRORS = {
    "AppRequestError": "an MCP app's refused request, answered to the app as JSON-RPC",
    "InvalidHistory": "the history checker's assertion, for tests",
    "PartialJSONError": "caught by the argument parser, the card shows the raw text",
    "Refused": "an AG-UI HTTP request refused with its status",
    "SchemaProblem": "raised again as ToolDefinitionError",
    "StateLimitError": "raised again as ModelError",
    "UnsafeFileError": "an attachment file left out with a notice on its part",
}
"""Exception classes no user code meets: each is caught inside the package."""


def test_every_error_class_is_importable_from_errors():
    # one home for what `except` names: every exception class the package
    # defines is ipygenui.errors' (its old modules import it from there),
    # but for the internal ones above
    import importlib
    import pkgutil

    import ipygenui.errors as errors

    defined: set[type] = set()
    for info in pkgutil.walk_packages(gu.__path__, "ipygenui."):
        if info.name.startswith(("ipygenui.widget", "ipygenui.workbench")):
            continue  # the widget layer: its errors answer the browser
        for value in vars(importlib.import_module(info.name)).values():
            if (
                isinstance(value, type)
                and issubclass(value, Exception)
                and value.__module__.startswith("ipygenui")
                and not value.__name__.startswith("_")
            ):
                defined.add(value)
    public = {v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)}
    assert all(c.__module__ == "ipygenui.errors" for c in public)
    assert {c.__name__ for c in defined - public} == set(INTERNAL_ERRORS)
    assert set(gu._API["errors"]["errors"]) <= {c.__name__ for c in public}


def test_every_public_name_is_defined_in_a_public_module():
    # the table names where each is defined, and that module is public
    for name, module in gu._EXPORTS.items():
        assert not any(part.startswith("_") for part in module.split(".")), (name, module)
        value = getattr(gu, name)
        if isinstance(value, type) or inspect.isfunction(value):
            assert value.__module__ == f"ipygenui.{module}", (name, value.__module__)
