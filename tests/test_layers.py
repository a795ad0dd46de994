"""The module layers, read statically from the source (every import: lazy ones
inside functions and those in ``if TYPE_CHECKING:`` blocks too, since a cycle
through type hints is still two modules that each need the other).

Faults tried: an import cycle (``messages`` importing ``components.shown``,
which imports ``messages``; ``agui/_server.py`` typing against ``Runtime``
while ``runtime.py`` imports it); core code importing the widget layer; a model
adapter importing the run loop (``models/demo.py`` reading the suggestions
prompt); a shared internal helper importing the loop, the runtime or the widget
(``argument_checks`` importing components and tools); the tools or MCP
packages importing the loop, the runtime or the widget; AG-UI importing the
widget; the core (the runtime and its parts) importing a transport (AG-UI's
emitter kept on the runtime), MCP or the widget.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ipygenui

PACKAGE = Path(ipygenui.__file__).parent


def _module_name(path: Path) -> str:
    parts = ["ipygenui", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: _imports(path, name, modules) for name, path in paths.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _offenders(prefixes: tuple[str, ...], above: tuple[str, ...]) -> dict[str, list[str]]:
    """The modules under ``prefixes`` that import one under ``above``."""
    graph = import_graph()
    found = {
        name: sorted(m for m in imported if m.startswith(above))
        for name, imported in graph.items()
        if name.startswith(prefixes)
    }
    return {name: modules for name, modules in found.items() if modules}


def test_the_graph_sees_lazy_and_type_checking_imports() -> None:
    graph = import_graph()
    assert "ipygenui.messages" in graph["ipygenui.runtime"]
    # runtime.py imports widget code nowhere, but Chat's module imports the runtime
    assert "ipygenui.runtime" in graph["ipygenui.widget.chat"]
    # lazy: only inside Runtime's AG-UI methods (see the transport rule below)
    assert "ipygenui.agui._runtime_link" in graph["ipygenui.runtime"]
    # only under TYPE_CHECKING (the public names for static checkers)
    assert "ipygenui.widget.chat" in graph["ipygenui"]


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


WIDGETS = ("ipygenui.widget", "ipygenui.workbench.widget")
"""The widget layer: the chat's package and the workbench's widget (it reuses the
chat's built files); ``ipygenui.workbench``'s other modules are headless."""


def test_core_imports_no_widget_code() -> None:
    graph = import_graph()
    offenders = {
        name: sorted(m for m in imported if m.startswith("ipygenui.widget"))
        for name, imported in graph.items()
        # the package's __init__ names Chat for static checkers and loads it lazily
        if not name.startswith(WIDGETS) and name != "ipygenui"
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_models_and_messages_sit_below_the_loop() -> None:
    graph = import_graph()
    above = ("ipygenui._loop", "ipygenui.runtime", "ipygenui.components", "ipygenui.widget")
    offenders = {
        name: sorted(m for m in imported if m.startswith(above))
        for name, imported in graph.items()
        if name.startswith(("ipygenui.models", "ipygenui.messages"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_shared_internals_import_only_messages() -> None:
    # _internal/ is below every feature: nothing of the package but messages
    graph = import_graph()
    offenders = {
        name: sorted(
            m for m in imported if not m.startswith(("ipygenui._internal", "ipygenui.messages"))
        )
        for name, imported in graph.items()
        if name.startswith("ipygenui._internal")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_tools_and_mcp_import_no_loop_runtime_widget_or_transport() -> None:
    above = (
        "ipygenui._loop",
        "ipygenui.runtime",
        "ipygenui.widget",
        "ipygenui.components",
        "ipygenui.agui",
    )
    assert _offenders(("ipygenui.tools", "ipygenui.mcp"), above) == {}
    # MCP is built on tools, never the other way round
    assert _offenders(("ipygenui.tools",), ("ipygenui.mcp",)) == {}


def test_agui_imports_no_widget_or_runtime() -> None:
    # the runtime attaches AG-UI; AG-UI types against what it uses (agui/_server.py)
    assert _offenders(("ipygenui.agui",), ("ipygenui.widget", "ipygenui.runtime")) == {}


TRANSPORTS = ("ipygenui.agui", "ipygenui.mcp", "ipygenui.widget")
OUTSIDE_THE_CORE = ("ipygenui.agui", "ipygenui.mcp", *WIDGETS, "ipygenui.testing")
AGUI_FACADE = {"subscribe_agui", "agui_events", "ag_ui_app"}
"""Runtime's public AG-UI methods: each hands the runtime to ``agui/_runtime_link.py``."""


def _agui_import_scopes(path: Path) -> set[str]:
    """Where ``path`` imports from ``.agui``: the function each import is in
    ("" at module level, "TYPE_CHECKING" for the type-only block)."""
    scopes: set[str] = set()

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            elif isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING":
                inner = "TYPE_CHECKING"
            if isinstance(child, ast.ImportFrom) and (child.module or "").startswith("agui"):
                scopes.add(scope)
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return scopes


def test_the_core_imports_no_transport_mcp_or_widget() -> None:
    # The one edge allowed, named: runtime.py's three AG-UI methods import
    # agui/_runtime_link.py inside their bodies (and its AGUIApp for typing), so
    # `rt.ag_ui_app()` works without importing ipygenui.agui first, and a chat
    # that never speaks AG-UI never imports ag_ui. The AG-UI state (its emitter)
    # lives in that module, attached through the runtime's public events.
    graph = import_graph()
    core = sorted(n for n in graph if n != "ipygenui" and not n.startswith(OUTSIDE_THE_CORE))
    found = {name: sorted(m for m in graph[name] if m.startswith(TRANSPORTS)) for name in core}
    assert {name: m for name, m in found.items() if m} == {
        "ipygenui.runtime": ["ipygenui.agui._runtime_link"]
    }
    assert _agui_import_scopes(PACKAGE / "runtime.py") == AGUI_FACADE | {"TYPE_CHECKING"}
