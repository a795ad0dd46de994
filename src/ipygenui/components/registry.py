"""``Registry``: a named group of tools and components, shared by several chats."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..tools import Tool, as_tool
from .component import Component

__all__ = ["Registry"]


class Registry:
    """Tools and components grouped once, used by many chats.

    >>> reg = Registry(tools=[get_weather], components=[gu.Table, Weather])
    >>> chat = gu.Chat(tools=reg.tools(), components=reg.components())

    Names are unique: registering a second tool or component under a name
    already used raises ``ValueError`` (a model could not tell them apart).
    """

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any]] = (),
        components: Iterable[Component] = (),
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._components: dict[str, Component] = {}
        for item in tools:
            self.add_tool(item)
        for component in components:
            self.add_component(component)

    def add_tool(self, item: Tool | Callable[..., Any]) -> Tool:
        """Register a tool (or a function, made a tool); returns the tool."""
        tool = as_tool(item)
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def add_component(self, component: Component) -> Component:
        """Register a component; returns it."""
        if not isinstance(component, Component):
            raise TypeError(f"not a component: {component!r} (use gu.Component or @gu.component)")
        if component.name in self._components:
            raise ValueError(f"a component named {component.name!r} is already registered")
        self._components[component.name] = component
        return component

    def tools(self) -> list[Tool]:
        """The registered tools (not the components' UI tools)."""
        return list(self._tools.values())

    def components(self) -> list[Component]:
        return list(self._components.values())

    def component(self, name: str) -> Component:
        """The component called ``name``; ``KeyError`` lists the known names."""
        try:
            return self._components[name]
        except KeyError:
            known = ", ".join(self._components) or "none"
            raise KeyError(f"no component named {name!r} (registered: {known})") from None

    def ui_tools(self) -> list[Tool]:
        """One ``show_component_<Name>`` tool per component."""
        return [c.as_tool() for c in self._components.values()]

    def __iter__(self) -> Iterator[Tool | Component]:
        yield from self._tools.values()
        yield from self._components.values()

    def __len__(self) -> int:
        return len(self._tools) + len(self._components)

    def __repr__(self) -> str:
        return f"<Registry tools={list(self._tools)} components={list(self._components)}>"
