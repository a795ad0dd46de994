"""A saved thread keeps each MCP app's page once, however many calls show it.

Every call of an app tool carries its app's HTML in its result
(``for_user.mcp_app.html``): the same page, often many KB, for each call of
the same tool. In a thread file each distinct page is kept once, in a table
beside the thread keyed by its SHA-256, and each call names its entry
(``html_ref``); loading puts the page back in every call (one string shared
by all of them in memory). The thread in memory, and what the browser is
sent, do not change.

A file without the table (format version 2 and older) has the HTML in each
call and loads as it is. A call naming a page the table lacks (a file edited
by hand, or cut) keeps its text result and loses only its app, with a warning.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from typing import Any

TABLE = "app_pages"
"""The file's top-level key of the page table: ``{"sha256:<hex>": html}``."""
REF = "html_ref"

logger = logging.getLogger("ipygenui")


def _shown(data: Any) -> Iterator[dict[str, Any]]:
    """Every ``for_user`` entry holding an ``mcp_app`` object, anywhere in ``data``."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            shown = node.get("for_user")
            if isinstance(shown, dict) and isinstance(shown.get("mcp_app"), dict):
                yield shown
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def share_pages(thread: Any) -> dict[str, str]:
    """Move each app's HTML out of ``thread`` (its JSON form, changed in place)
    into the returned table; each call names its page instead."""
    table: dict[str, str] = {}
    for shown in _shown(thread):
        app = shown["mcp_app"]
        html = app.get("html")
        if not isinstance(html, str):  # no page: nothing to name (nor a name of its own)
            shown["mcp_app"] = {k: v for k, v in app.items() if k != REF}
            continue
        digest = hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest()
        key = f"sha256:{digest}"
        table[key] = html
        shown["mcp_app"] = {**{k: v for k, v in app.items() if k != "html"}, REF: key}
    return table


def restore_pages(thread: Any, table: Any) -> None:
    """Put each named page back in its call (``thread`` in JSON form, changed in place)."""
    pages = table if isinstance(table, dict) else {}
    for shown in _shown(thread):
        app = shown["mcp_app"]
        if REF not in app:
            continue
        key = app.pop(REF)
        html = pages.get(key) if isinstance(key, str) else None
        if isinstance(html, str):
            app["html"] = html
        else:
            del shown["mcp_app"]  # the card shows the call's text result instead
            logger.warning(
                "a saved call's MCP app names a page the thread file lacks (%.80r): "
                "its text result is kept, its app is not shown",
                key,
            )
