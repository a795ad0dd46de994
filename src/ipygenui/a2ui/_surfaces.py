"""A2UI surfaces as the messages build them: components and data model.

Both message shapes are read into one form, v0.9's: a component is a flat
object ``{"id", "component": "<Name>", ...props}``, a literal is a plain value
and a binding ``{"path": "/a/b"}``. v0.8's wrappers (``literalString``,
``explicitList``, ``usageHint``, a Button's ``context`` list...) become their
v0.9 names, so the rest of the package and the browser
(``js/src/a2ui/surfaces.js``, the same rules) handle one shape.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Surface",
    "apply_messages",
    "normalize_component",
    "pointer_get",
    "pointer_set",
    "resolve_value",
]

_LITERALS = ("literalString", "literalNumber", "literalBoolean", "literalArray")
_V08_RENAMES = {"usageHint": "variant", "distribution": "justify", "alignment": "align"}
_V08_COMPONENT_RENAMES = {"MultipleChoice": "ChoicePicker"}


@dataclass
class Surface:
    """One surface: what ``chat.surfaces()`` returns an entry of."""

    surface_id: str
    version: str
    catalog_id: str | None = None
    root: str = "root"
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    data: Any = field(default_factory=dict)
    deleted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "surface_id": self.surface_id,
            "version": self.version,
            "catalog_id": self.catalog_id,
            "root": self.root,
            "components": copy.deepcopy(self.components),
            "data": copy.deepcopy(self.data),
        }


def _literal(value: Any) -> Any:
    """A v0.8 bound value as v0.9 writes it: a literal plain, else ``{"path"}``."""
    if isinstance(value, Mapping):
        for key in _LITERALS:
            if key in value:
                return value[key]
        if "path" in value:
            return {"path": value["path"]}
    return value


def _children(value: Any) -> Any:
    if isinstance(value, Mapping):
        if "explicitList" in value:
            return list(value["explicitList"] or [])
        template = value.get("template")
        if isinstance(template, Mapping):
            return {"componentId": template.get("componentId"), "path": template.get("dataBinding")}
    return value


def _action(value: Any) -> Any:
    """v0.8 ``{name, context: [{key, value}]}`` -> v0.9 ``{event: {name, context}}``."""
    if not isinstance(value, Mapping) or "event" in value or "functionCall" in value:
        return value
    context = {}
    for entry in value.get("context") or []:
        if isinstance(entry, Mapping) and isinstance(entry.get("key"), str):
            context[entry["key"]] = _literal(entry.get("value"))
    return {"event": {"name": value.get("name"), "context": context}}


def normalize_component(entry: Any, version: str) -> dict[str, Any] | None:
    """One component of an update in v0.9's flat form, or None if unreadable."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str):
        return None
    if version == "v0.9":
        return dict(entry)
    wrapper = entry.get("component")
    if not isinstance(wrapper, Mapping) or len(wrapper) != 1:
        return None
    name, props = next(iter(wrapper.items()))
    out: dict[str, Any] = {"id": entry["id"], "component": _V08_COMPONENT_RENAMES.get(name, name)}
    if "weight" in entry:
        out["weight"] = entry["weight"]
    for key, value in (props or {}).items():
        if key in ("children",):
            out[key] = _children(value)
        elif key == "action":
            out[key] = _action(value)
        elif key == "text" and name == "TextField":
            out["value"] = _literal(value)
        elif key == "textFieldType":
            out["variant"] = value
        elif key == "primary":
            out["variant"] = "primary" if value else "default"
        elif key == "selections":
            out["value"] = _literal(value)
        else:
            out[_V08_RENAMES.get(key, key)] = _literal(value)
    return out


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _tokens(path: str) -> list[str]:
    path = path.strip()
    if path in ("", "/"):
        return []
    return [_unescape(t) for t in path.lstrip("/").split("/")]


def pointer_get(data: Any, path: str) -> Any:
    """The value at a JSON Pointer (``None`` where nothing is)."""
    node = data
    for token in _tokens(path):
        if isinstance(node, Mapping):
            node = node.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def pointer_set(data: Any, path: str, value: Any, *, remove: bool = False) -> Any:
    """``data`` with ``value`` at ``path`` (objects made on the way); the new root."""
    tokens = _tokens(path)
    if not tokens:
        return {} if remove else copy.deepcopy(value)
    root = data if isinstance(data, dict) else {}
    node: Any = root
    for token in tokens[:-1]:
        child = node.get(token) if isinstance(node, dict) else None
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            child = node[int(token)]
        if not isinstance(child, dict | list):
            child = {}
            if isinstance(node, dict):
                node[token] = child
            else:
                return root  # a path through a non-container: nothing to set
        node = child
    last = tokens[-1]
    if isinstance(node, dict):
        if remove:
            node.pop(last, None)
        else:
            node[last] = copy.deepcopy(value)
    elif isinstance(node, list) and last.isdigit() and int(last) <= len(node):
        if int(last) == len(node) and not remove:
            node.append(copy.deepcopy(value))
        elif int(last) < len(node):
            if remove:
                del node[int(last)]
            else:
                node[int(last)] = copy.deepcopy(value)
    return root


def _json_in(value: Any) -> Any:
    """v0.8 has no list values: its samples put JSON in a valueString, and
    the official renderer reads it as JSON."""
    text = value.strip() if isinstance(value, str) else ""
    if (text[:1], text[-1:]) not in (("{", "}"), ("[", "]")):
        return value
    try:
        return json.loads(text)
    except ValueError:
        return value


def _v08_contents(contents: Any) -> dict[str, Any]:
    """v0.8's typed adjacency list as a plain object."""
    out: dict[str, Any] = {}
    for entry in contents or []:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("key"), str):
            continue
        for kind in ("valueString", "valueNumber", "valueBoolean"):
            if kind in entry:
                out[entry["key"]] = _json_in(entry[kind])
        if "valueMap" in entry:
            out[entry["key"]] = _v08_contents(entry["valueMap"])
    return out


def resolve_value(value: Any, data: Any) -> Any:
    """A bound value's current value: ``{"path"}`` read from ``data``, a literal as is."""
    if isinstance(value, Mapping) and set(value) == {"path"} and isinstance(value["path"], str):
        return pointer_get(data, value["path"])
    return value


def _surface(surfaces: dict[str, Surface], surface_id: Any, version: str) -> Surface | None:
    if not isinstance(surface_id, str):
        return None
    surface = surfaces.get(surface_id)
    if surface is None or surface.deleted:
        surface = surfaces[surface_id] = Surface(surface_id, version)
    return surface


def apply_messages(
    surfaces: dict[str, Surface], messages: Iterable[Any], versions: Iterable[str]
) -> None:
    """Apply checked messages (with their versions) to ``surfaces`` in place."""
    for message, version in zip(messages, versions, strict=False):
        if not isinstance(message, Mapping):
            continue
        start = message.get("createSurface") or message.get("beginRendering")
        if isinstance(start, Mapping):
            surface = _surface(surfaces, start.get("surfaceId"), version)
            if surface is not None:
                surface.catalog_id = start.get("catalogId")
                surface.root = start.get("root") or "root"
        update = message.get("updateComponents") or message.get("surfaceUpdate")
        if isinstance(update, Mapping):
            surface = _surface(surfaces, update.get("surfaceId"), version)
            for entry in update.get("components") or []:
                component = normalize_component(entry, version)
                if surface is not None and component is not None:
                    surface.components[component["id"]] = component
        data = message.get("updateDataModel") or message.get("dataModelUpdate")
        if isinstance(data, Mapping):
            surface = _surface(surfaces, data.get("surfaceId"), version)
            if surface is not None:
                path = data.get("path") or "/"
                if "contents" in data:  # v0.8: keys set under path
                    for key, value in _v08_contents(data["contents"]).items():
                        prefix = path.rstrip("/")
                        surface.data = pointer_set(surface.data, f"{prefix}/{key}", value)
                else:
                    surface.data = pointer_set(
                        surface.data, path, data.get("value"), remove="value" not in data
                    )
        gone = message.get("deleteSurface")
        if isinstance(gone, Mapping) and gone.get("surfaceId") in surfaces:
            surfaces[gone["surfaceId"]].deleted = True
