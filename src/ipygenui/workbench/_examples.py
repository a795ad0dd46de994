"""Hand-written sample props of the built-in components.

A built-in's props model carries no ``examples`` (they would cost tokens in
every request that offers it), and some of its rules are beyond a random
generator (a Chart's series match its x values, an Image's ``src`` is a URL
or a data URI), so the workbench starts from these.
"""

from __future__ import annotations

from typing import Any

# A 2x2 PNG (grey and blue), so an Image preview needs no network.
_PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNk"
    "YGD4z8DAwMDEwMDAAAAkBgMB5gYgVgAAAABJRU5ErkJggg=="
)

BUILTIN_EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "markdown": [{"text": "## Quarterly summary\n\nRevenue rose **12%**; see the table below."}],
    "table": [
        {
            "title": "Top regions",
            "columns": ["region", "revenue"],
            "rows": [{"region": "North", "revenue": 1200}, {"region": "South", "revenue": 950}],
        }
    ],
    "metric": [
        {
            "title": "This week",
            "metrics": [
                {"label": "Revenue", "value": 12400, "unit": "€", "delta": 0.12},
                {"label": "Orders", "value": 311, "delta": -0.03, "caption": "vs last week"},
            ],
        }
    ],
    "chart": [
        {
            "kind": "bar",
            "title": "Orders per day",
            "x": ["Mon", "Tue", "Wed"],
            "series": [{"name": "orders", "values": [12, 18, 9]}],
        }
    ],
    "image": [{"src": _PNG, "alt": "A tiny test image", "caption": "2 x 2 pixels", "width": 64}],
    "form": [
        {
            "title": "Book a demo",
            "fields": [
                {"name": "email", "label": "Email", "required": True},
                {"name": "size", "type": "select", "options": ["1-10", "11-100", "100+"]},
            ],
        }
    ],
}
"""Built-in id -> sample props (each valid for the built-in's props model)."""
