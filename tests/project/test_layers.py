"""The module layers, read statically from the source (every import: lazy ones
inside functions and those in ``if TYPE_CHECKING:`` blocks too, since a cycle
through type hints is still two modules that each need the other).

Faults tried: an import cycle (``messages`` importing ``components.shown``,
which imports ``messages``; ``agui/server.py`` typing against ``Runtime``
while ``runtime/__init__.py`` imports it); core code importing the widget layer; a model
adapter importing the run loop (``models/demo.py`` reading the suggestions
prompt); a shared internal helper importing the loop, the runtime or the widget
(``argument_checks`` importing components and tools); the tools or MCP
packages importing the loop, the runtime or the widget; AG-UI importing the
widget; the core (the runtime and its parts) importing a transport (AG-UI's
emitter kept on the runtime), MCP or the widget; a module importing another
package's private module (``agui`` reading a module of ``runtime/_loop/``); a
loop between packages (``data`` importing ``tools`` for ``to_jsonable`` while
``tools/data.py`` imports ``data``). The layer rules hold over every module a
module reaches (the transitive closure), not only what it imports itself.
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


NAMED_EDGES = {("ipygenui.runtime", "ipygenui.agui.runtime_link")}
"""The one edge the layers allow across them, checked on its own below: the
bodies of ``Runtime``'s AG-UI methods import ``agui/runtime_link.py``."""


def reachable(graph: dict[str, set[str]], skip: set[tuple[str, str]]) -> dict[str, set[str]]:
    """Every module each module imports, directly or through others (not itself
    unless in a cycle), with the ``skip`` edges left out."""
    closure: dict[str, set[str]] = {}
    for start in graph:
        seen: set[str] = set()
        todo = [m for m in graph[start] if (start, m) not in skip]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            todo.extend(m for m in graph.get(node, ()) if (node, m) not in skip)
        closure[start] = seen
    return closure


def layer_offenders(
    graph: dict[str, set[str]],
    prefixes: tuple[str, ...],
    above: tuple[str, ...],
    exempt: tuple[str, ...] = (),
    skip: set[tuple[str, str]] | None = None,
) -> dict[str, list[str]]:
    """The modules under ``prefixes`` (but ``exempt``) that reach one under
    ``above``, through any chain of imports but the named edges (and ``skip``)."""
    closure = reachable(graph, NAMED_EDGES | (skip or set()))
    found = {
        name: sorted(m for m in closure[name] if m.startswith(above))
        for name in graph
        if name.startswith(prefixes) and not (exempt and name.startswith(exempt))
    }
    return {name: modules for name, modules in found.items() if modules}


def _offenders(prefixes: tuple[str, ...], above: tuple[str, ...]) -> dict[str, list[str]]:
    return layer_offenders(import_graph(), prefixes, above)


def private_owner(module: str) -> str | None:
    """The package a private module belongs to (``ipygenui.tools`` for
    ``ipygenui.tools._signature``, ``ipygenui`` for ``ipygenui._internal.sanitize``),
    None for a public one."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def private_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) for every import of a private module from outside
    the package that owns it."""
    found = []
    for name, imported in sorted(graph.items()):
        for module in sorted(imported):
            owner = private_owner(module)
            if owner is not None and name != owner and not name.startswith(owner + "."):
                found.append((name, module))
    return found


def package_of(module: str) -> str:
    """A module's first-level package below ``ipygenui`` (a root module is its own)."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for name, imported in graph.items():
        here = package_of(name)
        packages.setdefault(here, set()).update(
            package_of(m) for m in imported if package_of(m) != here
        )
        for m in imported:
            packages.setdefault(package_of(m), set())
    return packages


def test_the_graph_sees_lazy_and_type_checking_imports() -> None:
    graph = import_graph()
    assert "ipygenui.messages" in graph["ipygenui.runtime"]
    # runtime/__init__.py imports widget code nowhere, but Chat's module imports the runtime
    assert "ipygenui.runtime" in graph["ipygenui.widget.chat"]
    # lazy: only inside Runtime's AG-UI methods (see the transport rule below)
    assert "ipygenui.agui.runtime_link" in graph["ipygenui.runtime"]
    # only under TYPE_CHECKING (the public names for static checkers)
    assert "ipygenui.widget.chat" in graph["ipygenui"]


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_loop_between_packages() -> None:
    # each first-level package (and each root module) is one node: a package
    # may import another, or be imported by it, not both
    assert cycles(package_graph(import_graph())) == []


def test_package_loop_finder_finds_a_loop_of_modules_without_a_module_cycle() -> None:
    # p.a -> q.b and q.c -> p.d: no module cycle, but p and q need each other
    graph = {"x.p.a": {"x.q.b"}, "x.q.b": set(), "x.q.c": {"x.p.d"}, "x.p.d": set()}
    assert cycles(graph) == []
    assert cycles(package_graph(graph)) == [["x.p", "x.q"]]


def test_no_module_imports_another_packages_private_module() -> None:
    # `P._x` is P's own: imported from inside P only (ipygenui._internal is the
    # root package's, so every module of ipygenui may import it)
    assert private_imports(import_graph()) == []


def test_private_import_finder_finds_one() -> None:
    graph = {
        "ipygenui.tools._ui": set(),
        "ipygenui.tools.base": {"ipygenui.tools._ui"},  # inside its package: fine
        "ipygenui.models.demo": {"ipygenui.tools._ui", "ipygenui._internal.sanitize"},
        "ipygenui._internal.sanitize": set(),
    }
    assert private_imports(graph) == [("ipygenui.models.demo", "ipygenui.tools._ui")]


def test_layer_rules_follow_chains_of_imports() -> None:
    # tools reaches the loop through a public module of its own: still a fault
    graph = {
        "ipygenui.tools.code": {"ipygenui.tools.helpers"},
        "ipygenui.tools.helpers": {"ipygenui.runtime._loop.history"},
        "ipygenui.runtime": {"ipygenui.agui.runtime_link"},
        "ipygenui.runtime._loop.history": set(),
        "ipygenui.agui.runtime_link": {"ipygenui.agui.server"},
        "ipygenui.agui.server": set(),
    }
    assert layer_offenders(graph, ("ipygenui.tools",), ("ipygenui.runtime",)) == {
        "ipygenui.tools.code": ["ipygenui.runtime._loop.history"],
        "ipygenui.tools.helpers": ["ipygenui.runtime._loop.history"],
    }
    # the named edge is the one way across
    assert layer_offenders(graph, ("ipygenui.runtime",), ("ipygenui.agui",)) == {}


WIDGETS = ("ipygenui.widget", "ipygenui.workbench.widget", "ipygenui.workbench.gallery")
"""The widget layer: the chat's package, the workbench's widget (it reuses the
chat's built files) and its gallery (it embeds chats);
``ipygenui.workbench``'s other modules are headless."""


LAZY_LOADERS = ("ipygenui", "ipygenui.workbench")
"""Package ``__init__``s that name a widget for static checkers and load it on
first use (``gu.Chat``, ``gu.Workbench``): a headless import never loads it."""


def _lazy_widget_edges(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(n, m) for n in LAZY_LOADERS for m in graph[n] if m.startswith(WIDGETS)}


def test_core_imports_no_widget_code() -> None:
    graph = import_graph()
    skip = _lazy_widget_edges(graph)
    core = tuple(n for n in graph if not n.startswith(WIDGETS))
    assert layer_offenders(graph, core, ("ipygenui.widget",), WIDGETS, skip) == {}


def test_the_chat_widget_imports_no_workbench() -> None:
    # the workbench shows chats (its gallery), the chat knows no workbench
    assert _offenders(("ipygenui.widget",), ("ipygenui.workbench",)) == {}


def test_models_and_messages_sit_below_the_loop() -> None:
    above = ("ipygenui.runtime", "ipygenui.components", "ipygenui.widget")
    assert _offenders(("ipygenui.models", "ipygenui.messages"), above) == {}


def test_shared_internals_import_nothing_of_the_package() -> None:
    # _internal/ is below every layer: it reaches nothing but itself
    graph = import_graph()
    closure = reachable(graph, set())
    offenders = {
        name: sorted(m for m in closure[name] if not m.startswith("ipygenui._internal"))
        for name in graph
        if name.startswith("ipygenui._internal")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_tools_and_mcp_import_no_loop_runtime_widget_or_transport() -> None:
    above = (
        "ipygenui.runtime",
        "ipygenui.widget",
        "ipygenui.components",
        "ipygenui.agui",
    )
    assert _offenders(("ipygenui.tools", "ipygenui.mcp"), above) == {}
    # MCP is built on tools, never the other way round
    assert _offenders(("ipygenui.tools",), ("ipygenui.mcp",)) == {}


def test_agui_imports_no_widget_or_runtime() -> None:
    # the runtime attaches AG-UI; AG-UI types against what it uses (agui/server.py)
    assert _offenders(("ipygenui.agui",), ("ipygenui.widget", "ipygenui.runtime")) == {}


TRANSPORTS = ("ipygenui.agui", "ipygenui.mcp", "ipygenui.widget")
OUTSIDE_THE_CORE = ("ipygenui.agui", "ipygenui.mcp", *WIDGETS, "ipygenui.testing")
AGUI_FACADE = {"subscribe_agui", "agui_events", "ag_ui_app"}
"""Runtime's public AG-UI methods: each hands the runtime to ``agui/runtime_link.py``."""


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
    # The one edge allowed, named: runtime/__init__.py's three AG-UI methods import
    # agui/runtime_link.py inside their bodies (and its AGUIApp for typing), so
    # `rt.ag_ui_app()` works without importing ipygenui.agui first, and a chat
    # that never speaks AG-UI never imports ag_ui. The AG-UI state (its emitter)
    # lives in that module, attached through the runtime's public events.
    graph = import_graph()
    core = sorted(n for n in graph if n != "ipygenui" and not n.startswith(OUTSIDE_THE_CORE))
    found = {name: sorted(m for m in graph[name] if m.startswith(TRANSPORTS)) for name in core}
    assert {name: m for name, m in found.items() if m} == {
        "ipygenui.runtime": ["ipygenui.agui.runtime_link"]
    }
    # and no chain of imports reaches one but through that edge
    skip = _lazy_widget_edges(graph)
    assert layer_offenders(graph, tuple(core), TRANSPORTS, OUTSIDE_THE_CORE, skip) == {}
    assert _agui_import_scopes(PACKAGE / "runtime/__init__.py") == AGUI_FACADE | {"TYPE_CHECKING"}


def test_the_package_root_holds_a_few_public_modules() -> None:
    # everything else lives in a package of its own (runtime/, data/, persistence/ ...)
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 12, root
    assert [name for name in root if name.startswith("_") and name != "__init__.py"] == []
