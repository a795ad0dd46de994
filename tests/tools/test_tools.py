"""@gu.tool: schemas from hints and docstrings, validation, sync/async, JSON results."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import threading
from typing import Literal

import pydantic
import pytest

import ipygenui as gu
from ipygenui.tools import ToolArgumentsError, ToolDefinitionError, parse_docstring, to_jsonable


@gu.tool
def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int = 1) -> dict:
    """Current weather for a city.

    Args:
        city: The city's name, e.g. Paris.
        unit: Temperature unit.
    """
    return {"city": city, "unit": unit, "days": days, "thread": threading.current_thread().name}


def test_schema_from_hints_and_docstring() -> None:
    assert get_weather.name == "get_weather"
    assert get_weather.description == "Current weather for a city."
    schema = get_weather.parameters_schema
    assert schema["required"] == ["city"]
    assert schema["properties"]["city"] == {
        "type": "string",
        "description": "The city's name, e.g. Paris.",
    }
    assert schema["properties"]["unit"]["enum"] == ["c", "f"]
    assert schema["properties"]["days"]["default"] == 1
    assert get_weather.openai_schema()["function"]["parameters"] is schema
    assert get_weather.openai_schema()["type"] == "function"


def test_numpy_and_sphinx_docstrings() -> None:
    desc, params = parse_docstring(
        """Do it.

        Parameters
        ----------
        x : int
            The x value.
        y : str
            Why.
        """
    )
    assert desc == "Do it." and params == {"x": "The x value.", "y": "Why."}
    desc, params = parse_docstring("Sum.\n\n:param a: first\n:param int b: second\n:returns: s")
    assert desc == "Sum." and params == {"a": "first", "b": "second"}


def test_validation_names_every_problem() -> None:
    with pytest.raises(ToolArgumentsError) as err:
        get_weather.validate({"unit": "k", "days": "many"})
    text = str(err.value)
    assert "city" in text and "unit" in text and "days" in text
    assert get_weather.validate({"city": "Oslo", "days": "3"}).days == 3  # type: ignore[attr-defined]
    with pytest.raises(ToolArgumentsError, match="JSON object"):
        get_weather.validate([1, 2])  # type: ignore[arg-type]


async def test_sync_tool_runs_in_a_worker_thread() -> None:
    result = await get_weather.invoke(get_weather.validate({"city": "Oslo"}))
    assert result["city"] == "Oslo" and result["thread"] != threading.current_thread().name


class Query(pydantic.BaseModel):
    text: str
    limit: int = 5


async def test_async_tool_and_pydantic_model_parameter() -> None:
    @gu.tool(name="search", description="Search.")
    async def search_docs(query: Query) -> list[str]:
        await asyncio.sleep(0)
        return [query.text] * query.limit

    assert search_docs.name == "search" and search_docs.description == "Search."
    assert set(search_docs.parameters_schema["properties"]) == {"text", "limit"}
    assert await search_docs.invoke(search_docs.validate({"text": "a", "limit": 2})) == ["a", "a"]


def test_decorated_tool_is_still_callable_and_flags() -> None:
    assert get_weather("Rome")["city"] == "Rome"

    @gu.tool(requires_approval=lambda args: args["n"] > 10)
    def spend(n: int) -> int:
        return n

    assert spend.needs_approval({"n": 11}) and not spend.needs_approval({"n": 1})

    @gu.tool(human=True)
    def ask(question: str) -> str:
        """Ask the user."""
        return ""

    assert ask.human and "human" in repr(ask)


def test_bad_definitions_fail_clearly() -> None:
    with pytest.raises(ToolDefinitionError, match=r"\*args"):

        @gu.tool
        def f(*names: str) -> None: ...

    with pytest.raises(ToolDefinitionError, match="name"):
        gu.tool(name="has space")(lambda: 1)


def test_results_become_json() -> None:
    @dataclasses.dataclass
    class Point:
        x: int
        when: dt.date

    class M(pydantic.BaseModel):
        p: tuple[int, int]

    assert to_jsonable(Point(1, dt.date(2024, 1, 2))) == {"x": 1, "when": "2024-01-02"}
    assert to_jsonable(M(p=(1, 2))) == {"p": [1, 2]}
    assert sorted(to_jsonable({1, 2})) == [1, 2]
    assert to_jsonable(object()).startswith("<object object")


def test_dataframe_and_numpy_results_are_summarized() -> None:
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    frame = pd.DataFrame({"a": range(100), "b": ["x"] * 100})
    summary = to_jsonable(frame)
    assert summary["shape"] == [100, 2] and summary["columns"] == ["a", "b"]
    assert summary["dtypes"]["a"] == "int64" and len(summary["head"]) == 5
    assert summary["head"][0] == {"a": 0, "b": "x"}
    assert to_jsonable({"n": np.int64(3), "arr": np.arange(3)}) == {"n": 3, "arr": [0, 1, 2]}
