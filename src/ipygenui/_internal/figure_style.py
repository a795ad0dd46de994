"""A matplotlib figure as PNG bytes (``run_python``'s figures, a figure
attached to a message), and whether it keeps matplotlib's default look.

Such a figure is saved on a transparent background and marked, so the widget
recolours it for a dark theme (components.css); a figure with the user's own
facecolor, a dark one for instance, is shown as they made it.
"""

from __future__ import annotations

import io
from typing import Any


def default_styled(figure: Any) -> bool:
    """Whether ``figure`` keeps matplotlib's default white background."""
    try:
        from matplotlib.colors import to_rgba

        return bool(to_rgba(figure.get_facecolor()) == (1.0, 1.0, 1.0, 1.0))
    except Exception:
        return False


def figure_bytes(figure: Any, *, transparent: bool = False) -> bytes:
    """A matplotlib figure as PNG bytes (``savefig`` draws PNG with Agg, also
    for a GUI backend's figure, so it works off the main thread)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", transparent=transparent)
    return buffer.getvalue()
