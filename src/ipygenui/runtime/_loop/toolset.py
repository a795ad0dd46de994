"""The tools of one model step, chosen by the loop before the step.

The runtime's own tools never change; a component shown earlier in the
thread adds its ``update_component_<id>`` tool (the last few shown only),
and an AG-UI client's run adds the tools the client declared (answered by
the client, never by the kernel: they are not among ``all()``).
The step's model request offers exactly these, its calls are parsed and run
against exactly these, and nothing is written back anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...components.component import Component, ComponentTool
from ...components.interactive import update_tools
from ...messages import Thread
from ...tools import Tool


@dataclass(frozen=True)
class Toolset:
    """``own``: the runtime's tools; ``updates``: the shown components' update
    tools; ``client``: an AG-UI client's declared tools (their names collide
    with none of the others: the server refuses those)."""

    own: Mapping[str, Tool]
    updates: Mapping[str, Tool] = field(default_factory=dict)
    client: Mapping[str, Tool] = field(default_factory=dict)

    def get(self, name: str) -> Tool | None:
        return self.own.get(name) or self.updates.get(name) or self.client.get(name)

    def all(self) -> dict[str, Tool]:
        """The chat's tools (a client's are not: only the client answers them)."""
        return {**self.own, **self.updates}

    def offered(self) -> dict[str, Tool]:
        """Every tool the step offers the model, the client's too."""
        return {**self.own, **self.updates, **self.client}

    def __contains__(self, name: object) -> bool:
        return name in self.own or name in self.updates or name in self.client

    def update_schemas(self) -> list[dict[str, Any]]:
        """The chat API entries of the update and client tools (the own ones are
        built once). A client's tools get no status parameters: their arguments
        go to the client as the model wrote them, and it expects its own schema."""
        updates = [t.openai_schema(standard_parameters=True) for t in self.updates.values()]
        return updates + [t.openai_schema() for t in self.client.values()]


def step_toolset(
    own: Mapping[str, Tool],
    thread: Thread,
    components: Iterable[Any],
    client: Mapping[str, Tool] | None = None,
) -> Toolset:
    """``own`` plus the update tools of the components ``thread`` has shown so
    far, plus ``client``'s tools."""
    shown_kinds = [c for c in components if isinstance(c, Component)]
    updates = update_tools(thread, shown_kinds) if shown_kinds else []
    bound = {n: t.in_thread(thread) if isinstance(t, ComponentTool) else t for n, t in own.items()}
    return Toolset(bound, {t.name: t for t in updates if t.name not in own}, dict(client or {}))
