"""mkdocs hook: the API reference's pages, written at build time from the package.

One page for the top level (``api/index.md``, by ``ipygenui._API``'s groups)
and one per public module (``api/<module>.md``), each name rendered by
mkdocstrings from its docstring and type hints. The pages are generated, so a
name added to an ``__all__`` is in the next build with nothing to edit.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).parent))
from public_names import (
    API_MODULES,
    PACKAGE,
    documented_path,
    module_names,
    top_level_groups,
)


def _top_level_page() -> str:
    lines = [
        "# The top level: `ipygenui`",
        "",
        "What a notebook types after `import ipygenui as gu`: the chat and its runtime,",
        "tools, components, models, data references and the workbench. The rest is",
        "imported from its own module (the pages that follow): the events a listener",
        "gets (`rt.subscribe(listener)`) from `ipygenui.events`, every error class from",
        "`ipygenui.errors` (`except ipygenui.errors.DecisionError`), message parts and",
        "statuses from `ipygenui.messages`, the model and agent protocols and the deltas",
        "a model streams from `ipygenui.models`, test doubles (`ScriptedModel`) from",
        "`ipygenui.testing`. Each module is also an attribute: `gu.events.MessageAdded`",
        "works after `import ipygenui as gu`.",
        "",
    ]
    for group, names in top_level_groups().items():
        lines += [f"## {group.capitalize()}", ""]
        for name in names:
            lines += [
                f"::: {PACKAGE}.{name}",
                "    options:",
                "      heading_level: 3",
                "      show_root_full_path: false",
                "",
            ]
    return "\n".join(lines)


def _module_page(module_name: str) -> str:
    public = f"{PACKAGE}.{module_name}"
    names = module_names(module_name)
    # a name a submodule shadows is documented where it is defined (public_names.py)
    shadowed = {n: documented_path(module_name, n) for n in names}
    shadowed = {n: path for n, path in shadowed.items() if path != f"{public}.{n}"}
    members = "".join(f"\n        - {n}" for n in names if n not in shadowed)
    lines = [
        f"# `{public}`",
        "",
        f"::: {public}",
        "    options:",
        "      show_root_heading: false",
        "      show_root_toc_entry: false",
        f"      members:{members}",
        "",
    ]
    for name, path in shadowed.items():
        lines += [
            f"`{public}.{name}` is the `{name}` defined in `{path.rsplit('.', 1)[0]}`:",
            "",
            f"::: {path}",
            "    options:",
            "      heading_level: 2",
            "",
        ]
    return "\n".join(lines)


def _pages() -> dict[str, str]:
    pages = {"api/index.md": _top_level_page()}
    for module_name in API_MODULES:
        pages[f"api/{module_name}.md"] = _module_page(module_name)
    return pages


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, content in _pages().items():
        files.append(File.generated(config, path, content=content))
    return files
