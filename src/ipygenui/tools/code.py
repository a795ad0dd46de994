"""``gu.python_tool()``: a ``run_python`` tool running the model's code in the notebook.

The code runs in the notebook's namespace (IPython's ``user_ns`` in a kernel,
or the dict you pass), after the user approved it: the call waits by default
and the approval card shows the code, editable; edited code is validated
again before it runs (``decisions.approve_call``). The result the model
reads holds what the code printed, the value of its last expression, the
figures it made, its exception with the traceback, and the names it
defined or rebound, each summarized (the objects stay in the namespace: the
name *is* the reference, ``chat.data`` / the next cell reads it).

Where it runs. A sync tool runs in a thread of its own (``_internal/worker_threads.py``),
so the widget and the kernel's event loop stay responsive while the code
works, and Stop answers the call at once. The namespace is shared with the
cells, so two rules keep it safe: one ``run_python`` at a time (a lock: two
calls of one step run one after the other, never interleaved), and output is
captured per thread (``_ThreadOutput``), so a cell printing meanwhile keeps
its own output. A cell that runs *while* approved code runs sees the
namespace change under it, as with any background thread in a notebook:
the code runs only after the user's click, which is the moment to wait.
Figures are captured with matplotlib's non-GUI canvas and closed, so they
show in the result, not in a later cell.
"""

from __future__ import annotations

import ast
import base64
import io
import linecache
import sys
import threading
import traceback
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

from pydantic import BaseModel, Field

from .._internal.figure_style import default_styled, figure_bytes
from .._internal.user_view import FOR_USER
from ..data import DataStore, current_data, is_figure, is_listable, summarize
from ._table_preview import table_preview
from .base import ApprovalRule, Tool

__all__ = ["DEFAULT_MAX_OUTPUT_CHARS", "python_tool"]

DEFAULT_MAX_OUTPUT_CHARS = 10_000
"""Characters of printed output the result keeps (the tail is cut with a notice)."""

MAX_FIGURES = 4
"""Figures one run returns as images; later ones are only counted."""

SUMMARY_CHARS = 2_000
"""Characters of the summary of one value or name (the model reads a sketch, not the data)."""

MAX_NAMES = 10
"""Names the result summarizes; more are counted."""

MAX_PREVIEWS = 4
"""Tables whose first rows the card shows (``for_user``; the model reads none)."""

_FILENAME_PREFIX = "<run_python-"

_lock = threading.Lock()
"""One run_python at a time in the process: the namespace is shared."""


class RunPythonArgs(BaseModel):
    code: str = Field(
        description="Python code to run in the user's notebook namespace. The value of "
        "the last expression is returned; print() output, figures and errors too.",
        min_length=1,
    )


def python_tool(
    namespace: MutableMapping[str, Any] | None = None,
    *,
    requires_approval: ApprovalRule = True,
    name: str = "run_python",
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> Tool:
    """A tool that runs the model's Python code in the notebook's namespace.

    ``namespace``: where the code runs; default the IPython kernel's
    ``user_ns`` (so a variable the code defines is visible in the next cell),
    or a fresh dict outside IPython (keep a reference to read it).
    ``requires_approval`` is True by default: each call waits for the user,
    who can edit the code before approving (``chat.approve(id, args={"code": ...})``).
    """
    if not isinstance(max_output_chars, int) or max_output_chars < 0:
        raise ValueError(f"max_output_chars must be a whole number >= 0, got {max_output_chars!r}")
    target = namespace if namespace is not None else _notebook_namespace()

    def run_python(code: str) -> dict[str, Any]:
        return run_code(code, target, max_output_chars=max_output_chars)

    return Tool.from_model(
        name,
        RunPythonArgs,
        run_python,
        description=(
            "Run Python code in the user's live notebook namespace (their variables, "
            "DataFrames and imports are there). Returns printed output, the last "
            "expression's value, figures, errors with tracebacks, and a summary of each "
            "name the code defined or changed. The user approves each run."
        ),
        requires_approval=requires_approval,
    )


def _notebook_namespace() -> MutableMapping[str, Any]:
    """IPython's user namespace when a shell runs, else a new dict."""
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = ipython.get_ipython()
        if shell is not None:
            user_ns: MutableMapping[str, Any] = shell.user_ns
            return user_ns
    return {}


# --- running one piece of code ------------------------------------------------------

_counter = iter(range(1, sys.maxsize))


def run_code(
    code: str, namespace: MutableMapping[str, Any], *, max_output_chars: int
) -> dict[str, Any]:
    """Run ``code`` in ``namespace`` and report what happened (JSON-able)."""
    filename = f"{_FILENAME_PREFIX}{next(_counter)}>"
    # tracebacks quote the code's lines, as IPython's do for cells
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    result: dict[str, Any] = {}
    previews: list[dict[str, Any] | None] = []
    shown_value: Any = None
    store = current_data()  # the conversation's data, when a chat runs the tool
    with _lock:
        before = {k: id(v) for k, v in namespace.items()}
        figures_before = _figure_numbers()
        with _ThreadOutput.capture() as out:
            try:
                value, has_value = _execute(code, filename, namespace)
            except BaseException as exc:  # SystemExit too: the code must not end the kernel
                result["error"] = _error_report(exc, filename)
            else:
                if has_value and value is not None:
                    shown_value = value
                    ref = _keep(store, value, _name_of(namespace, value))
                    result["value"] = summarize(value, ref=ref, budget=SUMMARY_CHARS)
                    shown = table_preview(value, ref or "value")
                    if shown is not None:
                        shown["value"] = True  # the last expression's, not a name's
                    previews.append(shown)
        figures = _take_new_figures(figures_before)
        changed = [
            k
            for k, v in namespace.items()
            if not k.startswith("_") and before.get(k) != id(v) and not _is_module(v)
        ]
    printed = out.getvalue()
    if printed:
        result["stdout"] = _tail(printed, max_output_chars)
    if figures:
        result["figures"] = figures
    if changed:
        for k in changed:
            _keep(store, namespace[k], k)
        result["names"] = {k: _name_summary(namespace[k], k) for k in changed[:MAX_NAMES]}
        if len(changed) > MAX_NAMES:
            result["names_omitted"] = len(changed) - MAX_NAMES
        previews.extend(
            table_preview(namespace[k], k)
            for k in changed[:MAX_NAMES]
            if "value" not in result or namespace[k] is not shown_value  # one table, once
        )
    tables = [p for p in previews if p is not None][:MAX_PREVIEWS]
    if tables:
        result[FOR_USER] = {"tables": tables}
    if not result:
        result["stdout"] = ""
    return result


def _name_summary(obj: Any, name: str) -> dict[str, Any]:
    """What the model reads of a name the code defined: its reference, type,
    shape and columns; no sample rows (the name is there to read them with
    the next run, and the card shows the user a few)."""
    summary = summarize(obj, ref=name, budget=SUMMARY_CHARS)
    summary.pop("sample", None)
    return summary


def _keep(store: DataStore | None, obj: Any, name: str | None = None) -> str | None:
    """Keep a table, array or figure in the conversation's data (by its variable
    name, or a new reference), so a component can show it by reference."""
    if store is None or not (is_listable(obj) or is_figure(obj)):
        return None
    if name is None:
        return store.add(obj)
    try:
        store[name] = obj
    except ValueError:  # not a name the store takes
        return store.add(obj)
    return name


def _name_of(namespace: Mapping[str, Any], value: Any) -> str | None:
    """A name the notebook has for ``value`` (``by_region = ...; by_region``):
    its reference in the chat's data, as the user named it, not ``series_2``."""
    return next((k for k, v in namespace.items() if v is value and not k.startswith("_")), None)


def _execute(code: str, filename: str, namespace: MutableMapping[str, Any]) -> tuple[Any, bool]:
    """Exec the code; the last expression (as in a cell) is evaluated for its value."""
    tree = ast.parse(code, filename, "exec")
    last = None
    final = tree.body[-1] if tree.body else None
    if isinstance(final, ast.Expr):
        tree.body.pop()
        last = ast.Expression(final.value)
    glb: dict[str, Any] = namespace if isinstance(namespace, dict) else dict(namespace)
    exec(compile(tree, filename, "exec"), glb)
    value = eval(compile(last, filename, "eval"), glb) if last is not None else None
    if glb is not namespace:  # a mapping that is not a dict: write back what changed
        namespace.update(glb)
    return value, last is not None


def _error_report(exc: BaseException, filename: str) -> dict[str, Any]:
    """The exception and its traceback from the code's first frame on."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next  # drop our own frames: the model needs its code's
    lines = traceback.format_exception(type(exc), exc, tb)
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "traceback": _tail("".join(lines), 4000),
    }


def _is_module(value: Any) -> bool:
    return type(value).__name__ == "module"


def _tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return f"[… {cut:,} earlier characters not shown]\n{text[cut:]}"


# --- figures ---------------------------------------------------------------------


def _figure_numbers() -> set[int]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    return set(pyplot.get_fignums()) if pyplot is not None else set()


def _take_new_figures(before: set[int]) -> list[dict[str, Any]]:
    """The figures the code opened, as PNG data URLs, closed so no later cell shows them."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    out: list[dict[str, Any]] = []
    for number in sorted(set(pyplot.get_fignums()) - before):
        figure = pyplot.figure(number)
        if len(out) < MAX_FIGURES:
            out.append({"figure": number, **figure_png(figure, themed=default_styled(figure))})
        pyplot.close(figure)
    return out


def figure_png(figure: Any, *, themed: bool = False) -> dict[str, Any]:
    """A matplotlib figure as ``{"image": data URL, "width", "height"}``.

    ``themed``: a default-styled figure, saved on a transparent background
    and marked ``"themed": True`` so the card recolours it in a dark theme
    (it is for the user's eyes only: the model never gets a figure's pixels).
    """
    width, height = (int(v) for v in figure.get_size_inches() * figure.dpi)
    encoded = base64.b64encode(figure_bytes(figure, transparent=themed)).decode("ascii")
    png = {"image": f"data:image/png;base64,{encoded}", "width": width, "height": height}
    return {**png, "themed": True} if themed else png


# --- output captured per thread ---------------------------------------------------


class _ThreadOutput:
    """A stand-in for ``sys.stdout`` / ``sys.stderr`` that sends the writes of
    capturing threads to their buffer and everything else where it went before.

    ``contextlib.redirect_stdout`` swaps the process's stream: a cell printing
    while run_python runs in its thread would lose its output to the tool.
    """

    _buffers: dict[int, io.StringIO] = {}  # noqa: RUF012 - one table for the process
    _guard = threading.Lock()

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        buffer = self._buffers.get(threading.get_ident())
        return buffer.write(text) if buffer is not None else self.inner.write(text)

    def flush(self) -> None:
        if threading.get_ident() not in self._buffers:
            self.inner.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @classmethod
    def capture(cls) -> _Capture:
        return _Capture(cls)


class _Capture:
    def __init__(self, router: type[_ThreadOutput]) -> None:
        self.router = router
        self.buffer = io.StringIO()

    def __enter__(self) -> io.StringIO:
        with self.router._guard:
            for stream in ("stdout", "stderr"):
                current = getattr(sys, stream)
                if not isinstance(current, _ThreadOutput):
                    setattr(sys, stream, _ThreadOutput(current))
            self.router._buffers[threading.get_ident()] = self.buffer
        return self.buffer

    def __exit__(self, *exc: object) -> None:
        with self.router._guard:
            self.router._buffers.pop(threading.get_ident(), None)
            if not self.router._buffers:  # nobody captures: give the streams back
                for stream in ("stdout", "stderr"):
                    current = getattr(sys, stream)
                    if isinstance(current, _ThreadOutput):
                        setattr(sys, stream, current.inner)
