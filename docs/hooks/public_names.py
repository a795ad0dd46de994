"""The public names the API reference must document, read from the package itself.

The top level's names come from ``ipygenui._API`` (its groups, in order),
each public module's from its ``__all__``; a public module without one
(``ipygenui.persistence``) contributes the functions and classes it defines.
``api_pages.py`` writes the reference's pages from this, and
``check_site.py`` checks the built inventory names every one of them.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect

PACKAGE = "ipygenui"

API_MODULES = (
    "events",
    "errors",
    "messages",
    "models",
    "tools",
    "components",
    "data",
    "runtime",
    "persistence",
    "mcp",
    "agui",
    "a2ui",
    "workbench",
    "testing",
)
"""The public modules and packages with a page each, in the reference's order.
(``ipygenui.widget`` defines no public name of its own: its ``Chat`` is at the top level.)"""


def top_level_groups() -> dict[str, list[str]]:
    """group -> the top-level names in it, as ``ipygenui._API`` lists them."""
    package = importlib.import_module(PACKAGE)
    api: dict[str, dict[str, tuple[str, ...]]] = package._API
    return {
        group: [n for names in modules.values() for n in names] for group, modules in api.items()
    }


def module_names(module_name: str) -> list[str]:
    """The public names of ``ipygenui.<module_name>``: its ``__all__``, else what it defines."""
    module = importlib.import_module(f"{PACKAGE}.{module_name}")
    listed = getattr(module, "__all__", None)
    if listed is not None:
        return list(listed)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    ]


def documented_path(module_name: str, name: str) -> str:
    """Where the reference documents ``ipygenui.<module_name>.<name>``.

    That dotted name itself, unless a submodule has the same name
    (``ipygenui.components.component`` is the function the package imports
    from ``python_component`` and a module too): mkdocstrings would document
    the module there, so the object is documented where it is defined.
    """
    public = f"{PACKAGE}.{module_name}.{name}"
    module = importlib.import_module(f"{PACKAGE}.{module_name}")
    if not hasattr(module, "__path__") or importlib.util.find_spec(public) is None:
        return public  # a plain module, or a package with no submodule of that name
    value = getattr(module, name)
    return f"{value.__module__}.{value.__qualname__}"


def expected_identifiers() -> list[str]:
    """Every dotted name the reference must document, e.g. ``ipygenui.errors.ToolError``."""
    found = [f"{PACKAGE}.{name}" for names in top_level_groups().values() for name in names]
    for module_name in API_MODULES:
        found += [documented_path(module_name, name) for name in module_names(module_name)]
    return found
