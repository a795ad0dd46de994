"""Writes the browser's side of the workbench's wire messages.

``make protocol`` runs ``python -m ipygenui.workbench._wire_codegen``, which
renders ``js/src/workbench/protocol-wire.generated.js`` from the pydantic
models of :mod:`._protocol` (``_internal/wire_codegen.py`` does the
rendering); the tests render it in memory and compare.
"""

from __future__ import annotations

from pathlib import Path

from .._internal.wire_codegen import main, render_module
from ._protocol import CLIENT_MESSAGES, SERVER_MESSAGES

__all__ = ["OUTPUT", "render"]

OUTPUT = (
    Path(__file__).resolve().parents[3] / "js" / "src" / "workbench" / "protocol-wire.generated.js"
)
"""Where the file goes in a checkout (``src/ipygenui/workbench`` is three levels down)."""


def render() -> str:
    """The generated module's text."""
    return render_module(
        generator="ipygenui.workbench._wire_codegen",
        source="src/ipygenui/workbench/_protocol.py",
        reexport="js/src/workbench/protocol.js",
        clients=CLIENT_MESSAGES,
        servers=SERVER_MESSAGES,
    )


if __name__ == "__main__":
    raise SystemExit(main(render, OUTPUT))
