"""The part of a tool result for the user's eyes only.

A result dict may carry ``for_user``: what the call's card shows (a few rows
of a new table) that the model need not read; ``for_model`` drops it from the
text the model reads. The card renders it as text (it is a tool's output:
untrusted), and a thread file that forged it changes only what its card shows.
"""

from __future__ import annotations

from typing import Any

FOR_USER = "for_user"


def for_model(result: Any) -> Any:
    """``result`` without its ``for_user`` entry (the same object when it has none)."""
    if isinstance(result, dict) and FOR_USER in result:
        return {k: v for k, v in result.items() if k != FOR_USER}
    return result
