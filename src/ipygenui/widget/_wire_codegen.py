"""Writes the browser's side of the chat widget's wire contract.

``make protocol`` runs ``python -m ipygenui.widget._wire_codegen``, which
renders ``js/src/protocol-wire.generated.js`` from the pydantic models of
:mod:`._protocol` (``_internal/wire_codegen.py`` does the rendering): the
message types, the ``toKernel`` builders, a validator per kernel -> browser
message, the patch ops and their validator, the limit keys, and the package's
version (``PACKAGE_VERSION``, read from ``src/ipygenui/__init__.py``, its one
home: the browser names it as an MCP apps host). ``--check`` only
says whether the checked-in file is current (``make lint``); the tests render
it in memory and compare.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from pydantic import TypeAdapter

from .._internal.patch_ops import PatchOp
from .._internal.wire_codegen import JsChecks, camel, main, render_module
from ._protocol import CLIENT_MESSAGES, SERVER_MESSAGES, WIRE_LIMITS

__all__ = ["OUTPUT", "render"]

OUTPUT = Path(__file__).resolve().parents[3] / "js" / "src" / "protocol-wire.generated.js"
"""Where the file goes in a checkout (``src/ipygenui/widget`` is three levels down)."""

VERSION_FILE = Path(__file__).resolve().parents[1] / "__init__.py"


def package_version(path: Path = VERSION_FILE) -> str:
    """``__version__`` as the package's ``__init__.py`` assigns it (read, not
    imported: importing the root would pull every module into this one)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "__version__"
        ]:
            return str(ast.literal_eval(node.value))
    raise ValueError(f"{path} assigns no __version__")


def render() -> str:
    """The generated module's text."""
    checks = JsChecks()
    ops_schema = TypeAdapter(PatchOp).json_schema()
    is_patch_op = " || ".join(
        checks.terms(s, ops_schema["$defs"], "op")[0] for s in ops_schema["anyOf"]
    )
    op_defs = [ops_schema["$defs"][s["$ref"].rsplit("/", 1)[-1]] for s in ops_schema["anyOf"]]
    op_names = [d["properties"]["op"]["const"] for d in op_defs]
    limit_keys = {camel(key): key for key in WIRE_LIMITS}
    extra = [
        "",
        "// --- patch ops, inside frames -----------------------------------------------------",
        "",
        f"export const PATCH_OPS = Object.freeze({json.dumps(op_names)});",
        "",
        "/** Whether `op` is a patch op this view can apply. @param {any} op */",
        f"export const isPatchOp = (op) => {is_patch_op};",
        "",
        "// --- the kernel's limits (the `limits` trait), by the name the view reads --------",
        "",
        "/** @typedef {{" + ", ".join(f"{k}: number" for k in limit_keys) + "}} Limits */",
        "",
        "export const LIMIT_KEYS = Object.freeze({",
        *(f"  {k}: {json.dumps(v)}," for k, v in limit_keys.items()),
        "});",
        "",
        "// --- the package's version (src/ipygenui/__init__.py's __version__) -----------------",
        "",
        f"export const PACKAGE_VERSION = {json.dumps(package_version())};",
    ]
    return render_module(
        generator="ipygenui.widget._wire_codegen",
        source="src/ipygenui/widget/_protocol.py",
        reexport="js/src/protocol.js",
        clients=CLIENT_MESSAGES,
        servers=SERVER_MESSAGES,
        checks=checks,
        extra=extra,
    )


if __name__ == "__main__":
    raise SystemExit(main(render, OUTPUT))
