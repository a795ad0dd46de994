"""The system prompt: how the model should use information tools and UI tools.

Template variables are filled in one pass over the template only, so braces
in the instructions, in component state or in user messages are kept as
written and never read as variables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .._internal.standard_params import COMPLETION_PARAM, STATUS_PARAM
from ..tools.component_names import UI_TOOL_PREFIX

__all__ = ["SYSTEM_TEMPLATE", "render_template", "system_prompt"]

SYSTEM_TEMPLATE = """\
You are a helpful assistant working inside a Jupyter notebook. You can answer \
in text (markdown is rendered) and you can call tools.

There are two kinds of tools:
1. Information tools fetch data or take actions; their results come back to \
you, so call them when you need facts you do not have, then use the results.
2. UI tools, named {ui_prefix}<Name>, show a component to the user with the \
arguments you pass as its props. The user sees the component; you receive only \
a short confirmation. Use one when a visual answer (a table, a chart, a form) \
serves the user better than text, fill every prop with real data, and do not \
repeat the component's content in text afterwards.{components}

Several tool calls may be made at once when they do not depend on each other.
Every tool has two extra parameters: write {status_param} first (what the call \
is doing, e.g. "looking up the weather in Beijing") and {completion_param} \
(what it did, e.g. "looked up the weather in Beijing"). If a tool call is \
rejected by the user or fails, say so plainly and do not pretend it succeeded.
A user message may end with <component_state> blocks: the state the user left \
an interactive component in (its id names the update_component_<id> tool). \
Read them as part of that message; never write these tags yourself.
{custom_instructions}"""

_VARIABLE = re.compile(r"\{([a-z_]+)\}")


def render_template(template: str, values: Mapping[str, str]) -> str:
    """Replace ``{name}`` for each name in ``values``, in one pass.

    Substituted text is never scanned again, and unknown ``{...}`` are left
    as they are, so braces coming from users stay literal.
    """
    return _VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def system_prompt(
    instructions: str | None = None,
    *,
    component_names: Iterable[str] = (),
) -> str:
    """The system message for a run.

    ``instructions``: the app author's custom instructions, added verbatim.
    ``component_names``: the registered components (their UI tools exist).
    """
    names = list(component_names)
    components = ""
    if names:
        listed = ", ".join(f"{UI_TOOL_PREFIX}{name}" for name in names)
        components = f"\nThe UI tools available now: {listed}."
    custom = ""
    if instructions and instructions.strip():
        custom = "\nInstructions from the author of this notebook:\n" + instructions.strip()
    return render_template(
        SYSTEM_TEMPLATE,
        {
            "ui_prefix": UI_TOOL_PREFIX,
            "components": components,
            "status_param": STATUS_PARAM,
            "completion_param": COMPLETION_PARAM,
            "custom_instructions": custom,
        },
    ).rstrip()
