"""Python-rendered components: ``@component`` on a function of the props model.

The function may return anything a notebook displays: a matplotlib figure, a
pandas DataFrame, HTML / Markdown objects, a markdown string, anything with
``_repr_html_`` / ``_repr_png_`` / ``_repr_mimebundle_``. Its result becomes a
MIME bundle (``dict`` of mime type -> data) the widget shows inside the
thread. ``render_bundle`` is the pure, testable step; ``live.py`` decides when
to call it while props stream.
"""

from __future__ import annotations

import base64
import inspect
import io
import logging
import threading
from collections.abc import Callable
from typing import Any, get_type_hints, overload

import pydantic
from pydantic import BaseModel

from .._internal.figure_style import default_styled
from ..tools import parse_docstring
from .component import Component

__all__ = ["PythonComponent", "component", "partial_props", "to_mimebundle"]

MimeBundle = dict[str, Any]

log = logging.getLogger(__name__)

# pyplot keeps global state; one render at a time keeps parallel calls apart.
_RENDER_LOCK = threading.Lock()
RENDER_WAIT = 5.0
"""Seconds a render waits for another one to finish; then it runs anyway, so
one hung render function cannot stop every other component."""


def _matplotlib_figure(obj: Any) -> Any:
    """The matplotlib Figure behind ``obj`` (a Figure or Axes), or None."""
    module = type(obj).__module__
    if not module.startswith("matplotlib"):
        return None
    if hasattr(obj, "savefig"):
        return obj
    figure = getattr(obj, "figure", None)
    return figure if hasattr(figure, "savefig") else None


THEMED_FIGURE = "application/vnd.ipygenui.themed-figure"
"""A bundle's key saying its PNG is a default-styled figure on a transparent
background: the browser recolours it for a dark theme (components.css)."""


def _figure_png(figure: Any) -> MimeBundle:
    buffer = io.BytesIO()
    themed = default_styled(figure)
    # transparent: the chat's background shows through, light or dark
    figure.savefig(buffer, format="png", bbox_inches="tight", dpi=96, transparent=themed)
    try:  # close it, or the inline backend shows it again after the next cell
        import matplotlib.pyplot as plt

        plt.close(figure)
    except Exception:
        pass
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    bundle: MimeBundle = {"image/png": data, "text/plain": "<Figure>"}
    if themed:
        bundle[THEMED_FIGURE] = True
    return bundle


def to_mimebundle(obj: Any) -> MimeBundle:
    """What a notebook would display for ``obj``, as a MIME bundle.

    A plain string is read as markdown; ``None`` gives an empty bundle.
    """
    if obj is None:
        return {}
    if isinstance(obj, str):
        return {"text/markdown": obj, "text/plain": obj}
    figure = _matplotlib_figure(obj)
    if figure is not None:
        return _figure_png(figure)
    try:
        from IPython.core.formatters import DisplayFormatter
        from IPython.core.getipython import get_ipython

        shell = get_ipython()
        formatter = getattr(shell, "display_formatter", None) or DisplayFormatter()
        data, _metadata = formatter.format(obj)
    except ImportError:  # no IPython: the object's own repr methods only
        data = {}
        for mime, method in (("text/html", "_repr_html_"), ("text/markdown", "_repr_markdown_")):
            value = getattr(obj, method, lambda: None)()
            if value is not None:
                data[mime] = value
        data["text/plain"] = repr(obj)
    return {mime: value for mime, value in data.items() if value is not None}


def partial_props(model: type[BaseModel], args: dict[str, Any]) -> BaseModel:
    """Props for a render while streaming: validated when they already are,
    else built without validation (missing required fields stay unset)."""
    try:
        return model.model_validate(args)
    except pydantic.ValidationError:
        known = {k: v for k, v in args.items() if k in model.model_fields}
        return model.model_construct(**known)


class PythonComponent(Component):
    """A component rendered by a Python function of its props model."""

    kind = "python"

    def __init__(
        self,
        func: Callable[[Any], Any],
        *,
        name: str | None = None,
        description: str | None = None,
        state: type[BaseModel] | None = None,
    ) -> None:
        props = _props_model_of(func)
        doc_description, _ = parse_docstring(func.__doc__)
        super().__init__(
            name or func.__name__,
            props,
            description=description if description is not None else doc_description,
            state=state,
        )
        self.func = func
        self.__doc__ = func.__doc__

    def __call__(self, props: Any) -> Any:
        """Calling the component calls the function, so it stays usable in a cell."""
        return self.func(props)

    def render_bundle(self, props: BaseModel) -> MimeBundle:
        """Run the function and turn its result into a MIME bundle (may raise)."""
        locked = _RENDER_LOCK.acquire(timeout=RENDER_WAIT)
        if not locked:
            log.warning(
                "a component render has run for over %s s; %s renders anyway",
                RENDER_WAIT,
                self.name,
            )
        try:
            return to_mimebundle(self.func(props))
        finally:
            if locked:
                _RENDER_LOCK.release()


def _props_model_of(func: Callable[..., Any]) -> type[BaseModel]:
    params = list(inspect.signature(func).parameters.values())
    if len(params) != 1:
        raise TypeError(
            f"@component function {func.__name__!r} must take exactly one parameter: "
            "its props model"
        )
    try:
        hint = get_type_hints(func).get(params[0].name)
    except Exception as exc:
        raise TypeError(f"cannot read the type hints of {func.__name__!r}: {exc}") from exc
    if not (isinstance(hint, type) and issubclass(hint, BaseModel)):
        raise TypeError(
            f"the parameter of @component function {func.__name__!r} must be annotated "
            f"with a pydantic model (the props), got {hint!r}"
        )
    return hint


@overload
def component(func: Callable[[Any], Any], /) -> PythonComponent: ...


@overload
def component(
    *,
    name: str | None = None,
    description: str | None = None,
    state: type[BaseModel] | None = None,
) -> Callable[[Callable[[Any], Any]], PythonComponent]: ...


def component(
    func: Callable[[Any], Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    state: type[BaseModel] | None = None,
) -> PythonComponent | Callable[[Callable[[Any], Any]], PythonComponent]:
    """Make a function of a props model a Python-rendered component.

    ``@component`` or ``@component(description=..., state=StateModel)``. The
    description defaults to the docstring; the name to the function's name.
    """

    def wrap(f: Callable[[Any], Any]) -> PythonComponent:
        return PythonComponent(f, name=name, description=description, state=state)

    return wrap(func) if func is not None else wrap
