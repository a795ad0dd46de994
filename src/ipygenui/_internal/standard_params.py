"""Standard tool parameters: the status messages every tool call carries.

Every tool schema sent to the model gets two required string parameters. The
model fills them first, so while the call streams the UI can show what is
happening ("looking up the weather in Beijing") and, once the call is done,
what happened ("looked up the weather in Beijing"). They are read from the
partial arguments and stripped before the tool or component sees its
arguments: :func:`split_standard_arguments` keeps only the names the tool's
own schema declares.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

__all__ = [
    "COMPLETION_PARAM",
    "STANDARD_PARAMETERS",
    "STATUS_PARAM",
    "split_standard_arguments",
    "with_standard_parameters",
]

STATUS_PARAM = "_status_message"
COMPLETION_PARAM = "_completion_status_message"

STANDARD_PARAMETERS: dict[str, dict[str, Any]] = {
    STATUS_PARAM: {
        "type": "string",
        "description": (
            "Write this first. A few words shown to the user while the tool runs, "
            "saying what it is doing right now: present progressive, starting with a "
            "verb, naming the specifics, e.g. 'looking up the weather in Beijing'."
        ),
    },
    COMPLETION_PARAM: {
        "type": "string",
        "description": (
            "A few words shown to the user once the tool has finished, replacing the "
            "status message: past tense, starting with a verb, e.g. "
            "'looked up the weather in Beijing'."
        ),
    },
}


def with_standard_parameters(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a tool's JSON-schema ``parameters`` with the two standard
    parameters added first and required. The input is not modified.

    Raises ``ValueError`` if the schema is not an object schema or already
    declares a parameter with a standard name.
    """
    if schema.get("type", "object") != "object":
        raise ValueError(f"tool parameters must be an object schema, got type {schema['type']!r}")
    properties = dict(schema.get("properties") or {})
    clash = [name for name in STANDARD_PARAMETERS if name in properties]
    if clash:
        raise ValueError(f"tool parameters may not use the reserved names {clash}")
    result = copy.deepcopy(dict(schema))
    result["type"] = "object"
    # standard parameters first: models tend to write properties in schema order
    result["properties"] = {**copy.deepcopy(STANDARD_PARAMETERS), **copy.deepcopy(properties)}
    required = [name for name in schema.get("required", ()) if name not in STANDARD_PARAMETERS]
    result["required"] = [*STANDARD_PARAMETERS, *required]
    return result


def split_standard_arguments(
    args: Mapping[str, Any], declared: Collection[str]
) -> tuple[dict[str, Any], str | None, str | None]:
    """Split (possibly partial) arguments into ``(tool_args, status, completion)``.

    ``tool_args`` keeps only names in ``declared`` (the tool's own schema), so
    neither the standard parameters nor anything else the model invented
    reaches the tool. A status message that is not a string reads as None.
    """
    status = args.get(STATUS_PARAM)
    completion = args.get(COMPLETION_PARAM)
    kept = {name: value for name, value in args.items() if name in declared}
    return (
        kept,
        status if isinstance(status, str) else None,
        completion if isinstance(completion, str) else None,
    )
