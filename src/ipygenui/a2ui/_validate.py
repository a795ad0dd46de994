"""A2UI messages checked against the spec's JSON schemas (shipped in ``schemas/``).

Two message shapes are accepted, as the spec defines them: v0.8
(``beginRendering`` / ``surfaceUpdate`` / ``dataModelUpdate`` /
``deleteSurface``) and v0.9 (``"version": "v0.9"`` with ``createSurface`` /
``updateComponents`` / ``updateDataModel`` / ``deleteSurface``).

Components outside the basic catalog are refused first, with a message that
names them and lists the catalog, so a model can fix its call. The schema
check itself is ``_schema_check.py``'s, the schemas compiled to Python (no
dependency, linear in the message). Only a message it finds invalid imports
``jsonschema`` (installed with the ``a2ui`` or ``mcp`` extra), to name what
is wrong; without it the error says where. The schemas are ours (never a
peer's), so their ``$ref`` resolve only among the shipped files and nothing
is fetched.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from .._internal.json_depth import value_depth
from ..errors import A2UIError
from ._schema_check import component_check, load_schema, message_check

__all__ = [
    "BASIC_CATALOG_IDS",
    "MAX_DATA_CHARS",
    "MAX_DATA_DEPTH",
    "MAX_MESSAGE_DEPTH",
    "MAX_SURFACE_COMPONENTS",
    "MAX_THREAD_COMPONENTS",
    "A2UIError",
    "catalog_names",
    "check_message",
    "check_messages",
    "message_version",
]

V08_KINDS = ("beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface")
V09_KINDS = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")

BASIC_CATALOG_IDS = frozenset(
    {
        "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json",
        "https://a2ui.org/specification/v0_8/standard_catalog_definition.json",
        "https://a2ui.org/specification/v0_8/catalogs/basic/catalog.json",
    }
)
"""The catalogs we render: each version's basic (v0.8: "standard") catalog."""

A2UI_TOOL = "show_a2ui"
AGENT_A2UI_TOOL = "a2ui_surface"
"""The call an AG-UI agent's ``a2ui-surface`` activity becomes (``agui/_activity.py``)."""
A2UI_CALLS = frozenset({A2UI_TOOL, AGENT_A2UI_TOOL})
"""The calls that show A2UI surfaces (``component.py``'s tool and an agent's)."""

MAX_PROBLEMS = 5
"""At most this many schema problems are named in one error (the first ones)."""

MAX_SURFACE_COMPONENTS = 1_000
"""Components one surface may hold (a call's own and those earlier calls gave it)."""
MAX_THREAD_COMPONENTS = 5_000
"""Components all the live surfaces of one thread may hold together."""
MAX_DATA_DEPTH = 32
"""Levels a surface's data model may nest: an ``updateDataModel`` path's
steps plus its value's levels, and a JSON Pointer the user's input sets (a
deeper one would nest the data past what copying and saving it can recurse
through)."""
MAX_DATA_CHARS = 1_000_000
"""Characters of JSON a surface's data model may hold (one value sent, or
all of them together)."""
MAX_MESSAGE_DEPTH = MAX_DATA_DEPTH + 8
"""Levels one message may nest (its data model's, plus the envelope around it):
a deeper one is refused before the schema check walks it."""

_load = load_schema


@functools.cache
def catalog_names(version: str) -> tuple[str, ...]:
    """The basic catalog's component names for ``"v0.8"`` or ``"v0.9"``."""
    if version == "v0.9":
        return tuple(_load("v0_9/basic_catalog.json")["components"])
    schema = _load("v0_8/server_to_client_with_standard_catalog.json")
    items = schema["properties"]["surfaceUpdate"]["properties"]["components"]["items"]
    return tuple(items["properties"]["component"]["properties"])


def message_version(message: Any) -> str:
    """``"v0.9"`` or ``"v0.8"``; raises :class:`A2UIError` for neither shape."""
    if not isinstance(message, Mapping):
        raise A2UIError(f"an A2UI message must be a JSON object, got {type(message).__name__}")
    keys = [k for k in message if k != "version"]
    if message.get("version") == "v0.9" or any(k in V09_KINDS[:3] for k in keys):
        return "v0.9"
    if any(k in V08_KINDS for k in keys):
        return "v0.8"
    named = ", ".join(repr(k) for k in list(message)[:5]) or "no keys"
    raise A2UIError(
        f"not an A2UI message ({named}): each message has exactly one of "
        f'{", ".join(V09_KINDS)} (v0.9, with "version": "v0.9") or {", ".join(V08_KINDS)} (v0.8)'
    )


def _component_name(component: Any, version: str) -> str | None:
    if not isinstance(component, Mapping):
        return None
    kind = component.get("component")
    if version == "v0.9":
        return kind if isinstance(kind, str) else None
    if isinstance(kind, Mapping) and len(kind) == 1:
        return str(next(iter(kind)))
    return None


def _check_catalog(message: Mapping[str, Any], version: str) -> None:
    body = message.get("updateComponents" if version == "v0.9" else "surfaceUpdate")
    if isinstance(body, Mapping) and isinstance(body.get("components"), list):
        known = catalog_names(version)
        for component in body["components"]:
            name = _component_name(component, version)
            if name is not None and name not in known:
                where = component.get("id") if isinstance(component, Mapping) else None
                raise A2UIError(
                    f"component {name!r} (id {where!r}) is not in A2UI's basic catalog, the only "
                    f"catalog this chat renders; use one of: {', '.join(known)}"
                )
    start = message.get("createSurface" if version == "v0.9" else "beginRendering")
    if isinstance(start, Mapping):
        catalog = start.get("catalogId")
        if catalog is not None and catalog not in BASIC_CATALOG_IDS:
            raise A2UIError(
                f"catalog {str(catalog)[:200]!r} is not supported: this chat renders only "
                f"A2UI's basic catalog ({sorted(BASIC_CATALOG_IDS)[-1]})"
            )


@functools.cache
def _validators() -> dict[str, Any] | None:
    try:
        import jsonschema
        from referencing import Registry, Resource
    except ImportError:  # the compiled check still decides; its errors say less
        return None
    base = "https://a2ui.org/specification/v0_9/"
    catalog = _load("v0_9/basic_catalog.json")
    registry: Any = Registry().with_resources(
        [
            (base + "common_types.json", Resource.from_contents(_load("v0_9/common_types.json"))),
            (base + "catalog.json", Resource.from_contents(catalog)),
            (catalog["$id"], Resource.from_contents(catalog)),
        ]
    )
    v09 = _load("v0_9/server_to_client.json")
    registry = registry.with_resource(v09["$id"], Resource.from_contents(v09))
    v08 = _load("v0_8/server_to_client_with_standard_catalog.json")
    # A v0.9 message is checked against its own kind's definition, not the
    # oneOf of all four, so an error names what is wrong with it.
    validators = {
        kind: jsonschema.Draft202012Validator(
            {"$ref": f"{v09['$id']}#/$defs/{kind[0].upper()}{kind[1:]}Message"}, registry=registry
        )
        for kind in V09_KINDS
    }
    validators["v0.8"] = jsonschema.Draft202012Validator(v08, registry=registry)
    for name in catalog_names("v0.9"):  # one component's own errors, not anyComponent's oneOf
        validators[name] = jsonschema.Draft202012Validator(
            {"$ref": f"{catalog['$id']}#/components/{name}"}, registry=registry
        )
    return validators


def _basic_envelope(message: Mapping[str, Any], version: str) -> list[str]:
    kinds = [k for k in (V09_KINDS if version == "v0.9" else V08_KINDS) if k in message]
    if len(kinds) != 1:
        names = ", ".join(V09_KINDS if version == "v0.9" else V08_KINDS)
        return [f"a message has exactly one of {names}"]
    body = message[kinds[0]]
    if not isinstance(body, Mapping) or not isinstance(body.get("surfaceId"), str):
        return [f"{kinds[0]}.surfaceId: a string is required"]
    return []


def _where(error: Any) -> str:
    return _at(list(error.absolute_path))


def _kind(message: Mapping[str, Any], version: str) -> str:
    """The schema a message is checked against: v0.8's whole, or a v0.9
    kind's own definition (so an error names what is wrong with it)."""
    if version == "v0.8":
        return "v0.8"
    return next((k for k in V09_KINDS if k in message), "createSurface")


def check_message(message: Any) -> str:
    """Check one A2UI message; return its version or raise :class:`A2UIError`."""
    version = message_version(message)
    _check_catalog(message, version)
    kind = _kind(message, version)
    if message_check(kind)(message):
        return version
    validators = _validators()
    if validators is None:
        problems = _basic_envelope(message, version) or [_where_invalid(message, version)]
    else:
        problems = _schema_problems(message, version, kind, validators)
    if problems:
        raise A2UIError(f"invalid A2UI {version} message: " + "; ".join(problems))
    return version


def _schema_problems(
    message: Mapping[str, Any], version: str, kind: str, validators: Mapping[str, Any]
) -> list[str]:
    """jsonschema's first errors, sorted by where they are.

    A components list is given to it cut to its first failing components
    (the compiled check finds them): a valid component has no error, and a
    later failing one's errors sort after the first ``MAX_PROBLEMS``, so the
    errors shown are the whole message's, at a few components' cost (each
    costs jsonschema all of ``anyComponent``'s branches). Their indexes are
    the message's again.
    """
    key = "updateComponents" if version == "v0.9" else "surfaceUpdate"
    body = message.get(key)
    # only dicts are cut: the copies are dicts, and a Mapping is no JSON object to jsonschema
    components = body.get("components") if isinstance(body, dict) else None
    kept: list[int] = []
    if kind in (key, "v0.8") and isinstance(message, dict) and isinstance(components, list):
        assert isinstance(body, dict)
        check = component_check(version)
        kept = [i for i, c in enumerate(components) if not check(c)][:MAX_PROBLEMS]
        kept = (kept or [0]) if components else []  # one kept, so minItems stays as it was
        message = {**message, key: {**body, "components": [components[i] for i in kept]}}
    found = []
    for error in validators[kind].iter_errors(message):
        path = list(error.absolute_path)
        if kept and path[:2] == [key, "components"] and len(path) > 2:
            path[2] = kept[path[2]]
        found.append((path, error))
    found.sort(key=lambda f: f[0])
    return [f"{_at(path)}{_best(error, validators)}" for path, error in found[:MAX_PROBLEMS]]


def _at(path: list[Any]) -> str:
    return f"at /{'/'.join(str(p) for p in path)}: " if path else ""


def _where_invalid(message: Mapping[str, Any], version: str) -> str:
    """Without ``jsonschema``: the first component that fails, else the message."""
    key = "updateComponents" if version == "v0.9" else "surfaceUpdate"
    body = message.get(key)
    components = body.get("components") if isinstance(body, Mapping) else None
    why = "(install the a2ui extra for the reason)"
    for i, component in enumerate(components if isinstance(components, list) else ()):
        if not component_check(version)(component):
            name = _component_name(component, version) or "component"
            return f"at /{key}/components/{i}: this {name} does not match its schema {why}"
    return f"the message does not match the {version} schema {why}"


def _best(error: Any, validators: Mapping[str, Any]) -> str:
    """A ``oneOf`` failure's reason: a v0.9 component's own errors, else the
    branch that came closest."""
    from jsonschema.exceptions import best_match

    instance = error.instance
    name = instance.get("component") if isinstance(instance, Mapping) else None
    if error.validator == "oneOf" and isinstance(name, str) and name in validators:
        own = list(validators[name].iter_errors(instance))
        # A failing branch leaves its keys "unevaluated": noise beside the real reason.
        own = [e for e in own if e.validator != "unevaluatedProperties"] or own
        if own:
            return "; ".join(f"{name} {_where(e)}{str(e.message)[:300]}" for e in own[:3])
    inner = best_match(error.context) if error.context else None
    return str((inner or error).message)[:300]


def too_deep() -> A2UIError:
    return A2UIError(
        f"refused: the data model would nest more than {MAX_DATA_DEPTH} levels deep "
        f"(limit {MAX_DATA_DEPTH})"
    )


def too_large(size: int) -> A2UIError:
    return A2UIError(
        f"refused: the data model would be {size:,} characters, more than "
        f"{MAX_DATA_CHARS:,} characters (limit {MAX_DATA_CHARS:,})"
    )


def too_many(surface_id: Any) -> A2UIError:
    return A2UIError(
        f"surface {str(surface_id)[:100]!r} refused: more than {MAX_SURFACE_COMPONENTS:,} "
        f"components in one surface (limit {MAX_SURFACE_COMPONENTS:,})"
    )


def _check_limits(message: Any, components: dict[Any, int]) -> None:
    """The limits a message must keep before its schema is checked (each
    linear in its size, none recursive); ``components`` counts each surface's
    components in the messages so far."""
    if not isinstance(message, Mapping):
        return
    update = message.get("updateComponents") or message.get("surfaceUpdate")
    if isinstance(update, Mapping) and isinstance(update.get("components"), list):
        surface_id = update.get("surfaceId")
        components[surface_id] = components.get(surface_id, 0) + len(update["components"])
        if components[surface_id] > MAX_SURFACE_COMPONENTS:
            raise too_many(surface_id)
    data = message.get("updateDataModel") or message.get("dataModelUpdate")
    if isinstance(data, Mapping):
        path = data.get("path")
        steps = len(path.strip("/").split("/")) if isinstance(path, str) and path.strip("/") else 0
        value = data.get("value", data.get("contents"))
        if steps + value_depth(value, MAX_DATA_DEPTH) > MAX_DATA_DEPTH:
            raise too_deep()
        size = len(json.dumps(value, ensure_ascii=False, default=str))
        if size > MAX_DATA_CHARS:
            raise too_large(size)
    if value_depth(message, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH:
        raise A2UIError(
            f"refused: the message nests more than {MAX_MESSAGE_DEPTH} levels deep "
            f"(limit {MAX_MESSAGE_DEPTH})"
        )


def check_messages(messages: Any) -> list[str]:
    """Check a list of messages (each named by its index in an error); their
    versions. The limits come first (``MAX_SURFACE_COMPONENTS``,
    ``MAX_DATA_DEPTH``, ``MAX_DATA_CHARS``, ``MAX_MESSAGE_DEPTH``), then each
    message's schema."""
    if not isinstance(messages, list) or not messages:
        raise A2UIError("messages must be a non-empty list of A2UI messages")
    components: dict[Any, int] = {}
    for i, message in enumerate(messages):
        try:
            _check_limits(message, components)
        except A2UIError as exc:
            raise A2UIError(f"messages[{i}]: {exc}") from None
    versions = []
    for i, message in enumerate(messages):
        try:
            versions.append(check_message(message))
        except A2UIError as exc:
            raise A2UIError(f"messages[{i}]: {exc}") from None
    return versions
