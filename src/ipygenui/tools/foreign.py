"""The checks a tool defined outside the kernel passes before the model sees it.

An MCP server's tools and an AG-UI client's declared tools are untrusted
definitions: every model request carries each one's name, description and
schema, and a name the chat reserves would make the browser show its calls
as a component's. What ``foreign_tool_refusal`` checks: the name (OpenAI's
rule, no reserved prefix), the schema's size as JSON and the description's
length. The schema itself is checked when the tool is built
(``Tool.from_json_schema``: no fetching, a linear-time regex engine).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import _reserved_prefix

MAX_SCHEMA_BYTES = 64 * 1024
MAX_DESCRIPTION_CHARS = 8_000
"""The defaults: every model request carries every tool's schema and description."""

_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def foreign_tool_refusal(
    name: str,
    schema: Any,
    description: str,
    *,
    max_schema_bytes: int = MAX_SCHEMA_BYTES,
    max_description_chars: int = MAX_DESCRIPTION_CHARS,
) -> str | None:
    """Why the chat refuses this tool ("its name ..."), or None."""
    if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
        return "its name is not 1-64 letters, digits, '_' or '-'"
    reserved = _reserved_prefix(name)
    if reserved is not None:
        return (
            f"its name starts with {reserved!r}, which the chat reserves for its "
            "components (the browser would show its calls as one of them)"
        )
    try:
        size = len(json.dumps(schema, ensure_ascii=False).encode())
    except (TypeError, ValueError) as exc:
        return f"its input schema is not JSON ({exc})"
    if size > max_schema_bytes:
        return (
            f"its input schema is {size:,} bytes of JSON, over max_schema_bytes="
            f"{max_schema_bytes:,} (every model request would carry it)"
        )
    if len(description) > max_description_chars:
        return (
            f"its description is {len(description):,} characters, over max_description_chars="
            f"{max_description_chars:,} (every model request would carry it)"
        )
    return None
