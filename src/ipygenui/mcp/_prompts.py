"""A server's prompts as a chat's starters, for ``ipygenui.mcp``: one that
needs no arguments is a starter text (its first user message, read once); one
that needs arguments is an ``MCPPrompt``, a starter with a small form, filled
by ``fill_prompt`` and helped by the server's completions (``completion/complete``).

Everything here is the server's text: cleaned, capped, and only ever shown
to the user or sent as the user's own message once they chose it.

The MCP SDK is imported inside the functions: the ``mcp`` extra is optional.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._internal.sanitize import clean_text

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = [
    "MAX_STARTERS",
    "MCPPrompt",
    "MCPPromptArgument",
    "complete_argument",
    "fill_prompt",
    "read_prompts",
]

logger = logging.getLogger("ipygenui")

MAX_STARTERS = 6
MAX_STARTER_CHARS = 1_000
"""Prompts a server may offer as starters (of each kind), and the characters of each."""

MAX_ARGUMENTS = 10
MAX_LABEL_CHARS = 500
"""A prompt with more arguments is left out; a name, title or description is cut here."""

MAX_COMPLETIONS = 100
MAX_COMPLETION_CHARS = 200
"""Suggestions kept of one completion answer (the protocol caps it at 100), and
the characters of each (a longer one is dropped)."""


@dataclass(frozen=True)
class MCPPromptArgument:
    """One argument of a server's prompt, for its form."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class MCPPrompt:
    """A server's prompt that needs arguments: a starter whose form asks for
    ``arguments`` (``MCPTools.fill_prompt`` turns the answers into its text)."""

    name: str
    title: str
    description: str
    arguments: tuple[MCPPromptArgument, ...]


def _label(text: str | None) -> str:
    return clean_text(text or "").strip()[:MAX_LABEL_CHARS]


async def read_prompts(session: ClientSession) -> tuple[list[str], list[MCPPrompt]]:
    """The server's prompts: those that need no arguments as starter texts,
    those that need some as ``MCPPrompt``; a server without prompts, or one
    failing, offers none."""
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.prompts is None:
        return [], []
    try:
        listed = await session.list_prompts()
    except Exception as exc:
        logger.warning("listing the prompts of an MCP server failed: %s", exc)
        return [], []
    starters: list[str] = []
    with_form: list[MCPPrompt] = []
    for prompt in listed.prompts:
        arguments = prompt.arguments or []
        if any(argument.required for argument in arguments):
            if len(with_form) < MAX_STARTERS and len(arguments) <= MAX_ARGUMENTS:
                with_form.append(_as_prompt(prompt))
            continue
        if len(starters) >= MAX_STARTERS:
            continue
        try:
            text = prompt_text(await session.get_prompt(prompt.name))
        except Exception:
            continue
        if text and len(text) <= MAX_STARTER_CHARS:
            starters.append(text)
    return starters, with_form


def _as_prompt(prompt: Any) -> MCPPrompt:
    arguments = tuple(
        MCPPromptArgument(clean_text(a.name), _label(a.description), bool(a.required))
        for a in prompt.arguments or ()
    )
    return MCPPrompt(prompt.name, _label(prompt.title), _label(prompt.description), arguments)


def prompt_text(got: Any) -> str:
    """A ``prompts/get`` answer's user text messages, joined and cleaned."""
    from mcp import types

    texts = [
        m.content.text
        for m in got.messages
        if m.role == "user" and isinstance(m.content, types.TextContent)
    ]
    return clean_text("\n".join(texts)).strip()


def check_arguments(prompt: MCPPrompt, arguments: Mapping[str, Any]) -> dict[str, str]:
    """The user's answers for ``prompt``'s form: strings, each argument known,
    every required one given (a ``ValueError`` says what is wrong)."""
    if not isinstance(arguments, Mapping):
        raise TypeError(f"the arguments of a prompt must be a dict, got {arguments!r}")
    known = {a.name for a in prompt.arguments}
    unknown = sorted(set(arguments) - known)
    if unknown:
        raise ValueError(f"the prompt {prompt.name!r} has no argument {', '.join(unknown)}")
    missing = [a.name for a in prompt.arguments if a.required and not arguments.get(a.name)]
    if missing:
        raise ValueError(f"the prompt {prompt.name!r} needs {', '.join(missing)}")
    for name, value in arguments.items():
        if not isinstance(value, str):
            raise TypeError(f"the prompt argument {name!r} must be a str, got {value!r}")
    return dict(arguments)


async def fill_prompt(
    session: ClientSession, prompt: MCPPrompt, arguments: Mapping[str, Any]
) -> str:
    """``prompt``'s text with the user's ``arguments`` (``prompts/get``)."""
    checked = check_arguments(prompt, arguments)
    text = prompt_text(await session.get_prompt(prompt.name, checked))
    if not text:
        raise ValueError(f"the prompt {prompt.name!r} gave no text")
    if len(text) > MAX_STARTER_CHARS * 10:
        raise ValueError(f"the prompt {prompt.name!r} gave a text over {MAX_STARTER_CHARS * 10:,}")
    return text


async def complete_argument(
    session: ClientSession,
    prompt: MCPPrompt,
    argument: str,
    value: str,
    context: Mapping[str, str] | None = None,
) -> list[str]:
    """The server's suggestions for ``argument`` of ``prompt`` as typed so far
    (``value``; ``context``: the arguments filled already); none from a server
    that does not offer completions."""
    from mcp.types import PromptReference

    if argument not in {a.name for a in prompt.arguments}:
        raise ValueError(f"the prompt {prompt.name!r} has no argument {argument!r}")
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.completions is None:
        return []
    ref = PromptReference(type="ref/prompt", name=prompt.name)
    answer = await session.complete(
        ref, {"name": argument, "value": value}, context_arguments=dict(context or {}) or None
    )
    suggestions: list[str] = []
    for item in answer.completion.values[:MAX_COMPLETIONS]:
        text = clean_text(item).strip() if isinstance(item, str) else ""
        if text and len(text) <= MAX_COMPLETION_CHARS and text not in suggestions:
            suggestions.append(text)
    return suggestions
