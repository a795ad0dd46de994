"""What a registry costs the model: each tool's and component's schema in tokens.

Every request carries the whole registry: each tool's schema with the
standard parameters (``_schemas.py``) and the system prompt's line naming the
UI tools. ``registry_cost`` counts each of them with the model's tokenizer
where one is available (``_tokens.py``), else an estimate that says so. A
schema is counted as its compact JSON text: a provider formats function
definitions its own way, so its bill may differ by a few tokens per tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypedDict

from ._schemas import registry_entries, system_prompt_line
from ._tokens import token_counter

__all__ = ["CostRow", "CostTotal", "registry_cost", "schema_text"]


class CostRow(TypedDict):
    """One tool's, component's or the system prompt line's row of ``registry_cost()``."""

    kind: str
    """``"tool"``, ``"component"`` or ``"system prompt"``."""
    name: str
    tool_name: str | None
    tokens: int
    chars: int
    estimated: bool
    tokenizer: str
    schema: dict[str, Any] | None
    """The ``{"type": "function", ...}`` entry the model is sent (None: the prompt line)."""


class CostTotal(TypedDict):
    """``registry_cost(total=True)``: what the registry adds to every request."""

    tools: int
    components: int
    tokens: int
    estimated: bool
    tokenizer: str
    note: str


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as the compact JSON text that is counted."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def _rows(components: Iterable[Any], tools: Iterable[Any], model: Any) -> tuple[list[CostRow], Any]:
    counter = token_counter(model)
    rows: list[CostRow] = []
    entries = registry_entries(components, tools)
    for entry in entries:
        text = schema_text(entry.schema)
        rows.append(
            CostRow(
                kind=entry.kind,
                name=entry.name,
                tool_name=entry.tool.name,
                tokens=counter.count(text),
                chars=len(text),
                estimated=counter.estimated,
                tokenizer=counter.tokenizer,
                schema=entry.schema,
            )
        )
    line = system_prompt_line([e.name for e in entries if e.kind == "component"])
    if line:
        rows.append(
            CostRow(
                kind="system prompt",
                name="UI tools line",
                tool_name=None,
                tokens=counter.count(line),
                chars=len(line),
                estimated=counter.estimated,
                tokenizer=counter.tokenizer,
                schema=None,
            )
        )
    return rows, counter


def registry_cost(
    components: Iterable[Any] = (),
    tools: Iterable[Any] = (),
    model: Any = None,
    *,
    total: bool = False,
) -> Any:
    """The tokens each tool and component adds to every request to ``model``.

    ``model``: a model or a ``"provider:model"`` name (``"openai:gpt-4o"`` is
    counted with ``tiktoken`` when it is installed and its encoding loads;
    anything else is estimated, and each row says so). Returns a DataFrame
    when pandas is installed, else a list of :class:`CostRow` dicts, the
    largest schema first; ``total=True`` returns the sum instead
    (:class:`CostTotal`).
    """
    rows, counter = _rows(components, tools, model)
    if total:
        return CostTotal(
            tools=sum(1 for r in rows if r["kind"] == "tool"),
            components=sum(1 for r in rows if r["kind"] == "component"),
            tokens=sum(r["tokens"] for r in rows),
            estimated=counter.estimated,
            tokenizer=counter.tokenizer,
            note=counter.note,
        )
    rows.sort(key=lambda r: r["tokens"], reverse=True)
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows, columns=list(CostRow.__annotations__))
