"""The public names (``ipygenui.__all__``, what the README documents) exist,
load lazily, and stay in sync: one grouped table (``_API``), from which
``__all__`` and the lazy loader are derived, and the ``TYPE_CHECKING`` imports
for static checkers, which must name exactly the same things. The top level
is small (what a notebook user types); every other public name has a public
home module, and a name that moved there is still served at the top level,
with a warning, for one release."""

import ast
import importlib
import inspect
import subprocess
import sys
import warnings

import pytest

import ipygenui as gu
import ipygenui.events
import ipygenui.models
import ipygenui.testing


def test_every_listed_name_imports():
    missing = [name for name in gu.__all__ if not hasattr(gu, name)]
    assert missing == []


def test_all_and_lazy_table_agree():
    assert set(gu.__all__) - {"__version__"} == set(gu._EXPORTS)


def test_the_names_come_in_groups_each_listed_once():
    assert list(gu._API) == [
        "runtime",
        "tools",
        "components",
        "models and agents",
        "data",
        "workbench",
    ]
    listed = [name for modules in gu._API.values() for names in modules.values() for name in names]
    assert len(listed) == len(set(listed))  # a name in two groups would hide one
    assert gu.__all__ == ["__version__", *listed]
    assert "should_continue" in gu._API["runtime"]["runtime.continuation"]


def test_the_top_level_is_small():
    # what a notebook user types; events, errors, parts, protocols live in their modules
    assert len(gu._EXPORTS) <= 40, len(gu._EXPORTS)
    assert not set(gu._EXPORTS) & set(gu._MOVED)


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


HOMES = {
    "events": ["MessageAdded", "RunEnded", "ThreadEvent", "ThreadListener", "ThreadSummary"],
    "errors": ["ToolError", "DecisionError", "AttachmentError", "MCPConnectionError"],
    "messages": ["Thread", "TextPart", "ToolCallPart", "Running", "Incomplete", "Usage"],
    "models": ["Model", "ModelRequest", "TextDelta", "ModelDelta", "Agent", "AgentRequest"],
    "agui": ["AGUIApp", "AGUIAgent"],
    "components": ["Registry", "ShownComponent", "Component"],
    "tools": ["ApprovalRule", "Tool"],
    "data": ["ToolResult", "summarize", "DataRef"],
    "testing": ["ScriptedModel"],
}
"""Types in public signatures, each listed by its home's ``__all__`` (a sample)."""


@pytest.mark.parametrize("home", sorted(HOMES))
def test_types_in_public_signatures_have_a_public_home(home: str) -> None:
    module = importlib.import_module(f"ipygenui.{home}")
    for name in HOMES[home]:
        assert getattr(module, name) is not None
        assert name in module.__all__, (home, name)


PREVIOUS_TOP_LEVEL = """
Runtime Run should_continue Chat Workbench Thread Message Part TextPart ReasoningPart
ToolCallPart AttachmentPart Approval Feedback Usage MessageStatus Running RequiresAction
Complete Incomplete ThreadSummary tool Tool ApprovalRule python_tool data_tools MCPTools
registry_cost tool_schemas gallery_html Component component Registry ShownComponent Markdown
Table Metric Chart Image Form A2UI Model ModelRequest ModelDelta TextDelta ReasoningDelta
ToolCallDelta UsageDelta FinishDelta FinishReason DemoModel OpenAIModel ProviderModel model
evaluate evaluate_sync ThreadEvent ThreadListener MessageAdded MessagePatched MessageReplaced
RunStarted RunEnded RunChanged RunPhase AgentStateChanged AlwaysAllowedChanged
SuggestionsChanged SaveStatusChanged ActivePathChanged FeedbackChanged ThreadsChanged
ModelChanged AgentCustomEvent ToolError ToolArgumentsError ToolDefinitionError ModelError
DecisionError BranchError PersistenceConflictError ThreadFileError UnknownThreadError
AttachmentError ModelChoiceError UnknownReference MCPConnectionError DataStore DataRef
ToolResult summarize Agent AgentRequest AGUIAgent AGUIApp
"""
"""The 95 top-level names of the release before the top level was cut down."""


def test_every_old_top_level_name_still_resolves() -> None:
    previous = PREVIOUS_TOP_LEVEL.split()
    assert len(previous) == 95
    kept_or_moved = set(gu._EXPORTS) | set(gu._MOVED)
    assert [name for name in previous if name not in kept_or_moved] == []
    # and the test doubles moved a release before
    assert {n: gu._MOVED[n] for n in ["ScriptedModel", "ScriptedReply", "ScriptedCall"]} == {
        "ScriptedModel": "testing",
        "ScriptedReply": "testing",
        "ScriptedCall": "testing",
    }


def test_every_moved_name_is_exported_by_its_new_home() -> None:
    for name, home in gu._MOVED.items():
        module = importlib.import_module(f"ipygenui.{home}")
        assert name in module.__all__, (home, name)


@pytest.mark.parametrize("name", sorted(gu._MOVED))
def test_a_moved_name_warns_where_it_went_and_is_the_same_object(name: str) -> None:
    home = gu._MOVED[name]
    assert name not in gu.__all__
    assert name not in dir(gu)
    with pytest.warns(DeprecationWarning, match=f"from ipygenui.{home} import {name}") as caught:
        old = getattr(gu, name)
    assert [w.filename for w in caught] == [__file__]  # the line that read it
    assert old is getattr(importlib.import_module(f"ipygenui.{home}"), name)
    assert name not in vars(gu)  # not cached: every use warns


def test_a_moved_name_warns_on_from_import_too() -> None:
    with pytest.warns(DeprecationWarning, match="from ipygenui.events import MessageAdded") as w:
        from ipygenui import MessageAdded  # type: ignore[attr-defined]
    assert {warning.filename for warning in w} == {__file__}
    assert MessageAdded is ipygenui.events.MessageAdded


def test_the_test_doubles_import_from_testing_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ipygenui.testing.ScriptedModel(["hi"])
    assert isinstance(model, ipygenui.models.Model)


def test_submodules_resolve_as_attributes_on_first_use() -> None:
    code = (
        "import sys, ipygenui as gu; assert 'ipygenui.events' not in sys.modules;"
        "print(gu.events.MessageAdded.__name__, gu.errors.DecisionError.__name__,"
        " gu.messages.TextPart.__name__, gu.models.TextDelta.__name__,"
        " gu.testing.ScriptedModel.__name__, gu.components.Registry.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "MessageAdded",
        "DecisionError",
        "TextPart",
        "TextDelta",
        "ScriptedModel",
        "Registry",
    ]
    assert "events" not in dir(gu)  # dir() lists the top-level names only
    # a submodule that needs a missing package says which, not "no attribute"
    code = "import sys, ipygenui as gu; sys.modules['ag_ui'] = None; gu.agui"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "ModuleNotFoundError: No module named 'ag_ui" in out.stderr
    with pytest.raises(AttributeError, match="no_such_module"):
        gu.no_such_module  # noqa: B018
    with pytest.raises(AttributeError, match="_private"):
        gu._private  # noqa: B018


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
        "import pathlib, ipygenui, ipygenui.mcp._connection, ipygenui.mcp._results, mcp, mcp.types;"
        "ours = pathlib.Path(ipygenui.__file__).resolve().parent;"
        "sdk = pathlib.Path(mcp.__file__).resolve();"
        # inside our package or not: the clone's own folder may well be named ipygenui
        "print(mcp.__name__, hasattr(mcp, 'ClientSession'), sdk.is_relative_to(ours))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["mcp", "True", "False"]


INTERNAL_ERRORS = {
    "AppRequestError": "an MCP app's refused request, answered to the app as JSON-RPC",
    "Damaged": "a cassette entry's fault, raised again as CassetteError or a CassetteWarning",
    "BadResume": "an AG-UI resume refused whole, answered to the client as RUN_ERROR",
    "InvalidHistory": "the history checker's assertion, for tests",
    "PartialJSONError": "caught by the argument parser, the card shows the raw text",
    "Refused": "an AG-UI HTTP request refused with its status",
    "SchemaCompileError": "a shipped A2UI schema the compiler cannot check: met by its tests",
    "SchemaProblem": "raised again as ToolDefinitionError",
    "SignInCancelled": "a sign-in card cancelled, raised again as MCPSignInError",
    "StateLimitError": "raised again as ModelError",
    "TaskError": "a server's task request refused: answered to the server as an MCP error",
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
    assert set(gu._MOVED_TO["errors"]) | {"ToolError"} <= {c.__name__ for c in public}
    assert gu.ToolError is errors.ToolError  # the one error at the top level too


def test_every_public_name_is_defined_in_a_public_module():
    # the table names where each is defined, and that module is public
    for name, module in gu._EXPORTS.items():
        assert not any(part.startswith("_") for part in module.split(".")), (name, module)
        value = getattr(gu, name)
        if isinstance(value, type) or inspect.isfunction(value):
            assert value.__module__ == f"ipygenui.{module}", (name, value.__module__)
    # so is the module each moved class or function is defined in
    for name, home in gu._MOVED.items():
        value = getattr(importlib.import_module(f"ipygenui.{home}"), name)
        if isinstance(value, type) or inspect.isfunction(value):
            assert not any(p.startswith("_") for p in value.__module__.split(".")), name
