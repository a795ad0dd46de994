"""How an error tells the user to add an optional extra.

ipygenui is installed from a checkout or a built wheel until it is on an
index (docs/install.md), so the hint names the checkout's form; one
definition, so publishing changes one line.
"""

from __future__ import annotations

__all__ = ["install_hint"]


def install_hint(extra: str) -> str:
    """``pip install ".[extra]"`` with where to run it, for an error message."""
    return f'pip install ".[{extra}]" in the ipygenui checkout (or the wheel with [{extra}])'
