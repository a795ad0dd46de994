"""Small defects a new user meets: a refused connection named as one, a
chat's model readable from code."""

from __future__ import annotations

from typing import Any

import pytest

import ipygenui as gu
from ipygenui.models.base import ModelError, ModelRequest
from ipygenui.models.openai import OpenAIModel

CLOSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens on it


async def _error_of(model: Any) -> str:
    with pytest.raises(ModelError) as caught:
        async for _ in model.stream(ModelRequest(messages=[{"role": "user", "content": "hi"}])):
            pass
    return str(caught.value)


async def test_openai_model_says_a_refused_connection_is_refused() -> None:
    text = await _error_of(OpenAIModel("m", base_url=CLOSED, api_key="k", max_retries=0))
    assert text == f"could not connect to {CLOSED}: connection refused ({REFUSED_HINT})"
    assert "timed out" not in text.lower()


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "anthropic:claude-x"])
async def test_provider_model_says_a_refused_connection_is_refused(spec: str) -> None:
    from ipygenui.models.providers import ProviderModel

    text = await _error_of(ProviderModel(spec, base_url=CLOSED, api_key="k", max_retries=0))
    assert text == f"could not connect to {CLOSED}: connection refused ({REFUSED_HINT})"


REFUSED_HINT = "is the server running? check the model's base_url"


def test_a_chats_model_reads_and_switches_from_code() -> None:
    chat = gu.Chat(model="demo")
    try:
        assert chat.model is chat.runtime.model
        assert chat.model.name
        chat.model = "demo"
        assert chat.model is chat.runtime.model
    finally:
        chat.close()


def test_a_table_of_a_result_is_titled_by_its_variable_never_by_its_internal_ref() -> None:
    import pandas as pd

    from ipygenui.components.builtins import TableComponent
    from ipygenui.data import DataStore, using_data

    orders = pd.DataFrame({"order_id": [1, 2]})
    store = DataStore()
    ref = store.add(orders)
    assert ref == "df_1"
    unnamed = store.add(pd.DataFrame({"x": [1]}))
    table = TableComponent(namespace={"orders": orders, "_": orders})
    with using_data(store):
        titled = table.resolve(table.validate_props({"title": ref, "data": ref}))
        untitled = table.resolve(table.validate_props({"data": unnamed}))
        own = table.resolve(table.validate_props({"title": "Orders", "data": ref}))
    assert titled is not None and titled["title"] == "orders"
    assert untitled is not None and untitled["title"] is None  # no "df_2" caption
    assert own is not None and "title" not in own  # the model's own title stays


def test_a_default_figure_renders_transparent_for_the_theme_a_styled_one_as_made() -> None:
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.image import imread

    from ipygenui.components.python_component import THEMED_FIGURE, to_mimebundle

    def corner_alpha(bundle: dict[str, Any]) -> float:
        pixels = imread(io.BytesIO(base64.b64decode(bundle["image/png"])), format="png")
        return float(pixels[0, 0, 3])

    plain, ax = plt.subplots()
    ax.plot([1, 2, 3])
    themed = to_mimebundle(plain)
    assert themed[THEMED_FIGURE] is True and corner_alpha(themed) == 0.0
    dark, ax = plt.subplots(facecolor="black")
    ax.plot([1, 2, 3])
    styled = to_mimebundle(dark)
    assert THEMED_FIGURE not in styled and corner_alpha(styled) == 1.0
