"""Tools: Python functions the model may call, with schemas from type hints.

``@tool`` reads the signature and docstring, builds a pydantic model of the
arguments (its JSON schema is what the model sees) and validates every call's
arguments before the function runs. Sync functions run in a worker thread so
the kernel's event loop never blocks.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, overload

import pydantic
from pydantic import BaseModel, ConfigDict

from .._internal.jsonable import to_jsonable as to_jsonable
from .._internal.standard_params import with_standard_parameters
from .._internal.worker_threads import call_in_thread
from ..errors import ToolArgumentsError
from ._json_schema import SchemaProblem, schema_checker
from ._signature import ToolDefinitionError, arguments_model
from .component_names import UI_TOOL_PREFIX, UPDATE_PREFIX

ApprovalRule = bool | Callable[[dict[str, Any]], bool]


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


# --- the tool ---------------------------------------------------------------


class Tool:
    """A function the model can call.

    Build one with ``@tool``, or directly from a name, description and a
    pydantic model of the arguments (``Tool.from_model``). ``human`` tools
    have no function: the user answers them (``add_tool_result``).
    """

    approval_note: str | None = None
    """A line the approval card shows under the question (``gu.MCPTools``: what
    the server claims about the tool)."""

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
        _check_definition(name, description, args_model, requires_approval, component)
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
        self.parameters_schema: dict[str, Any] = _clean_schema(_json_schema(name, args_model))

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
        doc_description, doc_params = parse_docstring(getattr(func, "__doc__", None))
        tool_name = name or getattr(func, "__name__", None)
        if not isinstance(tool_name, str):  # a functools.partial, a callable object
            raise ToolDefinitionError(f"{func!r} has no __name__: give the tool a name=")
        model, pass_model = arguments_model(func, tool_name, doc_params)
        return cls(
            tool_name,
            description if description is not None else doc_description,
            model,
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

    @classmethod
    def from_json_schema(
        cls,
        name: str,
        schema: Mapping[str, Any],
        func: Callable[[dict[str, Any]], Any] | None,
        *,
        description: str = "",
        requires_approval: ApprovalRule = False,
        human: bool = False,
    ) -> Tool:
        """A tool whose arguments are described by a raw JSON schema (a tool
        server's), used as given: the model sees it, calls are validated with
        it (``jsonschema`` when installed, else the basics: an object, required
        keys, property types) and ``func`` gets the arguments as one dict.
        ``human=True`` (``func`` None): answered from outside, as a human tool."""
        return JSONSchemaTool(
            name,
            schema,
            func,
            description=description,
            requires_approval=requires_approval,
            human=human,
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
        """Argument names the schema declares (everything else is stripped):
        a field's alias when it has one, as the model sends it."""
        return list(self.parameters_schema.get("properties", {}))

    def openai_schema(self, *, standard_parameters: bool = False) -> dict[str, Any]:
        """The ``{"type": "function", ...}`` entry for the chat API's ``tools``;
        ``standard_parameters=True`` adds the status-message parameters the
        runtime sends (``_internal/standard_params.py``)."""
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

    def needs_approval(self, args: BaseModel | Mapping[str, Any]) -> bool:
        """Whether this call must be approved.

        A rule function gets the validated arguments, exactly the values the
        function will receive (``dry_run=False``, not the model's ``"false"``):
        deciding on the raw JSON would let text that validates to something
        else through. ``args`` is the validated model, or raw arguments
        (validated here; ``ToolArgumentsError`` if they do not validate).
        """
        rule = self.requires_approval
        if not callable(rule):
            return bool(rule)
        validated = args if isinstance(args, BaseModel) else self.validate(args)
        return bool(rule({name: getattr(validated, name) for name in type(validated).model_fields}))

    async def invoke(self, validated: BaseModel) -> Any:
        """Run the function with validated arguments; return JSON-able data."""
        return to_jsonable(await self.call(validated))

    async def call(self, validated: BaseModel) -> Any:
        """Run the function with validated arguments; return what it returned,
        as it is (the loop keeps objects that are not JSON by reference)."""
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
            # a thread of its own: a hung call cannot hold up later ones
            result = await call_in_thread(self.func, *call_args, **call_kwargs)
            if inspect.isawaitable(result):  # a sync wrapper returning a coroutine
                result = await result
        return result


class _AnyArguments(BaseModel):
    """The validated arguments of a ``JSONSchemaTool``: whatever the schema allowed."""

    model_config = ConfigDict(extra="allow")


class JSONSchemaTool(Tool):
    """A tool described by a raw JSON schema (``Tool.from_json_schema``)."""

    def __init__(
        self,
        name: str,
        schema: Mapping[str, Any],
        func: Callable[[dict[str, Any]], Any] | None,
        *,
        description: str = "",
        requires_approval: ApprovalRule = False,
        human: bool = False,
    ) -> None:
        super().__init__(
            name,
            description,
            _AnyArguments,
            func,
            requires_approval=requires_approval,
            human=human,
        )
        try:
            self._check = schema_checker(schema)
        except SchemaProblem as exc:
            raise ToolDefinitionError(f"tool {name!r}: its arguments schema: {exc}") from None
        try:  # what every request will send: fail here, not at the first request
            with_standard_parameters(schema)
        except ValueError as exc:
            raise ToolDefinitionError(f"tool {name!r}: {exc}") from None
        self.parameters_schema = json.loads(json.dumps(schema))  # a copy, as given

    def validate(self, args: Mapping[str, Any]) -> BaseModel:
        if not isinstance(args, Mapping):
            raise ToolArgumentsError(
                f"arguments for {self.name!r} must be a JSON object, got {type(args).__name__}"
            )
        problems = self._check(args)
        if problems:
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {'; '.join(problems)}")
        return _AnyArguments.model_validate(dict(args))

    def needs_approval(self, args: BaseModel | Mapping[str, Any]) -> bool:
        rule = self.requires_approval
        if not callable(rule):
            return bool(rule)
        validated = args if isinstance(args, BaseModel) else self.validate(args)
        return bool(rule(validated.model_dump()))

    async def invoke(self, validated: BaseModel) -> Any:
        assert self.func is not None
        args = validated.model_dump()
        if self._is_async:
            result = await self.func(args)
        else:  # as for any sync tool: a worker thread, never the event loop
            result = await call_in_thread(self.func, args)
        if inspect.isawaitable(result):
            result = await result
        return to_jsonable(result)


def expand_tools(items: Any) -> list[Tool]:
    """``tools=`` items as Tools: a tool source (``gu.MCPTools``: anything with
    ``as_tools()``) gives several, anything else one (``as_tool``)."""
    out: list[Tool] = []
    for item in items:
        expand = getattr(item, "as_tools", None)
        if callable(expand) and not isinstance(item, Tool):
            out.extend(expand())
        else:
            out.append(as_tool(item))
    return out


def _reserved_prefix(name: str) -> str | None:
    """The components' prefix ``name`` starts with, if any."""
    return next((p for p in (UI_TOOL_PREFIX, UPDATE_PREFIX) if name.startswith(p)), None)


def _check_definition(
    name: Any,
    description: Any,
    args_model: Any,
    requires_approval: Any,
    component: str | None,
) -> None:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise ToolDefinitionError(
            f"tool name {name!r} must be 1-64 letters, digits, '_' or '-' (OpenAI's rule)"
        )
    prefix = _reserved_prefix(name)
    if prefix is not None and component is None:
        raise ToolDefinitionError(
            f"tool name {name!r}: the prefix {prefix!r} is reserved for components "
            "(gu.Component and @gu.component make those tools); rename the tool"
        )
    if not isinstance(description, str):
        raise ToolDefinitionError(
            f"tool {name!r}: description must be a str, got {type(description).__name__}"
        )
    if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
        raise ToolDefinitionError(
            f"tool {name!r}: args_model must be a pydantic BaseModel subclass, got {args_model!r}"
        )
    if not isinstance(requires_approval, bool) and not callable(requires_approval):
        raise ToolDefinitionError(
            f"tool {name!r}: requires_approval must be True, False or a function of the "
            f"arguments, got {requires_approval!r}"
        )


def _json_schema(name: str, args_model: type[BaseModel]) -> dict[str, Any]:
    try:
        schema = args_model.model_json_schema()
    except Exception as exc:  # a field pydantic cannot describe: say which tool
        raise ToolDefinitionError(
            f"tool {name!r}: its arguments model {args_model.__name__} has no JSON schema "
            f"({str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__})"
        ) from None
    try:  # it goes out with every request: NaN there would fail them all
        json.dumps(schema, allow_nan=False)
    except (ValueError, TypeError) as exc:
        raise ToolDefinitionError(
            f"tool {name!r}: its arguments schema cannot be written in JSON ({exc}; "
            "a default of nan or inf?)"
        ) from None
    return schema


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    schema.pop("title", None)
    schema.setdefault("properties", {})
    for prop in schema["properties"].values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return schema


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

    ``requires_approval`` may be a function of the validated arguments (a
    dict of exactly the values the function will get, ``dry_run=False`` and
    not the model's ``"false"``) that says whether this call needs the
    user's approval.
    ``human=True`` makes a tool the user answers in the UI; its function body
    is not called.
    """

    if func is not None and not callable(func):
        hint = f": for a name, write @gu.tool(name={func!r})" if isinstance(func, str) else ""
        raise ToolDefinitionError(f"@gu.tool takes a function, got {func!r}{hint}")

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
