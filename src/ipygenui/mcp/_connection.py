"""The connection to one MCP server, for ``ipygenui.mcp``: its transports
(stdio, streamable HTTP), a session opened and closed by one task of its own,
and the worker thread whose event loop runs it.

The MCP SDK is imported inside the functions: the ``mcp`` extra is optional.

The SDK's own check of a result against the tool's ``outputSchema`` is left
out: it runs jsonschema with Python's backtracking ``re``, and a regex that
backtracks holds the GIL, so a server's ``pattern`` could freeze the kernel
from this thread. The result reaches the model as data either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import itertools
import shlex
import tempfile
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import Tool as MCPTool

    from ._oauth import ChatSignIn
    from .oauth import MCPOAuth

__all__ = [
    "HTTP",
    "Connection",
    "Stdio",
    "Transport",
    "Worker",
    "connection_lost",
    "describe_error",
    "first_error",
    "list_tools",
    "sign_in_failed",
]

STDERR_LINES = 20
STDERR_TAIL = 2_000
"""Lines and characters of a stdio server's stderr an error quotes (its last)."""


def first_error(exc: BaseException) -> BaseException:
    """The first real error inside (anyio wraps task errors in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_error(exc: BaseException) -> str:
    exc = first_error(exc)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def sign_in_failed(exc: BaseException) -> bool:
    """Whether ``exc`` (or the first error inside it) is an OAuth sign-in's failing."""
    from mcp.client.auth import OAuthFlowError

    from ..errors import MCPSignInError

    return isinstance(first_error(exc), OAuthFlowError | MCPSignInError)


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the connection to the server is gone."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    exc = first_error(exc)
    if isinstance(exc, MCPError):
        return exc.error.code == CONNECTION_CLOSED
    return isinstance(
        exc, anyio.ClosedResourceError | anyio.BrokenResourceError | ConnectionError | EOFError
    )


# --- transports ---------------------------------------------------------------


class Stdio:
    """A server run as a subprocess, spoken to over its stdin and stdout."""

    def __init__(
        self,
        command: str,
        args: Sequence[str],
        env: Mapping[str, str] | None,
        cwd: str | None,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self._stderr: IO[str] | None = None
        self._last_stderr = ""

    def describe(self) -> str:
        return f"`{shlex.join([self.command, *self.args])}`"

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Any]:
        from mcp import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=self.command, args=self.args, env=self.env, cwd=self.cwd
        )
        # a file, not a pipe: a server writing much to stderr never blocks on it
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
            self._stderr = stderr
            try:
                async with stdio_client(params, errlog=stderr) as streams:
                    yield streams
            finally:  # kept for the error that follows a failed start or a death
                self._last_stderr = self._read_stderr()

    def _read_stderr(self) -> str:
        stderr = self._stderr
        if stderr is None or stderr.closed:
            return self._last_stderr
        try:
            stderr.flush()
            stderr.seek(0)
            text = stderr.read()
            stderr.seek(0, 2)
        except (OSError, ValueError):
            return self._last_stderr
        return text

    def stderr_tail(self) -> str:
        text = self._read_stderr()
        lines = [line.rstrip() for line in text.strip().splitlines()]
        return "\n".join(lines[-STDERR_LINES:])[-STDERR_TAIL:]


class HTTP:
    """A server reached over the MCP streamable-HTTP transport; with ``auth``,
    signed in by the SDK's OAuth client (``_oauth.py``)."""

    def __init__(
        self, url: str, headers: Mapping[str, str] | None, auth: MCPOAuth | None = None
    ) -> None:
        self.url = url
        self.headers = dict(headers) if headers is not None else None
        self.auth = auth
        self._provider: Any = None
        """The SDK's auth, kept across restarts (what it discovered stays known)."""
        self.refused: tuple[int, str | None] | None = None
        """The last 401 the server answered without ``auth`` (status, WWW-Authenticate)."""
        self.chat_sign_in: ChatSignIn | None = None
        """The chat showing the sign-in card (``auth`` without ``redirect``)."""

    def describe(self) -> str:
        return self.url

    def forget_sign_in(self) -> bool:
        """Forget the tokens (their file and the SDK's memory of them); whether
        a file was there."""
        if self.auth is None:
            return False
        from ._oauth import token_store

        self._provider = None
        return token_store(self.auth, self.url).forget()

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Any]:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        if self.auth is not None and self._provider is None:
            from ._oauth import auth_provider

            self._provider = auth_provider(self.auth, self.url, lambda: self.chat_sign_in)
        self.refused = None
        async with (
            create_mcp_http_client(headers=self.headers, auth=self._provider) as client,
            streamable_http_client(self.url, http_client=client) as streams,
        ):
            if self.auth is None:
                client.event_hooks["response"].append(self._heard)
            yield streams

    async def _heard(self, response: Any) -> None:
        if response.status_code == 401:
            self.refused = (401, response.headers.get("WWW-Authenticate"))

    def stderr_tail(self) -> str:
        return ""


Transport = Stdio | HTTP


# --- one connection, on the worker loop -------------------------------------------


class Connection:
    """One session with the server, opened and closed by one task of its own
    (the SDK's streams and task groups must be)."""

    def __init__(self, transport: Transport, options: Mapping[str, Any] | None = None) -> None:
        self.transport = transport
        self._options = dict(options or {})
        """The session's callbacks (roots, logging, ...): what the client advertises."""
        self.session: ClientSession | None = None
        self.server_info: Any = None
        """The server's ``serverInfo`` (name, title) from its ``initialize`` result."""
        self._ready: asyncio.Future[list[MCPTool]] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._own())

    async def _own(self) -> None:
        try:
            async with (
                self.transport.open() as (read, write),
                _session_class()(read, write, **self._options) as session,
            ):
                self.server_info = (await session.initialize()).server_info
                tools = await list_tools(session)
                self.session = session
                self._ready.set_result(tools)
                await self._stop.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(first_error(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.session = None

    async def ready(self, timeout: float) -> list[MCPTool]:
        try:
            return await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        except TimeoutError:
            await self.close()
            raise TimeoutError(f"no answer within {timeout:g} s") from None

    @property
    def alive(self) -> bool:
        return self.session is not None and not self._task.done()

    async def close(self) -> None:
        self._stop.set()
        if not self._task.done():
            try:  # the SDK bounds its own shutdown (stdin closed, then terminate, kill)
                await asyncio.wait_for(asyncio.shield(self._task), 10)
            except (TimeoutError, Exception):
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task


async def list_tools(session: ClientSession) -> list[MCPTool]:
    """Every page of the server's tool listing."""
    from mcp.types import PaginatedRequestParams

    tools: list[MCPTool] = []
    cursor: str | None = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        listed = await session.list_tools(params=params)
        tools.extend(listed.tools)
        cursor = listed.next_cursor
        if not cursor:
            return tools


CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("CALL_ID", default=None)
"""The JSON-RPC id the next ``tools/call`` sent from this context goes under
(an MCP app reads it as ``hostContext.toolInfo.id``); unset, the SDK mints one."""

_call_ids = itertools.count(1)


def new_call_id() -> str:
    """A request id no other request of the process has: a string that does
    not parse as an integer, so the SDK's own counter never mints it."""
    return f"ipygenui-call-{next(_call_ids)}"


@functools.cache
def _session_class() -> type[ClientSession]:
    """The SDK's session without its result check against the output schema,
    sending a ``tools/call`` under ``CALL_ID`` when it is set."""
    from mcp import ClientSession
    from mcp.shared.exceptions import MCPError

    from ._client_tasks import TASK_METHODS, TASKABLE, ClientTasks, TaskError, tasks_capability

    class Session(ClientSession):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._client_tasks = ClientTasks()
            send = self._dispatcher.send_raw_request

            async def send_raw_request(
                method: str, params: Any, opts: Any = None, **kw: Any
            ) -> dict[str, Any]:
                call_id = CALL_ID.get()
                if method == "tools/call" and call_id is not None:
                    opts = {**(opts or {}), "request_id": call_id}
                return await send(method, params, opts, **kw)

            self._dispatcher.send_raw_request = send_raw_request  # type: ignore[method-assign]

        def _build_capabilities(self, version: str) -> Any:
            """The SDK's capabilities, and the tasks this client runs for the
            server: its sampling and elicitation requests, when it answers them."""
            capabilities = super()._build_capabilities(version)
            if version == "2025-11-25":  # the one version that has tasks
                capabilities.tasks = tasks_capability(
                    capabilities.sampling is not None, capabilities.elicitation is not None
                )
            return capabilities

        async def _on_request(self, dctx: Any, method: str, params: Any) -> dict[str, Any]:
            """A server's request; a sampling or elicitation request asking for a
            task, and the server's ``tasks/*`` requests, by ``_client_tasks.py``."""
            try:
                if method in TASK_METHODS:
                    return await self._client_tasks.answer(method, params)
                if method in TASKABLE and isinstance(params, Mapping) and "task" in params:
                    plain = {key: value for key, value in params.items() if key != "task"}
                    answer = ClientSession._on_request(self, dctx, method, plain)
                    return self._client_tasks.start(method, params, answer)
            except TaskError as exc:
                raise MCPError(code=exc.code, message=str(exc)) from None
            return await super()._on_request(dctx, method, params)

        async def __aexit__(self, *exc: Any) -> Any:
            self._client_tasks.close()
            return await super().__aexit__(*exc)

        async def validate_tool_result(self, name: str, result: Any) -> None:
            return None  # see the module's docstring: a server's pattern must not run on re

        async def send_raw(
            self, method: str, params: dict[str, Any], timeout: float | None
        ) -> dict[str, Any]:
            """One request as the session sends any (its protocol headers
            stamped), its result untyped: the SDK's client has no types of its
            own for the task methods (``_tasks.py`` checks what comes back)."""
            data: dict[str, Any] = {"method": method, "params": params}
            opts: dict[str, Any] = {}
            self._stamp(data, opts)  # type: ignore[arg-type]
            if timeout is not None:
                opts["timeout"] = timeout
            return await self._dispatcher.send_raw_request(method, data["params"], opts)  # type: ignore[arg-type]

    return Session


# --- the worker thread ----------------------------------------------------------------


class Worker:
    """A daemon thread running an event loop of its own for the connection."""

    def __init__(self, label: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name=f"ipygenui-mcp {label}", daemon=True
        )
        self.thread.start()

    def run(self, coro: Any, timeout: float | None) -> Any:
        """Run ``coro`` on the worker and wait for it here (a blocking wait)."""
        if threading.current_thread() is self.thread:
            raise RuntimeError("cannot wait for the MCP worker on its own thread")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def run_async(self, coro: Any) -> Any:
        """Run ``coro`` on the worker; the caller's loop awaits without blocking
        (cancelling the await cancels the worker's task)."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()
