"""The runtime's own tools: those of ``tools=`` and ``components=``, by name,
and the tool sources they came from.

They are fixed when the runtime is built (each model step adds the update
tools of the components shown and an AG-UI client's tools: ``_loop/toolset.py``).
A tool source (``gu.MCPTools``: anything with ``as_tools()``) gives several
tools; before it connects it is handed what answers its server's requests
(``_server_requests``: MCP sampling and elicitation) and the desk of its
sign-in cards (``tools/sign_ins.py``), its prompts are offered
as starters, and it is closed with the runtime. Building fails on two tools
of one name, and a failure closes the sources opened so far.

A source's prompts that need arguments (``prompts``: an MCP server's, each
filled by its ``fill_prompt`` and helped by its ``complete``) are starters
with a form (``prompt_forms``), named ``"<source index>/<prompt name>"``; a
source that can say when its lists change (``watch``) tells ``watch``'s
callers, so an open chat's starters follow.

A source whose server changed its tools (``changes``, an MCP server's
``list_changed``) is expanded again by ``refresh()``, which the run loop calls
before a model step only: the step under way keeps the tools it started with.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from .._internal.sanitize import clean_text
from ..models.base import Model
from ..tools import Tool, as_tool, expand_tools
from ..tools.server_requests import RequestAnswerer
from ..tools.sign_ins import SignIns

__all__ = ["OwnTools"]

logger = logging.getLogger("ipygenui")


class OwnTools(dict[str, Tool]):
    """The runtime's tools by name, and their sources (``sources``)."""

    def __init__(
        self,
        tools: Sequence[Tool | Callable[..., Any]],
        components: Sequence[Any],
        requests: RequestAnswerer,
        starters: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self._given_starters = None if starters is None else list(starters)
        self._given = (list(tools), list(components))
        self.sign_ins = SignIns()
        """Sign-ins the sources' servers wait for (``gu.MCPOAuth()`` with no
        ``redirect``): a chat shows each as a card and answers it."""
        self.sources: list[Any] = [t for t in tools if callable(getattr(t, "as_tools", None))]
        """Tool sources (``gu.MCPTools``) whose connection ends with ``close()``."""
        for source in self.sources:  # before connecting: what the client advertises
            answer_with = getattr(source, "answer_requests_with", None)
            if callable(answer_with):
                answer_with(requests)
            sign_in_with = getattr(source, "sign_in_with", None)
            if callable(sign_in_with):  # who shows its sign-in card
                sign_in_with(self.sign_ins)
        self._seen = self._changes()
        try:
            self.update(self._expand())
        except BaseException:  # no runtime to close later: end what was opened
            self.close()
            raise

    def _changes(self) -> list[int]:
        return [getattr(source, "changes", 0) for source in self.sources]

    def _expand(self) -> dict[str, Tool]:
        tools, components = self._given
        named: dict[str, Tool] = {}
        for tool in [*expand_tools(tools), *map(as_tool, components)]:
            if tool.name in named:
                raise ValueError(f"two tools are named {tool.name!r}")
            named[tool.name] = tool
        return named

    def refresh(self) -> bool:
        """Take the tools of the sources that changed since; whether any did.
        A new list that cannot be used (two tools of one name) leaves the old one."""
        seen = self._changes()
        if seen == self._seen:
            return False
        self._seen = seen
        try:
            named = self._expand()
        except Exception as exc:
            logger.warning("the changed tools were not taken: %s", exc)
            return False
        self.clear()
        self.update(named)
        return True

    def human_names(self) -> list[str]:
        return [t.name for t in self.values() if t.human]

    def starters(self, model: Model) -> list[str]:
        """The prompts an empty thread offers: ``starters=``, else the
        model's own (fitted to this chat's tools when the model can,
        ``starters_for``), then the tool sources' (an MCP server's prompts),
        each once."""
        if self._given_starters is not None:
            return list(self._given_starters)
        fitted = getattr(model, "starters_for", None)
        offered = [*(fitted(set(self)) if callable(fitted) else getattr(model, "starters", ()))]
        for source in self.sources:
            offered.extend(getattr(source, "starters", ()))
        return list(dict.fromkeys(clean_text(s) for s in offered if isinstance(s, str)))

    def prompt_forms(self) -> list[tuple[str, Any, Any]]:
        """The starters with a form, ``(id, source, prompt)`` each: the sources'
        prompts that need arguments (none when ``starters=`` names the starters)."""
        if self._given_starters is not None:
            return []
        forms: list[tuple[str, Any, Any]] = []
        for index, source in enumerate(self.sources):
            if callable(getattr(source, "fill_prompt", None)):
                forms.extend(
                    (f"{index}/{p.name}", source, p) for p in getattr(source, "prompts", ())
                )
        return forms

    def watch(self, changed: Callable[[], None]) -> Callable[[], None]:
        """Call ``changed()`` when a source's lists change (on the source's own
        thread); returns the function that stops it."""
        stops = [
            source.watch(lambda _kind: changed())
            for source in self.sources
            if callable(getattr(source, "watch", None))
        ]

        def stop() -> None:
            for one in stops:
                one()

        return stop

    def close(self) -> None:
        self.sign_ins.cancel()  # nobody will answer a card now
        for source in self.sources:
            try:
                source.close()
            except Exception:  # one failing must not keep the others open
                logger.exception("closing %r failed", source)
