"""Shared helpers for the A2UI tests: a small v0.9 form the model shows."""

from __future__ import annotations

from typing import Any

BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"


def form_messages(surface: str = "s1") -> list[dict[str, Any]]:
    """A small v0.9 form: a name field bound to /name and a button sending it."""
    return [
        {"version": "v0.9", "createSurface": {"surfaceId": surface, "catalogId": BASIC}},
        {
            "version": "v0.9",
            "updateComponents": {
                "surfaceId": surface,
                "components": [
                    {"id": "root", "component": "Column", "children": ["name", "go"]},
                    {
                        "id": "name",
                        "component": "TextField",
                        "label": "Name",
                        "value": {"path": "/name"},
                    },
                    {"id": "go_label", "component": "Text", "text": "Send"},
                    {
                        "id": "go",
                        "component": "Button",
                        "child": "go_label",
                        "action": {
                            "event": {
                                "name": "greet",
                                "context": {"who": {"path": "/name"}, "n": 1},
                            }
                        },
                    },
                ],
            },
        },
        {
            "version": "v0.9",
            "updateDataModel": {"surfaceId": surface, "path": "/", "value": {"name": "Ada"}},
        },
    ]
