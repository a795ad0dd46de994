"""What the offline demo says to a submitted Form: it reads the answers.

A ``gu.Form``'s Submit sends one user message (``js/src/components/form.js``'s
``formMessage``)::

    Submitted the form “Plan a trip”:
    - City: Porto
    - Nights: 3

A keyword script would see "form" in it and show another empty form; a real
assistant answers from what was entered. The message is the user's text, so
every value is escaped as ``_demo_results.plain`` does.
"""

from __future__ import annotations

import re

from ._demo_results import plain

__all__ = ["form_submission_reply"]

_HEAD = re.compile(r"^Submitted the form(?: “(?P<title>[^”\n]*)”)?:\s*$")
_FIELD = re.compile(r"^- (?P<label>[^:\n]+): (?P<value>.*)$")
_EMPTY = "(empty)"
_LISTED = 6


def _answers(lines: list[str]) -> list[tuple[str, str]]:
    found = (_FIELD.match(line) for line in lines)
    return [(m["label"].strip(), m["value"].strip()) for m in found if m is not None]


def form_submission_reply(text: str) -> str | None:
    """The demo's answer to a submitted Form's message, or None for another message."""
    lines = text.strip().splitlines()
    head = _HEAD.match(lines[0]) if lines else None
    if head is None:
        return None
    answers = _answers(lines[1:])
    title = plain(head["title"] or "", 60)
    form = f"“{title}”" if title else "the form"
    given = [(label, value) for label, value in answers if value != _EMPTY]
    empty = [label for label, value in answers if value == _EMPTY]
    if not given:
        return f"I got {form}, but every field was empty: fill it in and press Submit again."
    said = "\n".join(
        f"- **{plain(label, 40)}**: {plain(value, 80)}" for label, value in given[:_LISTED]
    )
    if len(given) > _LISTED:
        said += f"\n- and {len(given) - _LISTED} more"
    left = f"\n\nLeft empty: {', '.join(plain(label, 40) for label in empty)}." if empty else ""
    return (
        f"Thanks! I read your answers to {form}:\n\n{said}{left}\n\n"
        "A real model would act on them now; I'm the offline demo, so I only repeat them."
    )
