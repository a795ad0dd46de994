"""The browser -> kernel side of ``gu.Chat``: one handler per browser message.

Clicks arrive as custom messages: validated (:mod:`._protocol`), hopped onto
the kernel's event loop (comm handlers may run on another thread with
JupyterLab ≥ 4.4 and ipykernel ≥ 7), then applied to the runtime. A message
that changes nothing is answered with ``{"type": "error"}``, never raised.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from .._internal.sanitize import json_safe
from ..data.attachments import data_attachment
from ..messages import Thread
from . import _notebook_data as notebook_data
from ._protocol import (
    A2UIActionMsg,
    AlwaysMsg,
    ApproveMsg,
    CancelMsg,
    ChooseModelMsg,
    CompleteMsg,
    ComponentStateMsg,
    DataPick,
    DataWindowMsg,
    EditMsg,
    FeedbackMsg,
    HelloMsg,
    LoadModuleMsg,
    McpAppMsg,
    NewThreadMsg,
    ProtocolError,
    RegenerateMsg,
    RejectMsg,
    RenameThreadMsg,
    RetryMsg,
    RevokeAlwaysMsg,
    SendMsg,
    SignInMsg,
    StarterFormMsg,
    SuggestionMsg,
    SwitchBranchMsg,
    SwitchThreadMsg,
    ToolResultMsg,
    TranscriptMsg,
    accepted_message,
    error_message,
    module_message,
    parse_client_message,
    transcript_message,
    uploads_for_runtime,
)
from ._sync import SyncedView, ViewSync, current_loop, send_safely
from .static_files import lazy_module_source

if TYPE_CHECKING:
    from ..runtime import Runtime
    from ._mcp_apps import AppBridge
    from ._sign_ins import SignInCards
    from ._starter_forms import StarterForms
    from .components import ComponentBridge

log = logging.getLogger(__name__)

_WITHOUT_LOOP: frozenset[type[BaseModel]] = frozenset(
    {
        HelloMsg,
        LoadModuleMsg,
        ComponentStateMsg,
        A2UIActionMsg,
        DataWindowMsg,
        McpAppMsg,
        SignInMsg,
    }
)
"""Browser messages handled with no event loop running: they start or resume
no run (the bridges' own messages answer or refuse by themselves)."""


class ClientHandlers:
    """What a chat does with each message its views send.

    ``on_comm_msg`` is the chat's comm handler (``Chat.on_msg``); the chat's
    traits are read on ``chat``, what it answers goes out through ``send``
    (ipywidgets' custom message), clicks go to ``runtime``, a shown
    component's or app's messages to its bridge, and ``sync`` answers
    ``hello`` and refreshes the ``@`` menu after a send."""

    def __init__(
        self,
        chat: SyncedView,
        runtime: Runtime,
        sync: ViewSync,
        components: ComponentBridge,
        apps: AppBridge,
        send: Callable[[Any], Any],
        forms: StarterForms,
        sign_ins: SignInCards | None = None,
    ) -> None:
        self._chat = chat
        self._runtime = runtime
        self._sync = sync
        self._components = components
        self._apps = apps
        self._send = send
        self._forms = forms
        self._sign_ins = sign_ins

    def on_comm_msg(self, _widget: Any, content: Any, buffers: Any) -> None:
        """Comm handler: may run on a subshell thread; never raises."""
        try:
            buffers = list(buffers or [])  # a send's attached files
            loop = self._sync.loop
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._dispatch, content, buffers)
            else:
                self._dispatch(content, buffers)
        except Exception:
            log.exception("ipygenui widget could not schedule a frontend message")

    def _dispatch(self, content: Any, buffers: list[Any] | None = None) -> None:
        """Apply one frontend message on the kernel loop; answer errors.

        One validation for every message (``parse_client_message``: the whole
        message against its model), then its handler from ``_HANDLERS``."""
        if isinstance(content, dict) and content.get("kind") == "anywidget-command":
            return  # anywidget's own RPC, answered by its handler
        # A lone surrogate ("\ud83d" in the browser's JSON) would fail validation
        # and lose what the user typed: it becomes U+FFFD, as everywhere else.
        content = json_safe(content)
        try:
            msg = parse_client_message(content)
            if type(msg) not in _WITHOUT_LOOP and current_loop() is None:
                # the runtime would keep the run until an await that never comes
                raise ProtocolError(
                    "no event loop runs for this chat: it cannot start or resume a run"
                )
            self._HANDLERS[type(msg)](self, msg, buffers or [])
        except (
            ProtocolError,
            ValueError,
            KeyError,
            TypeError,
            RuntimeError,
            OSError,
            ImportError,
        ) as exc:
            self._error(str(exc) or type(exc).__name__, content)
        except Exception as exc:
            log.exception("ipygenui widget failed on a frontend message")
            self._error(f"{type(exc).__name__}: {exc}", content)

    # One handler per browser message (``_HANDLERS`` maps each model to its
    # handler); each takes the parsed message and the comm's binary buffers.

    def _on_hello(self, msg: HelloMsg, buffers: list[Any]) -> None:
        self._sync.snapshot()

    def _on_load_module(self, msg: LoadModuleMsg, buffers: list[Any]) -> None:
        try:
            self._send(module_message(msg.name, lazy_module_source(msg.name)))
        except OSError as exc:  # the view keeps showing code plain
            self._send(module_message(msg.name, error=str(exc)))

    def _on_send(self, msg: SendMsg, buffers: list[Any]) -> None:
        self.start(msg.text, self._attachments(msg, buffers))
        # The view clears its box only now: a refused send keeps the text.
        self._send(accepted_message(msg.ref))

    def _on_suggestion(self, msg: SuggestionMsg, buffers: list[Any]) -> None:
        if msg.text not in self._chat.suggestions:
            raise ProtocolError("that suggestion is no longer offered")
        self.start(msg.text)

    # A starter's form: its server fills the prompt (then it is sent) and
    # completes its fields (``_starter_forms.py``).

    def _on_starter_form(self, msg: StarterFormMsg, buffers: list[Any]) -> None:
        self._forms.submit(msg)

    def _on_complete(self, msg: CompleteMsg, buffers: list[Any]) -> None:
        self._forms.complete(msg)

    def _on_approve(self, msg: ApproveMsg | AlwaysMsg, buffers: list[Any]) -> None:
        always = msg.type == "always"
        self._runtime.approve(msg.tool_call_id, args=msg.args, always=always, by="user")

    def _on_reject(self, msg: RejectMsg, buffers: list[Any]) -> None:
        self._runtime.reject(msg.tool_call_id, reason=msg.reason, by="user")

    def _on_revoke_always(self, msg: RevokeAlwaysMsg, buffers: list[Any]) -> None:
        if msg.tool_name not in self._runtime.always_allowed:
            raise ProtocolError(f"{msg.tool_name} is not always allowed in this chat")
        self._runtime.revoke_always(msg.tool_name)

    def _on_tool_result(self, msg: ToolResultMsg, buffers: list[Any]) -> None:
        self._runtime.add_tool_result(msg.tool_call_id, msg.result)

    def _on_cancel(self, msg: CancelMsg, buffers: list[Any]) -> None:
        if not self._runtime.running and self._runtime.phase != "waiting":
            raise ProtocolError("nothing to stop: no run is streaming")
        self._runtime.cancel()

    def _on_retry(self, msg: RetryMsg, buffers: list[Any]) -> None:
        if self._runtime.running:
            raise ProtocolError("a run is streaming: stop it before retrying")
        self._held(self._runtime.retry)

    # The conversation controls: versions of a message, ratings, threads. The
    # runtime checks the ids (an unknown one raises a clear error, which the
    # view shows) and stops a streaming run first where it must.

    def _held(self, change: Callable[..., Any], *args: Any) -> None:
        """``change`` the messages shown in one update (as ``gu.Chat``'s own
        methods do): a reply leaving and its new version arrive together."""
        with self._chat.hold_sync():
            change(*args)

    def _on_edit(self, msg: EditMsg, buffers: list[Any]) -> None:
        self._held(self._runtime.edit, msg.message_id, msg.text)
        # The view's editor closes only now: a refused edit keeps the text.
        self._send(accepted_message(msg.ref, "edit"))

    def _on_regenerate(self, msg: RegenerateMsg, buffers: list[Any]) -> None:
        self._held(self._runtime.regenerate, msg.message_id)

    def _on_switch_branch(self, msg: SwitchBranchMsg, buffers: list[Any]) -> None:
        self._held(self._runtime.switch_branch, msg.message_id, msg.index)

    def _on_feedback(self, msg: FeedbackMsg, buffers: list[Any]) -> None:
        self._runtime.feedback(msg.message_id, msg.rating)

    def _on_new_thread(self, msg: NewThreadMsg, buffers: list[Any]) -> None:
        self._held(self._runtime.new_thread)

    def _on_switch_thread(self, msg: SwitchThreadMsg, buffers: list[Any]) -> None:
        self._held(self._runtime.switch_thread, msg.thread_id)

    def _on_rename_thread(self, msg: RenameThreadMsg, buffers: list[Any]) -> None:
        self._runtime.rename_thread(msg.thread_id, msg.title)

    def _on_choose_model(self, msg: ChooseModelMsg, buffers: list[Any]) -> None:
        # untrusted: only a model this chat lists, made now (its error is shown)
        if msg.model not in self._runtime.models:
            raise ProtocolError(f"the model {msg.model[:80]!r} is not offered in this chat")
        self._runtime.model = msg.model

    def _on_transcript(self, msg: TranscriptMsg, buffers: list[Any]) -> None:
        rt = self._runtime
        send_safely(self._send, transcript_message(rt.to_markdown(), _transcript_name(rt.thread)))

    # What a shown component or MCP app sends goes to its bridge.

    def _on_component_state(self, msg: ComponentStateMsg, buffers: list[Any]) -> None:
        self._components.set_state(msg)

    def _on_a2ui_action(self, msg: A2UIActionMsg, buffers: list[Any]) -> None:
        self._components.a2ui_action(msg)

    def _on_data_window(self, msg: DataWindowMsg, buffers: list[Any]) -> None:
        self._components.answer_window(msg)

    def _on_mcp_app(self, msg: McpAppMsg, buffers: list[Any]) -> None:
        self._apps.answer(msg)

    def _on_sign_in(self, msg: SignInMsg, buffers: list[Any]) -> None:
        if self._sign_ins is None:
            raise ProtocolError("this chat shows no sign-in")
        self._sign_ins.answer(msg)

    _HANDLERS: ClassVar[dict[type[BaseModel], Callable[[ClientHandlers, Any, list[Any]], None]]] = {
        HelloMsg: _on_hello,
        LoadModuleMsg: _on_load_module,
        SendMsg: _on_send,
        SuggestionMsg: _on_suggestion,
        ApproveMsg: _on_approve,
        AlwaysMsg: _on_approve,
        RejectMsg: _on_reject,
        RevokeAlwaysMsg: _on_revoke_always,
        ToolResultMsg: _on_tool_result,
        CancelMsg: _on_cancel,
        RetryMsg: _on_retry,
        EditMsg: _on_edit,
        RegenerateMsg: _on_regenerate,
        SwitchBranchMsg: _on_switch_branch,
        FeedbackMsg: _on_feedback,
        NewThreadMsg: _on_new_thread,
        SwitchThreadMsg: _on_switch_thread,
        RenameThreadMsg: _on_rename_thread,
        ChooseModelMsg: _on_choose_model,
        TranscriptMsg: _on_transcript,
        ComponentStateMsg: _on_component_state,
        A2UIActionMsg: _on_a2ui_action,
        DataWindowMsg: _on_data_window,
        McpAppMsg: _on_mcp_app,
        SignInMsg: _on_sign_in,
        StarterFormMsg: _on_starter_form,
        CompleteMsg: _on_complete,
    }
    """The handler of each browser message (``_protocol.CLIENT_MESSAGES``; a
    test checks that every one has its handler)."""

    def start(self, text: str, attachments: list[Any] | None = None) -> None:
        """Send ``text`` as the user's message (a run starts); refused while one streams."""
        if self._runtime.running:
            raise ProtocolError("a run is already streaming: wait for it or stop it")
        # a background task; its errors end up in the message (a bad attachment
        # raises here, before anything is sent: the view keeps the text)
        self._runtime.send(text, attachments or None)
        self._sync.refresh_data_names()

    def _attachments(self, msg: SendMsg, buffers: list[Any]) -> list[Any]:
        """The send's uploads as parts or files; a picked name must be in the data."""
        out: list[Any] = []
        for item in uploads_for_runtime(msg, buffers):
            if isinstance(item, DataPick):
                try:
                    notebook_data.pick_from_notebook(self._runtime.data, item.name)
                    out.append(data_attachment(self._runtime.data, item.name))
                except KeyError as exc:  # UnknownReference says which names there are
                    raise ProtocolError(str(exc)) from None
            else:
                out.append(item)
        return out

    def _error(self, text: str, content: Any) -> None:
        try:
            send_safely(self._send, error_message(text, content))
        except Exception:
            log.exception("ipygenui widget could not send an error to the frontend")


def _transcript_name(thread: Thread) -> str:
    """A file name for the thread's transcript: its title, in safe characters."""
    title = thread.title or next((m.text for m in thread.messages if m.role == "user"), "")
    slug = "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())[:60]
    return f"{slug or 'chat'}.md"
