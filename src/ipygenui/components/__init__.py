"""Components: UI the model shows by calling ``show_component_<Name>`` tools.

- ``Component``: JavaScript-rendered (``esm=``) or a built-in module.
- ``@component``: rendered by a Python function of the props model.
- ``Registry``: tools and components grouped for several chats.
- ``builtins``: Markdown, Table, Metric, Chart, Image, Form.
- ``shown_components``: what a thread showed, as typed objects.

The other modules here serve the runtime and the widget layer (``interactive``:
component state and update tools; ``live``: Python-rendered components that
re-render as their props stream) and are imported from where they live.
"""

from __future__ import annotations

from .builtins import BUILTINS, Chart, Form, Image, Markdown, Metric, Table
from .component import Component, ComponentTool
from .python_component import PythonComponent, component
from .registry import Registry
from .shown import ShownComponent, shown_components
from .shown_apps import ShownApp, shown_apps

__all__ = [
    "BUILTINS",
    "Chart",
    "Component",
    "ComponentTool",
    "Form",
    "Image",
    "Markdown",
    "Metric",
    "PythonComponent",
    "Registry",
    "ShownApp",
    "ShownComponent",
    "Table",
    "component",
    "shown_apps",
    "shown_components",
]
