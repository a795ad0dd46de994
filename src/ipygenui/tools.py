"""Tools: Python functions the model may call, with schemas from type hints.

``@tool`` reads the signature and docstring, builds a pydantic model of the
arguments (its JSON schema is what the model sees) and validates every call's
arguments before the function runs. Sync functions run in a worker thread so
the kernel's event loop never blocks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints, overload

import pydantic
import pydantic_core
from pydantic import BaseModel, ConfigDict, create_model

from .sanitize import json_safe
from .standard_params import with_standard_parameters

ApprovalRule = bool | Callable[[dict[str, Any]], bool]


class ToolDefinitionError(TypeError):
    """A function cannot become a tool (for example it takes ``*args``)."""


class ToolArgumentsError(ValueError):
    """A call's arguments failed validation; the text names every problem."""


# --- docstrings -------------------------------------------------------------

_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Examples?|Notes?)\s*:?\s*$"
)
_PARAM_SECTIONS = ("args", "arguments", "parameters", "params")
_GOOGLE_ARG = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ARG = re.compile(r"^(\w+)\s*(?::.*)?$")
_SPHINX_ARG = re.compile(r"^\s*:param\s+(?:[\w\[\], ]+\s+)?(\w+)\s*:\s*(.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into (description, {parameter: description}).

    Understands Google (``Args:``), NumPy (``Parameters`` + dashes) and
    Sphinx (``:param x:``) styles; anything else is all description.
    """
    if not doc:
        return "", {}
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    base: int | None = None  # indent of parameter names in the current section
    current: str | None = None
    for line in inspect.cleandoc(doc).splitlines():
        if re.fullmatch(r"\s*-{3,}\s*", line):
            continue  # NumPy section underline
        header = _SECTION.match(line)
        if header:
            section, base, current = header.group(1).lower(), None, None
            continue
        sphinx = _SPHINX_ARG.match(line)
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            continue
        if line.strip().startswith(":"):
            current = None  # :returns: and friends
            continue
        if section is None:
            description.append(line)
            continue
        if section not in _PARAM_SECTIONS or not line.strip():
            continue
        if base is None:
            base = _indent(line)
        if _indent(line) > base and current:
            params[current] = (params[current] + " " + line.strip()).strip()
            continue
        text = line.strip()
        numpy = _NUMPY_ARG.match(text)
        google = _GOOGLE_ARG.match(text)
        if numpy and (" :" in text or ":" not in text):
            current = numpy.group(1)
            params[current] = ""
        elif google:
            current = google.group(1)
            params[current] = google.group(2).strip()
    return "\n".join(description).strip(), params


# --- results ----------------------------------------------------------------


def _summarize_dataframe(frame: Any, rows: int = 5) -> dict[str, Any]:
    head = frame.head(rows)
    return {
        "type": "DataFrame",
        "shape": list(frame.shape),
        "columns": [str(c) for c in frame.columns],
        "dtypes": {str(c): str(t) for c, t in frame.dtypes.items()},
        "head": to_jsonable(head.to_dict(orient="records")),
    }


def _fallback(value: Any) -> Any:
    kind = type(value)
    module = kind.__module__.split(".")[0]
    if module == "pandas":
        if hasattr(value, "columns") and hasattr(value, "dtypes"):
            return _summarize_dataframe(value)
        if hasattr(value, "to_frame"):  # Series
            return _summarize_dataframe(value.to_frame())
        if hasattr(value, "isoformat"):
            return value.isoformat()
    if module == "numpy" and hasattr(value, "tolist"):
        return value.tolist()  # arrays and numpy scalars alike
    return repr(value)


def to_jsonable(value: Any) -> Any:
    """Turn a tool's return value into plain JSON data.

    Pydantic models and dataclasses become dicts, sets and tuples lists,
    DataFrames a summary (shape, columns, dtypes, first rows), numpy values
    their Python equivalents; anything else unknown its ``repr``.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    try:
        return pydantic_core.to_jsonable_python(value, fallback=_fallback, serialize_unknown=False)
    except UnicodeEncodeError:  # a lone surrogate, which pydantic's UTF-8 strings refuse
        return json_safe(value)


# --- the tool ---------------------------------------------------------------


class Tool:
    """A function the model can call.

    Build one with ``@tool``, or directly from a name, description and a
    pydantic model of the arguments (``Tool.from_model``). ``human`` tools
    have no function: the user answers them (``add_tool_result``).
    """

    def __init__(
        self,
        name: str,
        description: str,
        args_model: type[BaseModel],
        func: Callable[..., Any] | None = None,
        *,
        requires_approval: ApprovalRule = False,
        human: bool = False,
        component: str | None = None,
        pass_model: bool = False,
    ) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            raise ToolDefinitionError(
                f"tool name {name!r} must be 1-64 letters, digits, '_' or '-' (OpenAI's rule)"
            )
        if func is None and not human and component is None:
            raise ToolDefinitionError(f"tool {name!r} needs a function unless human=True")
        self.name = name
        self.description = description
        self.args_model = args_model
        self.func = func
        self.requires_approval = requires_approval
        self.human = human
        self.component = component
        self._is_async = func is not None and inspect.iscoroutinefunction(func)
        # True when the function takes the whole arguments model as one parameter
        self._pass_model = pass_model
        self.parameters_schema: dict[str, Any] = _clean_schema(args_model.model_json_schema())

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        requires_approval: ApprovalRule = False,
        human: bool = False,
    ) -> Tool:
        """Build a tool from a function's signature and docstring."""
        doc_description, doc_params = parse_docstring(func.__doc__)
        tool_name = name or func.__name__
        args_model, pass_model = _args_model(func, tool_name, doc_params)
        return cls(
            tool_name,
            description if description is not None else doc_description,
            args_model,
            func,
            requires_approval=requires_approval,
            human=human,
            pass_model=pass_model,
        )

    @classmethod
    def from_model(
        cls,
        name: str,
        args_model: type[BaseModel],
        func: Callable[..., Any] | None = None,
        *,
        description: str = "",
        requires_approval: ApprovalRule = False,
        human: bool = False,
        component: str | None = None,
    ) -> Tool:
        """A tool whose arguments are the fields of ``args_model``."""
        return cls(
            name,
            description,
            args_model,
            func,
            requires_approval=requires_approval,
            human=human,
            component=component,
        )

    def __repr__(self) -> str:
        flags = [
            f for f, on in (("approval", bool(self.requires_approval)), ("human", self.human)) if on
        ]
        return f"<Tool {self.name}{' [' + ', '.join(flags) + ']' if flags else ''}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calling the tool calls the function, so decorated code still works."""
        if self.func is None:
            raise TypeError(f"tool {self.name!r} is answered by the user, not called")
        return self.func(*args, **kwargs)

    @property
    def declared(self) -> list[str]:
        """Argument names the schema declares (everything else is stripped)."""
        return list(self.args_model.model_fields)

    def openai_schema(self, *, standard_parameters: bool = False) -> dict[str, Any]:
        """The ``{"type": "function", ...}`` entry for the chat API's ``tools``;
        ``standard_parameters=True`` adds the status-message parameters the
        runtime sends (``standard_params.py``)."""
        parameters = self.parameters_schema
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": (
                    with_standard_parameters(parameters) if standard_parameters else parameters
                ),
            },
        }

    def validate(self, args: Mapping[str, Any]) -> BaseModel:
        """Validate raw JSON arguments; raise ``ToolArgumentsError`` naming each problem."""
        if not isinstance(args, Mapping):
            raise ToolArgumentsError(
                f"arguments for {self.name!r} must be a JSON object, got {type(args).__name__}"
            )
        try:
            return self.args_model.model_validate(dict(args))
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {problems}") from None

    def needs_approval(self, args: Mapping[str, Any]) -> bool:
        """Whether this call (with these validated arguments) must be approved."""
        rule = self.requires_approval
        if callable(rule):
            return bool(rule(dict(args)))
        return bool(rule)

    async def invoke(self, validated: BaseModel) -> Any:
        """Run the function with validated arguments; return JSON-able data."""
        if self.func is None:
            return "Component was rendered." if self.component else None
        if self._pass_model:
            call_args: tuple[Any, ...] = (validated,)
            call_kwargs: dict[str, Any] = {}
        else:
            call_args = ()
            call_kwargs = {name: getattr(validated, name) for name in self.args_model.model_fields}
        if self._is_async:
            result = await self.func(*call_args, **call_kwargs)
        else:
            result = await asyncio.to_thread(self.func, *call_args, **call_kwargs)
            if inspect.isawaitable(result):  # a sync wrapper returning a coroutine
                result = await result
        return to_jsonable(result)


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    schema.pop("title", None)
    schema.setdefault("properties", {})
    for prop in schema["properties"].values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return schema


def _args_model(
    func: Callable[..., Any], tool_name: str, doc_params: dict[str, str]
) -> tuple[type[BaseModel], bool]:
    signature = inspect.signature(func)
    try:
        hints = get_type_hints(func)
    except Exception as exc:  # unresolvable forward reference: say which
        raise ToolDefinitionError(f"cannot read type hints of {tool_name!r}: {exc}") from exc
    params = list(signature.parameters.values())
    # A single pydantic-model parameter: its fields are the arguments.
    if len(params) == 1:
        only = hints.get(params[0].name)
        if isinstance(only, type) and issubclass(only, BaseModel):
            return only, True
    fields: dict[str, Any] = {}
    for param in params:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: *args / **kwargs cannot be described to a model"
            )
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (
            annotation,
            pydantic.Field(default, description=doc_params.get(param.name) or None),
        )
    model: type[BaseModel] = create_model(
        f"{tool_name}_arguments",
        __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True),
        **fields,
    )
    return model, False


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: ApprovalRule = False,
    human: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: ApprovalRule = False,
    human: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a function a tool: ``@tool`` or ``@tool(requires_approval=True)``.

    ``requires_approval`` may be a function of the (validated, JSON) arguments
    that says whether this particular call needs the user's approval.
    ``human=True`` makes a tool the user answers in the UI; its function body
    is not called.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool.from_function(
            f,
            name=name,
            description=description,
            requires_approval=requires_approval,
            human=human,
        )

    return wrap(func) if func is not None else wrap


def as_tool(value: Tool | Callable[..., Any]) -> Tool:
    """Accept a ``Tool``, anything with ``as_tool()`` (a component), or a plain function."""
    if isinstance(value, Tool):
        return value
    convert = getattr(value, "as_tool", None)
    if callable(convert):
        converted = convert()
        if isinstance(converted, Tool):
            return converted
    if callable(value):
        return Tool.from_function(value)
    raise ToolDefinitionError(f"not a tool or function: {value!r}")
