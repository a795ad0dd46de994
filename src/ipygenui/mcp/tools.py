"""MCP tool servers as chat tools: ``gu.MCPTools.stdio(...)`` / ``gu.MCPTools.http(...)``.

An ``MCPTools`` goes in a chat's ``tools=`` and stands for every tool its
server lists. It needs the optional extra ``mcp`` (``pip install
ipygenui[mcp]``), imported only when a connection starts.

The connection lives on a thread of its own with its own event loop: the MCP
SDK's streams must be opened and closed by one task, and the chat needs the
server's tools when it is built (a ``Runtime`` fixes its tools at
construction), which may be in a notebook cell where the kernel's loop is
busy running that very cell. So building the chat connects and waits for the
tool list (a second or so for a local server); ``await tools.connect()``
first does the same without blocking the kernel's loop. Each call is then
sent from the chat's loop to that thread and awaited there, never blocking.

A server is untrusted: what it lists is checked, and what it claims is
shown, not obeyed.

- Schemas are the server's, as given (``Tool.from_json_schema``), checked
  without fetching anything and with a linear-time regex engine
  (``tools/_json_schema.py``).
- Descriptions are the server's text: they go in the tool's schema, where the
  model reads what a tool does, and nowhere else (not in the instructions).
- Sizes: a tool whose schema is over ``max_schema_bytes`` (64 KB of JSON) or
  whose description is over ``max_description_chars`` (8,000 characters) is
  left out, as is one whose name the chat reserves (``show_component_*``,
  ``update_component_*``): ``skipped`` and a logged warning say which and why;
  the server's other tools work.
- Approval: every tool asks first. Its annotations (``readOnlyHint``,
  ``destructiveHint``, ...) are the server's claims: the approval card shows
  them, naming the server as it names itself ("The server ipygenui demo
  says: read-only, not destructive"). A user who trusts the server passes
  ``trust_annotations=True`` (or the names of the tools whose claims to
  trust): those marked read-only and not destructive then run
  unasked. ``requires_approval=`` decides instead, when given.
- Results: structured content when the server gives it, else the text blocks
  joined; images as ``{"type": "image", "mime_type", "src": "data:..."}``
  entries; an ``isError`` result is an error result.
- Life: ``Runtime.close()`` / ``Chat.close()`` close it (the server process
  ends). A server that dies is restarted once; a call it died during is
  repeated only when the tool is trusted to be read-only or idempotent (else
  the model is told it may have run). A server that fails to start names the
  command and the tail of its stderr.
- Asking mid-call: with a chat (or a headless ``Runtime``) to answer, the
  client advertises sampling and elicitation. A server's sampling request
  is a card approved twice (its prompt, then the chat's model's answer, at
  most ``sampling_max_tokens``); a form (its schema checked: flat primitive
  fields only) or a link is answered with ``add_tool_result`` (accept with
  content, decline, cancel). See ``_requests.py``.
- Signing in: ``auth=gu.MCPOAuth()`` with no ``redirect`` signs in at the
  chat's card (``sign_in_with``). A chat being built does not wait for it:
  it starts without the server's tools, which join its next model step once
  the user signed in (``changes``); a call that needs a new sign-in waits at
  the card. See ``_oauth.py`` and ``_loopback.py``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._internal.install_hint import install_hint
from .._internal.sanitize import clean_text
from ..errors import MCPConnectionError
from ..tools import Tool, ToolDefinitionError, ToolError
from ..tools.call_report import CallReport, current_report
from ..tools.foreign import MAX_DESCRIPTION_CHARS, MAX_SCHEMA_BYTES, foreign_tool_refusal
from ._apps import APP_EXTENSION, AppResources, AppTool, app_request, app_tool, app_view
from ._connection import (
    CALL_ID,
    HTTP,
    Connection,
    Stdio,
    Transport,
    Worker,
    connection_lost,
    describe_error,
    list_tools,
    new_call_id,
    sign_in_failed,
)
from ._features import (
    READ_RESOURCE,
    READ_RESOURCE_DESCRIPTION,
    READ_RESOURCE_SCHEMA,
    LogRelay,
    check_roots,
    offers_resources,
    progress_callback,
    read_result,
    roots_callback,
    runs_as_task,
    task_refusal,
)
from ._list_changes import LIST_KINDS, ListChanges, ListKind
from ._oauth import SIGN_IN_SECONDS, ChatSignIn, unauthorized_text
from ._prompts import MCPPrompt, complete_argument, fill_prompt, read_prompts
from ._requests import RequestBridge
from ._results import result_value
from ._server_name import command_text, server_hash, server_name
from ._tasks import run_as_task, runs_tool_tasks
from .oauth import MCPOAuth

if TYPE_CHECKING:
    from mcp.types import Tool as MCPTool

    from ..tools.sign_ins import SignIns

__all__ = ["MCPConnectionError", "MCPTools"]

logger = logging.getLogger("ipygenui")

MCPApproval = bool | Collection[str] | Callable[[str, dict[str, Any]], bool] | None
"""``None``: every tool asks, except, with ``trust_annotations``, one the
server marks read-only and not destructive; ``True`` / ``False``: every tool;
a collection of names (as the server lists them, without ``prefix``): those
ask, the others do not; a function ``(name, annotations) -> bool``
(``annotations`` as the server sent them, e.g. ``{"read_only_hint": True}``:
claims, for the function to weigh)."""

MCPTrust = bool | Collection[str]
"""Whose annotations to believe: ``False`` (nobody's), ``True`` (every tool's)
or the names of the tools whose claims the user trusts."""

SAMPLING_MAX_TOKENS = 1_000
"""The default of ``sampling_max_tokens``: a server's sampling request gets at
most this many tokens of the chat's model's answer, whatever it asks."""

MCPRoots = bool | Sequence[str | os.PathLike[str]] | None
"""The folders a server hears of (``roots/list``): none by default, ``True``
for the notebook's folder, or a list of folders."""

LIST_CHANGE_WAIT = 10.0
"""How long a call's result waits for the lists it changed to be read again."""

_READS = "\0read_resource"
"""The read-resource tool's key among the calls (no server tool is named so)."""


def _require_mcp() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ImportError(f"gu.MCPTools needs the MCP SDK: {install_hint('mcp')}") from None


# --- the public object --------------------------------------------------------------------


class MCPTools:
    """The tools of one MCP server, for a chat's ``tools=``.

    Build one with ``MCPTools.stdio(command, args)`` (a local server run as
    a subprocess) or ``MCPTools.http(url)`` (streamable HTTP). The chat
    connects when it is built; ``await tools.connect()`` connects first
    without blocking the event loop. ``close()`` ends the connection (the
    chat's ``close()`` calls it).
    """

    def __init__(
        self,
        transport: Transport,
        *,
        requires_approval: MCPApproval = None,
        trust_annotations: MCPTrust = False,
        prefix: str = "",
        startup_timeout: float = 30.0,
        call_timeout: float | None = None,
        max_schema_bytes: int = MAX_SCHEMA_BYTES,
        max_description_chars: int = MAX_DESCRIPTION_CHARS,
        roots: MCPRoots = None,
        sampling_max_tokens: int = SAMPLING_MAX_TOKENS,
    ) -> None:
        _check_approval(requires_approval)
        _check_trust(trust_annotations)
        if not isinstance(prefix, str):
            raise TypeError(f"MCPTools(prefix=...) must be a str, got {prefix!r}")
        for label, limit in (
            ("max_schema_bytes", max_schema_bytes),
            ("max_description_chars", max_description_chars),
            ("sampling_max_tokens", sampling_max_tokens),
        ):
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise TypeError(f"MCPTools({label}=...) must be a positive int, got {limit!r}")
        self._transport = transport
        self._roots = check_roots(roots)
        self._logs = LogRelay(transport.describe())
        self.starters: list[str] = []
        """The server's prompts that need no arguments, as a chat's starters."""
        self.prompts: list[MCPPrompt] = []
        """The server's prompts that need arguments: starters with a form
        (``fill_prompt`` gives the text, ``complete`` suggestions)."""
        self.changes = 0
        """How many times a list of the server changed and was read again
        (``list_changed``): a chat takes the new tools from its next model step."""
        self._listing = threading.Lock()
        """Guards swapping the listed tools for a newer listing (the worker's thread)."""
        self._watchers: list[Callable[[ListKind], None]] = []
        self._list_changes = ListChanges(transport.describe(), self._reread)
        self._offers_resources = False
        self.requires_approval = requires_approval
        self.trust_annotations = trust_annotations
        self.max_schema_bytes = max_schema_bytes
        self.max_description_chars = max_description_chars
        self.prefix = prefix
        self.startup_timeout = startup_timeout
        self.call_timeout = call_timeout
        self._worker: Worker | None = None
        self._connection: Connection | None = None
        self._listed: list[MCPTool] | None = None
        self._tools: list[Tool] | None = None
        self._repeatable: set[str] = set()
        """Tools trusted to be read-only or idempotent: a call the server died
        during is sent again after the restart."""
        self._closed = False
        self._lock = threading.Lock()
        self._restarting = asyncio.Lock()
        """Held (on the worker loop) while the server restarts: one restart per death."""
        self.skipped: dict[str, str] = {}
        """Server tools left out, with why (a name the chat refuses, a bad or
        oversized schema, an oversized description)."""
        self.restarts = 0
        """How many times the server was restarted after it died."""
        self._signed_out = False
        """``sign_out()`` closed the connection: the next call opens one, quietly."""
        self._signing_in: concurrent.futures.Future[list[MCPTool]] | None = None
        """A start waiting for the user at the chat's sign-in card (its tools come later)."""
        self._requests = RequestBridge(self._card_server, sampling_max_tokens)
        """The chat answering the server's sampling and elicitation requests."""
        self._apps: dict[str, tuple[AppTool, bool]] = {}
        """MCP Apps: each server tool's ``_meta.ui`` and whether it asks first."""
        self._app_resources = AppResources()
        self._task_tools: set[str] = set()
        """Server tools called as MCP tasks (``_tasks.py``)."""

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        *,
        requires_approval: MCPApproval = None,
        trust_annotations: MCPTrust = False,
        prefix: str = "",
        startup_timeout: float = 30.0,
        call_timeout: float | None = None,
        max_schema_bytes: int = MAX_SCHEMA_BYTES,
        max_description_chars: int = MAX_DESCRIPTION_CHARS,
        roots: MCPRoots = None,
        sampling_max_tokens: int = SAMPLING_MAX_TOKENS,
    ) -> MCPTools:
        """A server run as ``command args`` (in ``cwd``), spoken to over stdio.

        ``env`` adds variables to the few the SDK passes on (``PATH``,
        ``HOME``, ...): the server does not see the kernel's whole environment.
        ``trust_annotations=True`` lets the tools it marks read-only (and not
        destructive) run without asking: only for a server you trust.
        ``roots=True`` tells the server the notebook's folder is its to work
        in (``roots=[path, ...]``: those folders); by default it hears of none.
        """
        _require_mcp()
        if not isinstance(command, str) or not command:
            raise TypeError(f"MCPTools.stdio(command=...) must be a non-empty str, got {command!r}")
        if isinstance(args, str) or not all(isinstance(a, str) for a in args):
            raise TypeError(
                f"MCPTools.stdio(args=...) must be a list of str, got {args!r}"
                + (f": write args=[{args!r}]" if isinstance(args, str) else "")
            )
        transport = Stdio(command, args, env, None if cwd is None else str(cwd))
        return cls(
            transport,
            requires_approval=requires_approval,
            trust_annotations=trust_annotations,
            prefix=prefix,
            startup_timeout=startup_timeout,
            call_timeout=call_timeout,
            max_schema_bytes=max_schema_bytes,
            max_description_chars=max_description_chars,
            roots=roots,
            sampling_max_tokens=sampling_max_tokens,
        )

    @classmethod
    def http(
        cls,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        requires_approval: MCPApproval = None,
        trust_annotations: MCPTrust = False,
        prefix: str = "",
        startup_timeout: float = 30.0,
        call_timeout: float | None = None,
        max_schema_bytes: int = MAX_SCHEMA_BYTES,
        max_description_chars: int = MAX_DESCRIPTION_CHARS,
        roots: MCPRoots = None,
        sampling_max_tokens: int = SAMPLING_MAX_TOKENS,
        auth: MCPOAuth | None = None,
    ) -> MCPTools:
        """A server at ``url`` over streamable HTTP; ``headers`` go with every request.

        ``auth=gu.MCPOAuth(...)`` signs in with OAuth 2.1 (the MCP SDK's
        client): a person in a browser (``MCPOAuth(redirect)``), a program
        (``MCPOAuth.client_credentials(...)``) or an enterprise identity
        (``MCPOAuth.identity_assertion(...)``). The tokens are kept outside the
        notebook, refreshed without asking; ``sign_out()`` forgets them.
        """
        _require_mcp()
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise TypeError(f"MCPTools.http(url=...) must be an http(s) URL, got {url!r}")
        if auth is not None and not isinstance(auth, MCPOAuth):
            raise TypeError(f"MCPTools.http(auth=...) must be a gu.MCPOAuth, got {auth!r}")
        return cls(
            HTTP(url, headers, auth),
            requires_approval=requires_approval,
            trust_annotations=trust_annotations,
            prefix=prefix,
            startup_timeout=startup_timeout,
            call_timeout=call_timeout,
            max_schema_bytes=max_schema_bytes,
            max_description_chars=max_description_chars,
            roots=roots,
            sampling_max_tokens=sampling_max_tokens,
        )

    def __repr__(self) -> str:
        state = "closed" if self._closed else "connected" if self.connected else "not connected"
        return f"<MCPTools {self._transport.describe()} {state}>"

    @property
    def server(self) -> str:
        """The server, as errors name it: its command line or its URL."""
        return self._transport.describe()

    @property
    def display_name(self) -> str:
        """The server as cards name it: its own name, else its short command."""
        connection = self._connection
        return server_name(connection.server_info if connection else None, self._transport)

    def _card_server(self) -> dict[str, str]:
        """A request card's server: its name, and the full command for the details."""
        return {"server": self.display_name, "server_command": command_text(self._transport)}

    @property
    def connected(self) -> bool:
        connection = self._connection
        return connection is not None and connection.alive

    # --- connecting -----------------------------------------------------------------

    def _ensure_worker(self) -> Worker:
        with self._lock:
            if self._closed:
                raise MCPConnectionError(f"the MCP server {self.server} was closed")
            if self._worker is None:
                self._worker = Worker(self.server)
            return self._worker

    async def _start(self, restarting: bool = False) -> list[MCPTool]:
        """Open a connection (on the worker loop) and list the tools."""
        if self._connection is not None:
            await self._connection.close()
        connection = Connection(self._transport, self._session_options())
        self._connection = connection
        try:
            listed = await connection.ready(self._start_wait)
            session = connection.session
            if session is not None and not restarting:
                self._offers_resources, (self.starters, self.prompts) = await asyncio.wait_for(
                    asyncio.gather(offers_resources(session), read_prompts(session)),
                    self.startup_timeout,
                )
            return listed
        except Exception as exc:
            self._connection = None
            await connection.close()
            verb = "could not be restarted" if restarting else "failed to start"
            refused = self._transport.refused if isinstance(self._transport, HTTP) else None
            if refused is not None:  # a 401 with no auth=: say so, not "an error response"
                said = await unauthorized_text(self._transport.describe(), *refused)
                raise MCPConnectionError(self._failure(said)) from None
            if sign_in_failed(exc):
                verb = "could not sign in"
            why = (
                "it closed the connection before answering (did the process exit?)"
                if connection_lost(exc)
                else describe_error(exc)
            )
            raise MCPConnectionError(self._failure(f"{verb}: {why}")) from None

    @property
    def _start_wait(self) -> float:
        """How long a start may take: a person signing in gets ``SIGN_IN_SECONDS`` more."""
        auth = self._transport.auth if isinstance(self._transport, HTTP) else None
        if auth is not None and auth.grant == "authorization_code":
            return self.startup_timeout + SIGN_IN_SECONDS
        return self.startup_timeout

    def sign_out(self) -> bool:
        """Forget this server's OAuth tokens (their file and the connection's
        memory of them) and close the connection: the next call signs in
        again. Whether there were tokens kept to forget."""
        transport = self._transport
        if not isinstance(transport, HTTP) or transport.auth is None:
            return False
        worker = self._worker
        if worker is not None and self._connection is not None:
            worker.run(self._close_connection(), 15)
            self._signed_out = True
        return transport.forget_sign_in()

    def _session_options(self) -> dict[str, Any]:
        """The session's callbacks: what this client advertises and answers."""
        options: dict[str, Any] = {
            "logging_callback": self._logs,
            "message_handler": self._list_changes,
            "extensions": APP_EXTENSION,
        }
        if self._roots is not None:  # advertised only when the user allowed folders
            options["list_roots_callback"] = roots_callback(self._roots)
        options.update(self._requests.callbacks())  # sampling, elicitation: with a chat only
        return options

    def _failure(self, what: str) -> str:
        """``what`` happened to the server, with its stderr tail: for exceptions."""
        text = f"The MCP server {self.server} {what}"
        tail = self._transport.stderr_tail()
        return f"{text}. Its stderr ended with:\n{tail}" if tail else f"{text}."

    def _error(self, text: str) -> ToolError:
        """An error result naming the server, its stderr tail apart."""
        result: dict[str, Any] = {"error": f"The MCP server {self.server} {text}"}
        tail = self._transport.stderr_tail()
        if tail:
            result["stderr"] = tail
        return ToolError(result)

    async def connect(self) -> None:
        """Start the server and list its tools, without blocking the event loop.

        Optional: a chat built with these tools connects by itself, waiting
        for the listing. Raises ``MCPConnectionError`` naming the server.
        """
        if self._listed is not None and self.connected:
            return
        pending = self._signing_in
        if pending is not None and not pending.done():  # the card shown already
            await asyncio.wrap_future(pending)
            return
        worker = self._ensure_worker()
        self._listed = await worker.run_async(self._start())
        if pending is not None:  # a sign-in that failed before: the chat takes the tools now
            self._took_listing(self._listed)

    def as_tools(self) -> list[Tool]:
        """The server's tools as chat tools (connecting first, blocking, when
        ``connect()`` was not awaited)."""
        if self._closed:  # e.g. a second chat built after the first one closed
            raise MCPConnectionError(
                f"the MCP server {self.server} was closed with its chat: make a new gu.MCPTools"
            )
        with self._listing:
            tools, listed = self._tools, self._listed
        if tools is not None:
            return list(tools)
        if listed is None:
            listed = self._listed = self._list_or_sign_in(self._ensure_worker())
            if listed is None:  # the user signs in at the chat's card: its tools come then
                return []
        tools = self._make_tools(listed)
        with self._listing:
            if self._listed is listed:  # not replaced meanwhile by a newer listing
                self._tools = tools
        return list(tools)

    # --- signing in at the chat's card ----------------------------------------------

    def sign_in_with(self, desk: SignIns) -> None:
        """The chat that shows a sign-in card when the server asks for one
        (``auth=gu.MCPOAuth()`` without ``redirect``)."""
        transport = self._transport
        auth = transport.auth if isinstance(transport, HTTP) else None
        if auth is not None and auth.grant == "authorization_code" and auth.redirect is None:
            assert isinstance(transport, HTTP)
            transport.chat_sign_in = ChatSignIn(desk, server_name(None, transport))

    def _list_or_sign_in(self, worker: Worker) -> list[MCPTool] | None:
        """The tools listed, waiting (a chat is being built); or None when the
        server asked for a sign-in first: the card waits for the user while
        the chat is shown, and its tools join the chat's next model step."""
        transport = self._transport
        chat = transport.chat_sign_in if isinstance(transport, HTTP) else None
        if chat is None:
            return list(worker.run(self._start(), self._start_wait + 15))
        chat.asked.clear()
        started = asyncio.run_coroutine_threadsafe(self._start(), worker.loop)
        started.add_done_callback(lambda _: chat.asked.set())
        if not chat.asked.wait(self.startup_timeout + 15):
            started.cancel()
            raise MCPConnectionError(self._failure("failed to start: no answer in time"))
        if started.done():
            return list(started.result())
        self._signing_in = started
        started.add_done_callback(self._signed_in)
        return None

    def _signed_in(self, started: concurrent.futures.Future[list[MCPTool]]) -> None:
        """On the worker's thread: the sign-in at the card ended."""
        try:
            listed = started.result()
        except BaseException as exc:  # cancelled, refused: the card said so; the chat goes on
            logger.warning("%s", exc)
            return
        self._took_listing(listed)

    def _took_listing(self, listed: list[MCPTool]) -> None:
        with self._listing:
            self._listed, self._tools = listed, None
        self.changes += 1  # the chat's next model step has the tools

    async def _reread(self, kind: ListKind) -> None:
        """On the worker loop: a list of the server changed (``list_changed``);
        read it again. The chat sees it from its next model step (``changes``)."""
        connection = self._connection
        session = connection.session if connection is not None else None
        if session is None:
            return
        if kind == "tools":
            listed = await list_tools(session)
            with self._listing:
                self._listed, self._tools = listed, None
        elif kind == "prompts":
            self.starters, self.prompts = await read_prompts(session)
        else:
            offers = await offers_resources(session)
            with self._listing:
                self._offers_resources, self._tools = offers, None
        self.changes += 1
        logger.info("the %s of the MCP server %s changed: read again", kind, self.server)
        for watcher in list(self._watchers):
            try:
                watcher(kind)
            except Exception:  # one failing watcher must not stop the others
                logger.exception("a watcher of the MCP server %s failed", self.server)

    def watch(self, watcher: Callable[[ListKind], None]) -> Callable[[], None]:
        """Call ``watcher(kind)`` each time a list of the server was read again
        after a ``list_changed`` ("tools", "prompts", "resources"), on the
        connection's own thread (hand it over to your loop); returns the
        function that stops it."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _make_tools(self, listed: list[MCPTool]) -> list[Tool]:
        offered = {t.name for t in listed}
        reads = self._offers_resources and READ_RESOURCE not in offered
        if reads:
            offered.add(READ_RESOURCE)
        if not self.changes:  # later, a server dropping a named tool is no typo of the user's
            self._check_names("requires_approval", self.requires_approval, offered)
            self._check_names("trust_annotations", self.trust_annotations, offered)
        self.skipped = {}
        self._task_tools = set()
        session = self._connection.session if self._connection is not None else None
        runs_tasks = session is not None and runs_tool_tasks(session.server_capabilities)
        tools: list[Tool] = []
        for listed_tool in listed:
            name = self.prefix + listed_tool.name
            annotations = (
                listed_tool.annotations.model_dump(exclude_none=True)
                if listed_tool.annotations is not None
                else {}
            )
            repeatable = annotations.get("read_only_hint") or annotations.get("idempotent_hint")
            if repeatable and self._trusts(listed_tool.name):
                self._repeatable.add(listed_tool.name)
            app = app_tool(listed_tool)
            self._apps[listed_tool.name] = (app, self._asks(listed_tool.name, annotations))
            if not app.for_model:  # visibility ["app"]: its app calls it, the model never sees it
                continue
            refused = self._refusal(name, listed_tool, runs_tasks)
            if refused is not None:
                self.skipped[listed_tool.name] = refused
                continue
            if runs_as_task(listed_tool):
                self._task_tools.add(listed_tool.name)
            # untrusted text from the server: it describes the tool, in its schema only
            description = clean_text(listed_tool.description or listed_tool.title or "")
            try:
                tool = Tool.from_json_schema(
                    name,
                    listed_tool.input_schema,
                    self._caller(listed_tool.name),
                    description=description,
                    requires_approval=self._asks(listed_tool.name, annotations),
                )
            except ToolDefinitionError as exc:
                self.skipped[listed_tool.name] = str(exc)
                continue
            tool.approval_note = _server_claims(self.display_name, annotations)
            tools.append(tool)
        if reads:
            tools.append(self._read_resource_tool())
        for skipped, why in self.skipped.items():
            logger.warning("MCP tool %s of %s left out: %s", skipped, self.server, why)
        return tools

    def _read_resource_tool(self) -> Tool:
        """``read_resource``: what a tool's resource link points at, read from the server."""
        self._repeatable.add(_READS)
        tool = Tool.from_json_schema(
            self.prefix + READ_RESOURCE,
            READ_RESOURCE_SCHEMA,
            self._caller(_READS),
            description=READ_RESOURCE_DESCRIPTION,
            requires_approval=self._asks(READ_RESOURCE, {"read_only_hint": True}),
        )
        tool.approval_note = "Reads a resource of this server: what it holds reaches the model."
        return tool

    def _check_names(self, option: str, names: Any, offered: set[str]) -> None:
        """A name the server does not offer is a typo that would misplace a decision."""
        if isinstance(names, Collection) and not isinstance(names, str):
            unknown = sorted(set(names) - offered)
            if unknown:
                raise ValueError(
                    f"MCPTools({option}=...) names tools the server {self.server} "
                    f"does not offer: {', '.join(unknown)} (it offers {', '.join(sorted(offered))})"
                )

    def _refusal(self, name: str, listed_tool: MCPTool, runs_tasks: bool) -> str | None:
        """Why the chat leaves this tool out, if it does: the checks every tool
        from outside passes, then whether the chat can call it at all."""
        refused = foreign_tool_refusal(
            name,
            listed_tool.input_schema,
            listed_tool.description or listed_tool.title or "",
            max_schema_bytes=self.max_schema_bytes,
            max_description_chars=self.max_description_chars,
        )
        return refused if refused is not None else task_refusal(listed_tool, runs_tasks)

    def _trusts(self, name: str) -> bool:
        """Whether the user believes what the server says about tool ``name``."""
        trust = self.trust_annotations
        return trust if isinstance(trust, bool) else name in trust

    def _asks(self, name: str, annotations: dict[str, Any]) -> bool:
        rule = self.requires_approval
        if rule is None:  # claims decide only when the user trusts them
            harmless = (
                annotations.get("read_only_hint") is True
                and annotations.get("destructive_hint") is not True
            )
            return not (harmless and self._trusts(name))
        if isinstance(rule, bool):
            return rule
        if callable(rule):
            return bool(rule(name, dict(annotations)))
        return name in rule

    # --- calling ---------------------------------------------------------------------

    def answer_requests_with(self, requests: Any) -> None:
        """The chat (its runtime's ``ServerRequests``) that answers the server's
        sampling and elicitation requests: advertised from the next connection
        on (a connection opened before, by ``connect()``, is opened again)."""
        had = self._requests.answers
        self._requests.requests = requests
        if not had and self._connection is not None and self._worker is not None:
            self._listed = self._worker.run(self._start(), self._start_wait + 15)

    def _caller(self, name: str) -> Callable[[dict[str, Any]], Any]:
        async def call(arguments: dict[str, Any]) -> Any:
            worker = self._worker
            if worker is None or self._closed:
                raise ToolError({"error": f"the MCP server {self.server} was closed"})
            flight = self._requests.started(self.prefix + name)  # where its requests show
            try:
                # the call's card hears the server's progress and log lines
                return await worker.run_async(self._call(name, arguments, current_report()))
            finally:
                self._requests.ended(flight)

        call.__name__ = READ_RESOURCE if name == _READS else name
        return call

    async def _call(
        self, name: str, arguments: dict[str, Any], report: CallReport | None = None
    ) -> Any:
        """On the worker loop: call ``name``, restarting a dead server once."""
        if report is not None:
            self._logs.running[id(report)] = report
        try:
            return await self._call_once_restarted(name, arguments, report)
        finally:
            self._logs.running.pop(id(report), None)

    async def _call_once_restarted(
        self, name: str, arguments: dict[str, Any], report: CallReport | None
    ) -> Any:
        shown = READ_RESOURCE if name == _READS else name  # as errors name it
        restarted = False
        async with self._restarting:  # a restart under way (a parallel call's) ends first
            connection = self._connection
        if connection is None or not connection.alive or not await self._answers(connection):
            await self._restart(f"stopped before {shown} was called", connection)
            restarted = True
        used = self._connection
        try:
            return await self._send(used, name, arguments, report)
        except ToolError:
            raise
        except Exception as exc:
            if not connection_lost(exc):
                raise ToolError(
                    {"error": f"{shown} failed on the MCP server: {describe_error(exc)}"}
                ) from None
            if restarted:
                raise self._error(
                    f"stopped during the call to {shown}, just after a restart."
                ) from None
            stopped = self._error(f"stopped during the call to {shown}.")
        await self._restart(f"stopped during the call to {shown}", used)
        if name not in self._repeatable:  # it may have acted: the model decides what now
            stopped.result["error"] += (
                " It was restarted; the call was not repeated because it may have changed "
                "something before the server stopped."
            )
            raise stopped
        try:
            return await self._send(self._connection, name, arguments, report)
        except ToolError:
            raise
        except Exception as exc:
            what = "stopped again" if connection_lost(exc) else f"failed: {describe_error(exc)}"
            raise self._error(f"was restarted, then {shown} {what}.") from None

    async def _answers(self, connection: Connection) -> bool:
        """Whether the server answers a ping (a dead one is found before the call)."""
        session = connection.session
        if session is None:
            return False
        try:
            await asyncio.wait_for(session.send_ping(), 10)
        except Exception as exc:
            return not connection_lost(exc) and not isinstance(exc, TimeoutError)
        return True

    async def _restart(self, why: str, dead: Connection | None) -> None:
        """Start the server again unless a parallel call already replaced ``dead``."""
        async with self._restarting:
            if self._connection is not dead and self._connection is not None:
                return  # restarted by a call that found it dead first
            if self._closed:
                raise ToolError({"error": f"the MCP server {self.server} was closed"})
            if self._signed_out:  # closed on purpose: this call signs in again, no restart
                self._signed_out = False
            else:
                logger.warning("MCP server %s %s: restarting it", self.server, why)
                self.restarts += 1
            try:
                await self._start(restarting=True)
            except MCPConnectionError as exc:
                raise ToolError({"error": f"The MCP server {self.server} {why}. {exc}"}) from None
        # the new process may list other tools, prompts or resources than the one
        # that died: read as after a list_changed (the chat's next step has them)
        for kind in LIST_KINDS:
            self._list_changes.read(kind)

    async def _send(
        self,
        connection: Connection | None,
        name: str,
        arguments: dict[str, Any],
        report: CallReport | None = None,
    ) -> Any:
        session = connection.session if connection is not None else None
        if session is None:
            raise ToolError({"error": f"the MCP server {self.server} is not connected"})
        if name == _READS:
            read = session.read_resource(str(arguments.get("uri", "")))
            return read_result(await asyncio.wait_for(read, self.call_timeout))
        if name in self._task_tools:  # its status on the card, Stop cancels it
            raw = await run_as_task(
                session.send_raw,  # type: ignore[attr-defined]
                name,
                {"name": name, "arguments": arguments},
                timeout=self.call_timeout,
                report=report,
            )
            from mcp.types import CallToolResult

            return result_value(CallToolResult.model_validate(raw, by_name=False))
        app = self._apps.get(name)
        shows = app is not None and app[0].resource_uri is not None  # its app shows in the card
        call_id = CALL_ID.set(new_call_id() if shows else None)
        try:
            result = await session.call_tool(
                name,
                arguments,
                read_timeout_seconds=self.call_timeout,
                progress_callback=progress_callback(report),
            )
            request_id = CALL_ID.get()
        finally:
            CALL_ID.reset(call_id)
        # a list the call changed (its list_changed came before its result) is
        # read again before the result returns: the run's next step has it
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._list_changes.settled(), LIST_CHANGE_WAIT)
        if app is not None and request_id is not None:
            server = {"id": self.display_name, "hash": server_hash(self._transport)}
            return await app_view(self._app_resources, session, app[0], result, server, request_id)
        return result_value(result)

    # --- prompts with arguments ------------------------------------------------------

    def _prompt(self, name: str) -> MCPPrompt:
        for prompt in self.prompts:
            if prompt.name == name:
                return prompt
        raise ValueError(f"the MCP server {self.server} offers no prompt {name!r} with arguments")

    async def _on_session(self, work: Callable[[Any], Any]) -> Any:
        worker, connection = self._worker, self._connection
        if worker is None or self._closed or connection is None or connection.session is None:
            raise MCPConnectionError(f"the MCP server {self.server} is not connected")
        return await worker.run_async(work(connection.session))

    async def fill_prompt(self, name: str, arguments: Mapping[str, str]) -> str:
        """The text of the prompt ``name`` (one of ``prompts``) with the user's
        ``arguments`` (argument name -> text), for the chat to send as the
        user's message. ``ValueError`` for an unknown prompt or argument, or
        a required one missing."""
        prompt = self._prompt(name)
        return str(await self._on_session(lambda session: fill_prompt(session, prompt, arguments)))

    async def complete(
        self,
        name: str,
        argument: str,
        value: str = "",
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """The server's suggestions (``completion/complete``) for ``argument``
        of the prompt ``name`` as typed so far (``value``); ``context``: the
        arguments filled already. Empty when the server offers no completions."""
        prompt = self._prompt(name)
        work = lambda session: complete_argument(session, prompt, argument, value, context)  # noqa: E731
        return list(await self._on_session(work))

    def app_specs(self) -> dict[str, dict[str, Any]]:
        """The apps of the tools the model may call: tool name (with
        ``prefix``) -> ``{uri, html, csp}``, read now (once per server), so a
        card shows its app while the call's arguments still stream."""
        worker, connection = self._worker, self._connection
        if worker is None or connection is None or connection.session is None:
            return {}
        wanted = {
            self.prefix + name: app
            for name, (app, _) in self._apps.items()
            if app.resource_uri is not None and app.for_model
        }
        return worker.run(self._app_resources.specs(connection.session, wanted), 30)

    async def app_request(self, method: str, params: Any, approved: bool) -> Any:
        """An app's request (``tools/call``, ``resources/read``) to this server;
        ``approved``: the user said yes to this very request."""
        worker = self._worker
        connection = self._connection
        if worker is None or self._closed or connection is None or connection.session is None:
            raise ValueError(f"the MCP server {self.server} is not connected")
        reads_ask = self._asks(READ_RESOURCE, {"read_only_hint": True})
        request = app_request(self._apps, reads_ask, connection.session, method, params, approved)
        return await worker.run_async(request)

    # --- closing ----------------------------------------------------------------------

    def close(self) -> None:
        """End the connection (a stdio server's process ends). Idempotent; a
        closed MCPTools refuses further calls with an error result."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            worker, self._worker = self._worker, None
        if worker is None:
            return
        try:
            worker.run(self._close_connection(), 15)
        except Exception:
            logger.warning("closing the MCP server %s failed", self.server, exc_info=True)
        finally:
            worker.stop()

    async def _close_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()


_CLAIMS = {
    "read_only_hint": ("read-only", "may change things"),
    "destructive_hint": ("destructive", "not destructive"),
    "idempotent_hint": ("idempotent", "not idempotent"),
    "open_world_hint": ("reaches outside systems", "closed world"),
}


def _server_claims(server: str, annotations: Mapping[str, Any]) -> str:
    """The approval card's line: what the server says about a tool (never checked)."""
    said = [
        yes if annotations[hint] else no
        for hint, (yes, no) in _CLAIMS.items()
        if isinstance(annotations.get(hint), bool)
    ]
    if not said:
        return f"The server {server} says nothing about what this tool changes."
    return f"The server {server} says: {', '.join(said)} (not verified)."


def _check_trust(trust: Any) -> None:
    if isinstance(trust, bool):
        return
    names = isinstance(trust, Collection) and not isinstance(trust, str | bytes | Mapping)
    if names and all(isinstance(name, str) for name in trust):
        return
    raise TypeError(
        "MCPTools(trust_annotations=...) must be True, False or a collection of the tool "
        f"names whose annotations you trust, got {trust!r}"
    )


def _check_approval(rule: Any) -> None:
    if rule is None or isinstance(rule, bool) or callable(rule):
        return
    names = isinstance(rule, Collection) and not isinstance(rule, str | bytes | Mapping)
    if names and all(isinstance(name, str) for name in rule):  # server tool names
        return
    raise TypeError(
        "MCPTools(requires_approval=...) must be None (ask unless trusted read-only), True, False, "
        f"a collection of tool names or a function (name, annotations) -> bool, got {rule!r}"
    )
