"""Bad definitions fail at definition time, with a message naming what to fix.

Faults tried:
- tool parameters the model cannot fill: positional-only (``def f(a, /)``),
  builtins (``len``, ``abs``, ``max``, ``print``, ``dict.get``), names starting
  with ``_``, names pydantic reserves (``model_config``, ``model_dump``);
- annotations with no JSON schema: a plain class, ``threading.Lock`` (a
  function, not a type), the lock's type, ``Callable``; ``Annotated``
  constraints and ``Field(...)`` defaults that were silently dropped, a
  ``Field(alias=...)`` whose argument was filtered out before the call;
- defaults of the wrong type (``n: int = "three"``, ``n: int = None``, a
  default breaking its own constraint) or that JSON cannot carry (``nan``);
- ``Tool`` / ``@gu.tool`` arguments of the wrong type (``requires_approval="yes"``,
  ``args_model=dict``, a ``functools.partial`` with no name);
- generator functions as tools (the model got ``<generator object ...>``), a
  method decorated in its class (``self`` became an argument), ``@gu.tool("name")``;
- user tools named with the components' ``show_component_`` /
  ``update_component_`` prefixes;
- ``Runtime`` / ``Chat`` constructor arguments of the wrong type
  (``max_steps="3"``, ``instructions=123``, ``tools=f``, ``suggestions="yes"``,
  ``persist=123``, ``tool_choice=5``, ``components=[f]``, ``thread=5``,
  ``model="gpt-4o"``, unknown keywords);
- tools returning ``bytes`` / ``bytearray`` / ``memoryview`` that are not UTF-8
  (a ``UnicodeDecodeError`` reached the model instead of the result).

Every definition error is a ``ToolDefinitionError`` (a ``TypeError``) raised by
``@gu.tool``, ``gu.Tool.from_function`` or the ``Runtime`` given a plain
function, before any model request.
"""

import base64
import datetime as dt
import functools
import re
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
import pytest

import ipygenui as gu
from ipygenui.testing import ScriptedModel
from ipygenui.tools import ToolArgumentsError, ToolDefinitionError, to_jsonable
from ipygenui.tools.component_names import UI_TOOL_PREFIX, UPDATE_PREFIX
from runtime_helpers import call, tool_messages

# --- parameters -----------------------------------------------------------------


def some_function(a: int, b: int = 2) -> int:
    return a + b


def test_positional_only_parameter_is_refused_naming_tool_and_parameter() -> None:
    def deploy(env: str, /, n: int = 1) -> str:
        return env

    with pytest.raises(
        ToolDefinitionError, match=r"tool 'deploy', parameter 'env'.*positional-only"
    ):
        gu.tool(deploy)


def test_a_single_model_parameter_may_be_positional_only() -> None:
    class Args(pydantic.BaseModel):
        env: str

    def deploy(args: Args, /) -> str:
        return args.env

    assert gu.tool(deploy).declared == ["env"]


@pytest.mark.parametrize(
    ("builtin", "parameter"),
    [(len, "'obj'"), (abs, "'x'"), (dict.get, "'self'"), (max, None), (print, "'args'")],
    ids=["len", "abs", "dict.get", "max", "print"],
)
def test_builtins_are_refused_with_a_tool_definition_error(builtin: Any, parameter: str) -> None:
    name = builtin.__name__
    with pytest.raises(ToolDefinitionError, match=rf"tool '{name}'") as raised:
        gu.Tool.from_function(builtin)
    if parameter:
        assert f"parameter {parameter}" in str(raised.value)
    else:  # max has no readable signature at all
        assert "signature" in str(raised.value)
    assert "def " in str(raised.value)  # says how to fix it: wrap it in a def
    # the same through the runtime, which makes plain functions tools
    with pytest.raises(ToolDefinitionError, match=rf"tool '{name}'"):
        gu.Runtime(model=ScriptedModel(["hi"]), tools=[builtin])


def test_private_parameter_is_refused() -> None:
    def deploy(env: str, _token: str = "") -> str:
        return env

    with pytest.raises(ToolDefinitionError, match=r"tool 'deploy', parameter '_token'.*'_'"):
        gu.tool(deploy)


@pytest.mark.parametrize("name", ["model_config", "model_dump", "model_fields"])
def test_parameter_names_pydantic_reserves_are_refused(name: str) -> None:
    # model_config vanished from the schema silently; model_dump raised a ValueError
    namespace: dict[str, Any] = {}
    exec(f"def lookup({name}: str) -> str:\n    return {name}", namespace)
    with pytest.raises(ToolDefinitionError, match=rf"tool 'lookup', parameter '{name}'"):
        gu.tool(namespace["lookup"])


async def test_parameters_named_like_model_methods_work_quietly() -> None:
    def encode(json: str, schema: int, copy: bool = False) -> list[Any]:
        return [json, schema, copy]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "shadows an attribute" noise for the user
        made = gu.tool(encode)
    validated = made.validate({"json": "x", "schema": 2})
    assert await made.invoke(validated) == ["x", 2, False]


def test_generator_functions_are_refused() -> None:
    # the model used to get "<generator object ...>" as the result
    def numbers(n: int):  # type: ignore[no-untyped-def]
        yield from range(n)

    async def stream(n: int):  # type: ignore[no-untyped-def]
        yield n

    for func in (numbers, stream):
        with pytest.raises(ToolDefinitionError, match=rf"tool '{func.__name__}'.*generator"):
            gu.tool(func)


def test_a_method_decorated_in_its_class_is_refused() -> None:
    # self became a required argument the model had to invent
    with pytest.raises(ToolDefinitionError, match=r"tool 'lookup', parameter 'self'.*bound"):

        class Store:
            @gu.tool
            def lookup(self, key: str) -> str:
                return key

    class Shop:
        def price(self, item: str) -> int:
            return len(item)

    assert gu.tool(Shop().price).declared == ["item"]  # the bound method is fine


def test_tool_decorator_given_a_name_positionally_says_how_to_write_it() -> None:
    with pytest.raises(ToolDefinitionError, match=r"@gu.tool\(name='deploy'\)"):

        @gu.tool("deploy")  # type: ignore[call-overload]
        def f(env: str) -> str:
            return env


class Query(pydantic.BaseModel):
    text: str


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: gu.tool(requires_approval="yes")(some_function), "requires_approval must be"),
        (lambda: gu.Tool("q", "Query.", dict, print), "args_model must be a pydantic"),  # type: ignore[arg-type]
        (lambda: gu.Tool("q", 5, Query, print), "description must be a str"),  # type: ignore[arg-type]
        (lambda: gu.Tool(5, "Query.", Query, print), "tool name 5 must be"),  # type: ignore[arg-type]
        (lambda: gu.tool(functools.partial(some_function, 1)), "give the tool a name="),
    ],
    ids=["requires_approval", "args_model", "description", "name", "partial"],
)
def test_tool_arguments_are_checked(make: Callable[[], Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=re.escape(message)):
        make()


# --- annotations ----------------------------------------------------------------


class Plain:
    pass


LockType = type(threading.Lock())


@pytest.mark.parametrize(
    "annotation",
    [Plain, threading.Lock, LockType, Callable[[int], int], Callable],
    ids=["plain class", "threading.Lock", "lock type", "Callable[[int], int]", "Callable"],
)
def test_annotation_without_json_schema_is_refused_naming_the_parameter(annotation: Any) -> None:
    def deploy(env: str, target: annotation) -> None:  # type: ignore[valid-type]
        return None

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the refusal is an error, not a warning
        with pytest.raises(ToolDefinitionError, match=r"tool 'deploy', parameter 'target'"):
            gu.tool(deploy)


def test_annotated_constraints_reach_schema_and_validation() -> None:
    def deploy(n: Annotated[int, pydantic.Field(ge=1, description="replicas")] = 1) -> int:
        return n

    made = gu.tool(deploy)
    assert made.parameters_schema["properties"]["n"]["minimum"] == 1
    assert made.parameters_schema["properties"]["n"]["description"] == "replicas"
    with pytest.raises(ToolArgumentsError, match="n"):
        made.validate({"n": 0})


async def test_field_default_is_used_as_the_field() -> None:
    def deploy(n: int = pydantic.Field(3, ge=1)) -> int:
        """Deploy.

        Args:
            n: how many replicas
        """
        return n

    made = gu.tool(deploy)
    assert made.parameters_schema["properties"]["n"] == {
        "type": "integer",
        "minimum": 1,
        "default": 3,
        "description": "how many replicas",
    }
    assert await made.invoke(made.validate({})) == 3
    with pytest.raises(ToolArgumentsError):
        made.validate({"n": 0})


async def test_an_aliased_parameter_reaches_the_tool() -> None:
    # the schema said "Region", but only the Python names survived the argument filter
    seen: list[str] = []

    @gu.tool
    def deploy(region: str = pydantic.Field("eu", alias="Region")) -> str:
        seen.append(region)
        return region

    assert list(deploy.parameters_schema["properties"]) == ["Region"]
    model = ScriptedModel([call("deploy", {"Region": "us"}, id="c1"), "Done."])
    message = await gu.Runtime(model=model, tools=[deploy]).send("deploy")
    assert seen == ["us"] and message.tool_call("c1").result == "us"


# --- defaults -------------------------------------------------------------------


def test_default_of_the_wrong_type_is_refused() -> None:
    def deploy(env: str, n: int = "three") -> int:  # type: ignore[assignment]
        return n

    with pytest.raises(ToolDefinitionError) as raised:
        gu.tool(deploy)
    assert str(raised.value).startswith(
        "tool 'deploy', parameter 'n': default 'three' is not a valid int"
    )


@pytest.mark.parametrize(
    ("annotation", "default", "expected"),
    [
        (str, 3, "default 3 is not a valid str"),
        (bool, "maybe", "default 'maybe' is not a valid bool"),
        (int, None, "int | None"),  # the fix is in the message
        (Literal["a", "b"], "c", "default 'c' is not a valid"),
        (Annotated[int, pydantic.Field(ge=1)], 0, "default 0 is not a valid"),
    ],
    ids=["str=3", "bool='maybe'", "int=None", "literal", "constraint"],
)
def test_more_wrong_defaults(annotation: Any, default: Any, expected: str) -> None:
    def deploy(value: annotation = default) -> None:  # type: ignore[valid-type]
        return None

    with pytest.raises(ToolDefinitionError, match=r"tool 'deploy', parameter 'value'") as raised:
        gu.tool(deploy)
    assert expected in str(raised.value)


@pytest.mark.parametrize("default", [float("nan"), float("inf"), -float("inf")])
def test_default_json_cannot_carry_is_refused(default: float) -> None:
    # the schema sent with every request carried NaN: the request could not be encoded
    def scale(factor: float = default) -> float:
        return factor

    with pytest.raises(ToolDefinitionError, match=r"tool 'scale', parameter 'factor'.*JSON"):
        gu.tool(scale)

    class Scale(pydantic.BaseModel):
        factor: float = default

    with pytest.raises(ToolDefinitionError, match=r"tool 'scale'.*JSON"):
        gu.Tool.from_model("scale", Scale, lambda args: args)


async def test_valid_defaults_still_work() -> None:
    def plan(
        n: int = 3,
        label: str | None = None,
        tags: list[str] = [],  # noqa: B006
        when: dt.date = dt.date(2024, 1, 2),
        mode: Literal["fast", "slow"] = "fast",
        ratio: float = 1,
    ) -> list[Any]:
        return [n, label, tags, when, mode, ratio]

    made = gu.tool(plan)
    assert await made.invoke(made.validate({})) == [3, None, [], "2024-01-02", "fast", 1]


# --- reserved names ---------------------------------------------------------------


class Props(pydantic.BaseModel):
    city: str


def test_user_tool_with_a_component_prefix_is_refused() -> None:
    def show_component_Weather(city: str) -> str:
        return city

    for prefix in (UI_TOOL_PREFIX, UPDATE_PREFIX):
        with pytest.raises(ToolDefinitionError, match=rf"'{prefix}'.*reserved for components"):
            gu.tool(name=f"{prefix}Weather")(lambda city: city)
        with pytest.raises(ToolDefinitionError, match="reserved for components"):
            gu.Tool.from_model(f"{prefix}x", Props, lambda p: p)
        with pytest.raises(ToolDefinitionError, match="reserved for components"):
            gu.tool(name=f"{prefix}ask", human=True)(lambda city: city)
    with pytest.raises(ToolDefinitionError, match="reserved for components"):
        gu.tool(show_component_Weather)
    with pytest.raises(ToolDefinitionError, match="reserved for components"):
        gu.Runtime(model=ScriptedModel(["hi"]), tools=[show_component_Weather])


async def test_component_tools_keep_their_prefixes() -> None:
    weather = gu.Component("Weather", props=Props, esm="export function render() {}")
    model = ScriptedModel([call("show_component_Weather", {"city": "Oslo"}, id="c1"), "Shown."])
    rt = gu.Runtime(model=model, components=[weather])
    message = await rt.send("weather")
    assert message.tool_call("c1").result == "Component Weather was rendered"
    # once shown, the component's update tool is offered too
    assert f"{UPDATE_PREFIX}c1" in rt._run_loop.step_toolset()


# --- constructor arguments -----------------------------------------------------------


def _case(value: Any) -> str:
    """A test id: ``max_steps=str`` for ``{"max_steps": "3"}``."""
    if not isinstance(value, dict):
        return ""
    name, given = next(iter(value.items()))
    return f"{name}={given!r}"[:30]


def some_tool(x: int) -> int:
    return x


WEATHER = gu.Component("Weather", props=Props, esm="export function render() {}")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"max_steps": "3"},
            TypeError,
            "Runtime(max_steps=...) must be an int >= 1, got '3' (str)",
        ),
        ({"max_steps": True}, TypeError, "Runtime(max_steps=...) must be an int >= 1, got True"),
        ({"max_steps": 2.0}, TypeError, "Runtime(max_steps=...) must be an int >= 1, got 2.0"),
        ({"max_steps": 0}, ValueError, "Runtime(max_steps=...) must be an int >= 1, got 0 (int)"),
        (
            {"instructions": 123},
            TypeError,
            "Runtime(instructions=...) must be a str or None, got 123 (int)",
        ),
        ({"suggestions": "yes"}, TypeError, "Runtime(suggestions=...) must be True, False or None"),
        ({"persist": 123}, TypeError, "Runtime(persist=...) must be a path (str or os.PathLike)"),
        ({"persist": ""}, ValueError, "Runtime(persist=...) must not be empty"),
        ({"tool_choice": 5}, TypeError, "Runtime(tool_choice=...) must be a str or None, got 5"),
        ({"thread": 5}, TypeError, "Runtime(thread=...) must be a gu.Thread or None, got 5"),
        (
            {"model": "gpt-4o"},
            ValueError,
            "needs a provider: write 'provider:model', such as 'openai:gpt-4o'",
        ),
        ({"model": 5}, TypeError, "Runtime(model=...) must be a model"),
        ({"tools": some_tool}, TypeError, "Runtime(tools=...) takes a list"),
        ({"tools": "some_tool"}, TypeError, "Runtime(tools=...) takes a list"),
        ({"tools": {"x": some_tool}}, TypeError, "Runtime(tools=...) takes a list"),
        ({"tools": [some_tool, 5]}, TypeError, "Runtime(tools=...) item 1 must be a tool"),
        ({"tools": [WEATHER]}, TypeError, "components="),
        ({"components": WEATHER}, TypeError, "Runtime(components=...) takes a list"),
        ({"components": [some_tool]}, TypeError, "Runtime(components=...) item 0 must be"),
        ({"components": [5]}, TypeError, "Runtime(components=...) item 0 must be"),
    ],
    ids=lambda v: _case(v),
)
def test_runtime_arguments_are_type_checked(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        gu.Runtime(**{"model": ScriptedModel(["hi"]), **kwargs})
    assert message in str(raised.value)


def test_a_single_function_in_tools_gets_a_hint() -> None:
    with pytest.raises(TypeError, match=r"tools=\[some_tool\]"):
        gu.Runtime(model=ScriptedModel(["hi"]), tools=some_tool)


def test_good_runtime_arguments_still_work(tmp_path: Path) -> None:
    rt = gu.Runtime(
        model=ScriptedModel(["hi"]),
        tools=(t for t in [some_tool]),  # any iterable of tools
        components=(WEATHER,),
        instructions="Be brief.",
        suggestions=False,
        persist=tmp_path / "t.json",
        max_steps=3,
        thread=gu.Thread(),
        tool_choice="some_tool",
    )
    assert set(rt.tools) == {"some_tool", "show_component_Weather"}
    assert gu.Runtime(model=ScriptedModel(["hi"]), persist=str(tmp_path / "u.json")).persist


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_steps": "3"}, "Chat(max_steps=...) must be an int >= 1, got '3' (str)"),
        ({"instructions": 123}, "Chat(instructions=...) must be a str or None"),
        ({"tools": some_tool}, "Chat(tools=...) takes a list"),
        ({"runtime": 5}, "Chat(runtime=...) must be a gu.Runtime or None, got 5 (int)"),
        ({"max_step": 3}, "Chat() got an unexpected keyword argument 'max_step'"),
    ],
    ids=lambda v: _case(v),
)
def test_chat_arguments_are_checked_in_its_own_name(kwargs: dict[str, Any], message: str) -> None:
    from ipygenui.widget.chat import Chat

    with pytest.raises(TypeError) as raised:
        Chat(model=ScriptedModel(["hi"]) if "runtime" not in kwargs else None, **kwargs)
    assert message in str(raised.value)


# --- bytes results ----------------------------------------------------------------


BLOB = bytes(range(256)) * 2  # not UTF-8


def _decoded(value: dict[str, Any]) -> bytes:
    assert value["type"] == "bytes" and value["length"] == len(BLOB)
    return base64.b64decode(value["base64"])


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_binary_results_become_a_json_description(kind: Callable[[bytes], Any]) -> None:
    value = to_jsonable(kind(BLOB))
    assert _decoded(value) == BLOB and value["truncated"] is False
    nested = to_jsonable({"blob": kind(BLOB), "items": [kind(BLOB)], "n": 1})
    assert _decoded(nested["blob"]) == BLOB and _decoded(nested["items"][0]) == BLOB


def test_utf8_bytes_stay_text() -> None:
    assert to_jsonable(b"caf\xc3\xa9") == "café"
    assert to_jsonable(memoryview(b"ok")) == "ok"
    assert to_jsonable({"k": bytearray(b"v")}) == {"k": "v"}


def test_large_binary_result_is_capped_and_says_so() -> None:
    big = b"\xff" * 1_000_000
    value = to_jsonable(big)
    assert value["length"] == 1_000_000 and value["truncated"] is True
    assert 0 < len(base64.b64decode(value["base64"])) < 10_000


def test_binary_fields_of_models_and_dicts_with_binary_keys() -> None:
    class Packet(pydantic.BaseModel):
        name: str
        payload: bytes

    value = to_jsonable(Packet(name="p", payload=BLOB))
    assert value["name"] == "p" and _decoded(value["payload"]) == BLOB
    keyed = to_jsonable({b"\xff": 1})
    assert list(keyed.values()) == [1] and isinstance(next(iter(keyed)), str)


def test_numpy_binary_results() -> None:
    np = pytest.importorskip("numpy")
    value = to_jsonable({"rows": np.array([b"\xff\x01", b"ok"]), "raw": np.void(b"\xff\x00")})
    assert value["rows"][1] == "ok"
    assert base64.b64decode(value["rows"][0]["base64"]) == b"\xff\x01"
    assert value["raw"]["length"] == 2


async def test_tool_returning_bytes_reaches_the_model() -> None:
    @gu.tool
    def read_file(path: str) -> bytes:
        return BLOB

    model = ScriptedModel([call("read_file", {"path": "a.bin"}, id="c1"), "Done."])
    rt = gu.Runtime(model=model, tools=[read_file])
    message = await rt.send("read it")
    part = message.tool_call("c1")
    assert not part.is_error, part.result
    assert _decoded(tool_messages(model.requests[1])["c1"]) == BLOB
