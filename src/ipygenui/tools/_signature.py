"""From a function's signature to the pydantic model of a tool's arguments.

The model sends a tool's arguments as one JSON object, by name. So every
parameter must be passable by keyword, have a public name, an annotation with
a JSON schema, and a default that fits its annotation. Anything else is
refused here, when the tool is defined, with one ``ToolDefinitionError``
naming the tool and the parameter: not at the first call (a positional-only
parameter), in pydantic's words (a private name), or never (a wrong default
reached the function as is).
"""

from __future__ import annotations

import inspect
import json
import warnings
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_args, get_origin, get_type_hints

import pydantic
from pydantic import BaseModel, ConfigDict, create_model
from pydantic import warnings as pydantic_warnings
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ..errors import ToolDefinitionError

__all__ = ["ToolDefinitionError", "arguments_model"]


_WRAP = "wrap it in a def with named, typed parameters"
_JSON_TYPES = "str, int, float, bool, list, dict, Literal, a pydantic model or a dataclass"
# pydantic >= 2.11 names the warning for an annotation that is not a type
# (``threading.Lock`` is a function); older versions only say it in words.
_NOT_A_TYPE_WARNING: type[Warning] | None = getattr(pydantic_warnings, "ArbitraryTypeWarning", None)
_CONFIG = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


def _describe_type(annotation: Any) -> str:
    """A short readable name for an annotation: ``int``, ``list[str]``, ``Literal['a']``."""
    if isinstance(annotation, type) and not get_args(annotation):
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


def arguments_model(
    func: Callable[..., Any], tool_name: str, doc_params: Mapping[str, str]
) -> tuple[type[BaseModel], bool]:
    """The arguments model of ``func`` and whether ``func`` takes it whole.

    A function of one pydantic-model parameter takes the validated model
    itself (its fields are the arguments); any other function gets one field
    per parameter, passed by keyword.
    """
    if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
        raise ToolDefinitionError(
            f"tool {tool_name!r} is a generator function: the model needs one result, so "
            "return it (a list, a dict, a string) instead of yielding"
        )
    params = list(_signature(func, tool_name).parameters.values())
    hints = _type_hints(func, tool_name)
    if len(params) == 1:
        only = _model_class(hints.get(params[0].name))
        if only is not None:
            return only, True
    first = params[0] if params else None
    if (
        first is not None
        and first.name in ("self", "cls")
        and first.name not in hints
        and first.kind is not first.POSITIONAL_ONLY  # dict.get: said below
    ):
        raise ToolDefinitionError(
            f"tool {tool_name!r}, parameter {first.name!r}: a method decorated in its "
            "class would ask the model for it; make the tool from the bound method instead, "
            "e.g. gu.tool(instance.method)"
        )
    for param in params:
        _check_parameter(tool_name, param)
    annotations = {p.name: hints.get(p.name, Any) for p in params}
    fields = {
        p.name: _field(annotations[p.name], p.default, doc_params.get(p.name)) for p in params
    }
    model = _build(tool_name, fields, annotations)
    _check_defaults(tool_name, model, {p.name: p.default for p in params})
    return model, False


def _signature(func: Callable[..., Any], tool_name: str) -> inspect.Signature:
    try:
        return inspect.signature(func)
    except (ValueError, TypeError) as exc:  # builtins such as max have none
        raise ToolDefinitionError(
            f"tool {tool_name!r}: cannot read its signature ({exc}); {_WRAP}"
        ) from None


def _type_hints(func: Callable[..., Any], tool_name: str) -> dict[str, Any]:
    try:  # include_extras: Annotated[int, Field(ge=1)] keeps its constraint
        return get_type_hints(func, include_extras=True)
    except Exception as exc:  # unresolvable forward reference: say which
        raise ToolDefinitionError(f"cannot read type hints of {tool_name!r}: {exc}") from exc


def _model_class(hint: Any) -> type[BaseModel] | None:
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return hint
    return None


def _check_parameter(tool_name: str, param: inspect.Parameter) -> None:
    where = f"tool {tool_name!r}, parameter {param.name!r}"
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
        raise ToolDefinitionError(
            f"{where}: *args / **kwargs cannot be described to a model; {_WRAP}"
        )
    if param.kind is param.POSITIONAL_ONLY:
        raise ToolDefinitionError(
            f"{where} is positional-only (before '/' in the signature, as in most "
            f"builtins), but a model passes arguments by name; {_WRAP}"
        )
    if param.name.startswith("_"):
        raise ToolDefinitionError(
            f"{where}: names starting with '_' are private (pydantic makes no field of "
            "them, and the runtime keeps '_' arguments for itself); rename it"
        )
    if param.name.startswith("model_") and hasattr(BaseModel, param.name):
        raise ToolDefinitionError(
            f"{where} clashes with pydantic's BaseModel.{param.name} (the arguments "
            "are a pydantic model); rename it"
        )


def _field(annotation: Any, default: Any, description: str | None) -> tuple[Any, Any]:
    """``(annotation, default)`` for ``create_model``, the docstring's description included."""
    if description:
        annotation = _with_description(annotation, description)
    if isinstance(default, FieldInfo) or default is inspect.Parameter.empty:
        return annotation, ... if default is inspect.Parameter.empty else default
    # validate_default: a lax default ("3" for an int) reaches the function converted
    return annotation, pydantic.Field(default, validate_default=True)


def _with_description(annotation: Any, description: str) -> Any:
    doc = pydantic.Field(description=description)
    if get_origin(annotation) is Annotated:
        # first, so a Field(description=...) of the annotation itself wins
        base, *metadata = get_args(annotation)
        return Annotated[(base, doc, *metadata)]
    return Annotated[annotation, doc]


def _build(
    tool_name: str, fields: dict[str, tuple[Any, Any]], annotations: dict[str, Any]
) -> type[BaseModel]:
    model, problem = _try_build(f"{tool_name}_arguments", fields)
    if model is not None:
        return model
    for name, field in fields.items():  # find the parameter to blame
        _, reason = _try_build(f"{tool_name}_{name}", {name: field})
        if reason is not None:
            raise ToolDefinitionError(
                f"tool {tool_name!r}, parameter {name!r}: the annotation "
                f"{_describe_type(annotations[name])} has no JSON schema, so the model cannot "
                f"be told what to send ({reason}); use {_JSON_TYPES}"
            )
    raise ToolDefinitionError(f"tool {tool_name!r}: cannot describe its arguments ({problem})")


def _try_build(
    name: str, fields: dict[str, tuple[Any, Any]]
) -> tuple[type[BaseModel] | None, str | None]:
    """The model and its JSON schema built, or why not (one line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model: type[BaseModel] = create_model(name, __config__=_CONFIG, **fields)  # type: ignore[call-overload]
            model.model_json_schema()
        except Exception as exc:
            return None, (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    for warning in caught:
        text = str(warning.message)
        if _NOT_A_TYPE_WARNING is not None and issubclass(warning.category, _NOT_A_TYPE_WARNING):
            return None, text.split(",")[0]
        if "is not a Python type" in text:
            return None, text.split(",")[0]
        if "shadows an attribute in parent" in text:
            continue  # json, schema, copy: fine as fields, the tool reads them by name
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return model, None


def _check_defaults(tool_name: str, model: type[BaseModel], defaults: dict[str, Any]) -> None:
    """Validate every default against its own annotation, now, not at the first call."""
    given = {}
    for name, default in defaults.items():
        if isinstance(default, FieldInfo):
            default = default.default  # PydanticUndefined for Field(ge=1) or a default_factory
        if default is not inspect.Parameter.empty and default is not PydanticUndefined:
            given[name] = default
    # validated under the names the model sends (a Field(alias=...) renames one)
    keys = {name: _input_key(name, model.model_fields[name]) for name in given}
    names = {key: name for name, key in keys.items()}
    try:
        model.model_validate({keys[name]: value for name, value in given.items()})
    except pydantic.ValidationError as exc:
        for error in exc.errors():
            if error["type"] == "missing" or not error["loc"]:
                continue  # a required parameter: no default to check
            name = names.get(str(error["loc"][0]), str(error["loc"][0]))
            expected = _describe_type(model.model_fields[name].annotation)
            hint = f"; annotate it {expected} | None" if given[name] is None else ""
            raise ToolDefinitionError(
                f"tool {tool_name!r}, parameter {name!r}: default {given[name]!r} is not "
                f"a valid {expected} ({error['msg']}){hint}"
            ) from None
    # the schema, defaults included, goes out as JSON with every request
    for name, prop in model.model_json_schema().get("properties", {}).items():
        try:
            json.dumps(prop.get("default"), allow_nan=False)
        except ValueError:
            raise ToolDefinitionError(
                f"tool {tool_name!r}, parameter {name!r}: default {given.get(name)!r} cannot "
                "be written in JSON, and the model reads defaults in the tool's schema"
            ) from None


def _input_key(name: str, field: FieldInfo) -> str:
    alias = field.validation_alias if isinstance(field.validation_alias, str) else field.alias
    return alias or name
