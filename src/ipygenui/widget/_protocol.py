"""The wire contract between the kernel and the browser, defined once, here.

Every custom message of the chat widget is a pydantic model below; the
browser's side of the contract (``js/src/protocol-wire.generated.js``: the
message types, a builder per browser message, a validator per kernel
message, the patch ops, the limit keys) is generated from these models by
``make protocol`` (:mod:`._wire_codegen`), and a test fails when that file is
stale. ``tests/fixtures/wire.json`` holds examples both test suites replay.

Browser -> kernel: custom messages, untrusted. They may be malformed,
unknown, late (a second click on a call already decided) or from an old
version of the frontend. :func:`parse_client_message` turns a raw comm
payload into one of the typed messages below (:data:`CLIENT_MESSAGES`) or
raises :class:`ProtocolError` with a sentence a user can read; the widget
answers such errors, it never raises them. Limits never strand a call: a
tool_call id has no length limit of its own (the kernel put it in the
thread, the runtime looks it up there and refuses an unknown one), only the
message text has one.

Kernel -> browser: the models of :data:`SERVER_MESSAGES`, built by the
constructors below (``frame_message``, ``snapshot_message``, ...) as plain
dicts (an optional field goes on the wire only when set), and messages in
their wire form (:func:`message_for_browser`, :func:`ops_for_browser`): the
patch ops of ``ipygenui._internal.patch_ops``, with the names the browser
needs but must not derive itself (which calls show or update a component,
its id).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
    with_config,
)
from typing_extensions import TypedDict  # pydantic reads these (the wire's schema) on 3.11

from .._internal.patch_ops import (
    AddPartOp,
    AppendOp,
    PatchOp,
    SetOp,
    add_part_op,
    append_op,
    set_op,
)
from .._internal.standard_params import STANDARD_PARAMETERS
from ..data.attachments import FileAttachment
from ..messages import Message, ToolCallPart
from ..tools.component_names import component_id_of, component_name_of, update_of

__all__ = [
    "CLIENT_MESSAGES",
    "MAX_ATTACHMENTS",
    "MAX_ERROR",
    "MAX_FIELD_CHARS",
    "MAX_FILTER",
    "MAX_FORM_FIELDS",
    "MAX_REF",
    "MAX_SUGGESTIONS",
    "MAX_TEXT",
    "MAX_TITLE",
    "MAX_UPLOAD_BYTES",
    "MAX_WINDOW",
    "SERVER_MESSAGES",
    "STANDARD_PARAM_NAMES",
    "WIRE_LIMITS",
    "A2UIActionMsg",
    "AcceptedMessage",
    "AddPartOp",
    "AlwaysMsg",
    "AppendOp",
    "ApproveMsg",
    "CancelMsg",
    "ChooseModelMsg",
    "ClientMessage",
    "CompleteMsg",
    "CompletionMessage",
    "ComponentCall",
    "ComponentOutputMessage",
    "ComponentOutputRef",
    "ComponentStateMsg",
    "DataPick",
    "DataWindowMessage",
    "DataWindowMsg",
    "EditMsg",
    "ErrorMessage",
    "FeedbackMsg",
    "FileUpload",
    "FrameMessage",
    "HelloMsg",
    "LoadModuleMsg",
    "McpAppError",
    "McpAppMessage",
    "McpAppMsg",
    "ModuleMessage",
    "NewThreadMsg",
    "Patch",
    "PatchOp",
    "ProtocolError",
    "RegenerateMsg",
    "RejectMsg",
    "RenameThreadMsg",
    "RetryMsg",
    "RevokeAlwaysMsg",
    "SendMsg",
    "ServerMessage",
    "SetOp",
    "SignInMsg",
    "SnapshotItem",
    "SnapshotMessage",
    "StarterFormMsg",
    "SuggestionMsg",
    "SwitchBranchMsg",
    "SwitchThreadMsg",
    "ToBrowser",
    "ToolResultMsg",
    "TranscriptMessage",
    "TranscriptMsg",
    "Upload",
    "accepted_message",
    "add_part_op",
    "append_op",
    "completion_message",
    "component_call",
    "component_output_message",
    "data_window_message",
    "error_message",
    "frame_message",
    "mcp_app_message",
    "message_for_browser",
    "message_type",
    "module_message",
    "ops_for_browser",
    "parse_client_message",
    "set_op",
    "snapshot_message",
    "transcript_message",
    "uploads_for_runtime",
]

MAX_TEXT = 1_000_000
"""Longest message text accepted from the browser (characters): about 250,000
tokens, beyond the context of the models we know, so a longer paste is a
mistake, refused with a clear error (the view keeps the text in the box)."""

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""Largest file the browser may attach (the browser checks it first: ``WIRE_LIMITS``)."""

MAX_ATTACHMENTS = 10
"""Attachments of one message sent from the browser."""

MAX_REF = 64
"""Longest ``ref`` a view may tag a send with (it is echoed back)."""

MAX_ID = 200
"""Longest id or name the browser sends to name something of the kernel's (a
message, a thread, a tool, a listed model, an A2UI surface or component)."""

MAX_UPLOAD_NAME = 255
"""Longest name of an upload (a file's name or MIME type, a data name)."""

ToolCallId = Annotated[str, Field(min_length=1)]
Ref = Annotated[str, Field(max_length=MAX_REF)]
Id = Annotated[str, Field(min_length=1, max_length=MAX_ID)]
UploadName = Annotated[str, Field(min_length=1, max_length=MAX_UPLOAD_NAME)]


class ProtocolError(ValueError):
    """A frontend message that cannot be acted on."""


class _Msg(BaseModel):
    """A browser -> kernel message (its ``type`` field names it on the wire)."""

    # defer_build: the validators are built at the first click, not when a chat starts
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


_ONLY_IF_FILLED: dict[str, JsonValue] = {"x-only-if-filled": True}
"""Marks a field the browser leaves out when it is empty (a list) or blank (a
text): the generated builder omits it, the model's default stands in."""


class FileUpload(_Msg):
    """A file the user attached in the browser: its bytes are the message's
    binary buffer number ``buffer`` (the comm carries them unencoded)."""

    kind: Literal["file"]
    name: UploadName
    mime: Annotated[str, Field(max_length=MAX_UPLOAD_NAME)] = ""
    size: Annotated[int, Field(ge=0, le=MAX_UPLOAD_BYTES)]
    buffer: Annotated[int, Field(ge=0, lt=MAX_ATTACHMENTS)]


class DataPick(_Msg):
    """An object of the chat's data the user picked in the ``@`` menu."""

    kind: Literal["data"]
    name: UploadName


Upload = Annotated[FileUpload | DataPick, Field(discriminator="kind")]


class SendMsg(_Msg):
    """The composer's text; ``ref`` tags it so only this view's answer clears
    the box. ``attachments``: files (their bytes are the message's binary
    buffers) and picks of the chat's data."""

    type: Literal["send"]
    text: Annotated[str, Field(max_length=MAX_TEXT)]
    ref: Ref | None = None
    """The view's tag for this send: the answer (``accepted`` or ``error``)
    carries it, so the view that sent it clears its box only once taken."""
    attachments: Annotated[
        list[Upload], Field(max_length=MAX_ATTACHMENTS, json_schema_extra=_ONLY_IF_FILLED)
    ] = []

    @model_validator(mode="after")
    def _something_to_send(self) -> SendMsg:
        if not self.text.strip() and not self.attachments:
            raise ValueError("a message needs text or an attachment")
        return self


class ApproveMsg(_Msg):
    """Approve a call; ``args``: the arguments as the user edited them."""

    type: Literal["approve"]
    tool_call_id: ToolCallId
    args: dict[str, JsonValue] | None = None
    """Arguments edited by the user before approving (None: as the model wrote them)."""


class AlwaysMsg(_Msg):
    """Approve, and approve this tool without asking for the rest of the chat."""

    type: Literal["always"]
    tool_call_id: ToolCallId
    args: dict[str, JsonValue] | None = None


class RejectMsg(_Msg):
    """Reject a call; ``reason``: what the user said, for the model."""

    type: Literal["reject"]
    tool_call_id: ToolCallId
    reason: Annotated[str, Field(max_length=MAX_TEXT)] | None = None


class RevokeAlwaysMsg(_Msg):
    """Take back an "always allow" grant: the tool's next calls ask again.
    The only grant message the browser has: it can take trust away, never
    give it (a grant comes only with the user's approval of a call)."""

    type: Literal["revoke_always"]
    tool_name: Id


class ToolResultMsg(_Msg):
    """The user's answer to a human tool."""

    type: Literal["tool_result"]
    tool_call_id: ToolCallId
    result: JsonValue


class CancelMsg(_Msg):
    """Stop the run that streams (or waits)."""

    type: Literal["cancel"]


class RetryMsg(_Msg):
    """Run the last turn again (after an error or a stop)."""

    type: Literal["retry"]


class SuggestionMsg(_Msg):
    """A suggestion the chat offers, clicked: sent as the user's message."""

    type: Literal["suggestion"]
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]


class HelloMsg(_Msg):
    """A view asks for the live state (it opened, maybe mid-stream)."""

    type: Literal["hello"]


MessageId = Id
ThreadId = Id
MAX_TITLE = 200
"""Longest thread title accepted from the browser (characters)."""


class EditMsg(_Msg):
    """A user message's new text: the kernel re-runs from it (a new branch)."""

    type: Literal["edit"]
    message_id: MessageId
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    ref: Ref | None = None
    """As for ``send``: the view's editor closes only once the edit is taken."""


class RegenerateMsg(_Msg):
    """A new reply in place of an assistant message (a new branch)."""

    type: Literal["regenerate"]
    message_id: MessageId


class SwitchBranchMsg(_Msg):
    """Show another version of a message, and what follows it."""

    type: Literal["switch_branch"]
    message_id: MessageId
    index: Annotated[int, Field(ge=0)]
    """Which version of the message, from 0 (the kernel names the valid range)."""


class FeedbackMsg(_Msg):
    """Thumbs up or down on a reply, or neither (null): the rating taken back."""

    type: Literal["feedback"]
    message_id: MessageId
    rating: Literal["up", "down"] | None


class NewThreadMsg(_Msg):
    """Start a new, empty thread."""

    type: Literal["new_thread"]


class SwitchThreadMsg(_Msg):
    """Show another thread of the chat's store."""

    type: Literal["switch_thread"]
    thread_id: ThreadId


class RenameThreadMsg(_Msg):
    """A thread's new title, as the user typed it."""

    type: Literal["rename_thread"]
    thread_id: ThreadId
    title: Annotated[str, Field(min_length=1, max_length=MAX_TITLE)]


class ChooseModelMsg(_Msg):
    """The model picker's choice, by its id; the chat accepts only an id of
    its ``models=`` list."""

    type: Literal["choose_model"]
    model: Id


class LoadModuleMsg(_Msg):
    """Asks for a frontend module kept beside the bundle (answered by ``module``)."""

    type: Literal["load_module"]
    name: Literal["highlight"]


class TranscriptMsg(_Msg):
    """Asks for the thread as markdown (answered by ``transcript``)."""

    type: Literal["transcript"]


class ComponentStateMsg(_Msg):
    """A component's state as the user left it (a Form's values); the
    component bridge (``components.py``) parses and applies it."""

    type: Literal["component_state"]
    tool_call_id: ToolCallId
    state: dict[str, JsonValue]


class A2UIActionMsg(_Msg):
    """The user pressed a button of an A2UI surface a call showed; ``data``:
    what they entered, per surface (JSON Pointer -> value), stored first.
    The kernel reads the button's event from the surface it holds
    (``a2ui._thread.action_event``), so the browser names only the button."""

    type: Literal["a2ui_action"]
    tool_call_id: ToolCallId
    surface_id: Id
    component_id: Id
    data: dict[str, dict[str, JsonValue]] | None = None


MAX_WINDOW = 1_000
"""Most rows one ``data_window`` request may ask for."""

MAX_FILTER = 200
"""Longest filter text a ``data_window`` request may carry (the Table's box holds no more)."""


class DataWindowMsg(_Msg):
    """A table showing kernel data asks for rows ``offset`` to ``offset + limit``,
    sorted by column ``sort`` (kernel-side) and, with ``filter``, of the rows
    holding that plain text in some cell; ``request`` pairs the answer with
    the question. The component bridge (``components.py``) answers it."""

    type: Literal["data_window"]
    tool_call_id: ToolCallId
    request: int = Field(ge=0)
    offset: int = Field(ge=0)
    limit: int = Field(ge=1, le=MAX_WINDOW)
    sort: str | None = Field(None, max_length=1_000)
    descending: bool = False
    filter: str | None = Field(None, max_length=MAX_FILTER, json_schema_extra=_ONLY_IF_FILLED)


class McpAppMsg(_Msg):
    """A request of the MCP app a call shows (its method and params as the app
    sent them: untrusted); ``approved``: the user clicked Approve on the
    host's own bar for this very request. The app bridge (``_mcp_apps.py``)
    answers it with ``mcp_app``."""

    type: Literal["mcp_app"]
    tool_call_id: ToolCallId
    request: int = Field(ge=0)
    method: Literal["tools/call", "resources/read", "ping", "ui/update-model-context"]
    """What the browser passes on from an app (it answers the rest itself)."""
    params: JsonValue = None
    approved: bool = False


MAX_PASTED_URL = 8_192
"""Longest address the user may paste into a sign-in card."""


class SignInMsg(_Msg):
    """The user's answer to a tool server's sign-in card: ``paste`` the
    address the browser landed on (``url``: the kernel checks it is this
    sign-in's redirect), or ``cancel`` the sign-in."""

    type: Literal["sign_in"]
    id: Id
    action: Literal["paste", "cancel"]
    url: Annotated[str, Field(max_length=MAX_PASTED_URL)] | None = None
    """``paste``: the address (``cancel`` sends none)."""


MAX_FORM_FIELDS = 10
"""Most arguments a starter's form sends (a prompt with more is not offered)."""

MAX_FIELD_CHARS = 10_000
"""Longest value of one field of a starter's form (an argument of a server's prompt)."""

FieldName = Annotated[str, Field(min_length=1, max_length=MAX_ID)]
FieldValue = Annotated[str, Field(max_length=MAX_FIELD_CHARS)]
FormValues = Annotated[dict[FieldName, FieldValue], Field(max_length=MAX_FORM_FIELDS)]


class StarterFormMsg(_Msg):
    """A starter's form submitted: the prompt ``prompt`` (an id of the
    ``starter_forms`` trait) filled by its server with ``arguments``, and the
    text sent as the user's message. Answered by ``accepted`` (the form
    closes) or ``error`` (it stays, with the values); ``ref`` tags it."""

    type: Literal["starter_form"]
    prompt: Id
    fields: FormValues
    ref: Ref | None = None


class CompleteMsg(_Msg):
    """The user types in a field of a starter's form: the server's suggestions
    for the argument ``argument`` of ``prompt`` as typed so far (``value``),
    the other fields as ``context``; ``request`` pairs the answer
    (``completion``) with the question."""

    type: Literal["complete"]
    prompt: Id
    argument: FieldName
    value: FieldValue
    context: FormValues
    request: int = Field(ge=0)


ClientMessage = Annotated[
    HelloMsg
    | SendMsg
    | SuggestionMsg
    | ApproveMsg
    | AlwaysMsg
    | RejectMsg
    | RevokeAlwaysMsg
    | ToolResultMsg
    | CancelMsg
    | RetryMsg
    | ComponentStateMsg
    | A2UIActionMsg
    | EditMsg
    | RegenerateMsg
    | SwitchBranchMsg
    | FeedbackMsg
    | NewThreadMsg
    | SwitchThreadMsg
    | RenameThreadMsg
    | ChooseModelMsg
    | LoadModuleMsg
    | TranscriptMsg
    | DataWindowMsg
    | McpAppMsg
    | SignInMsg
    | StarterFormMsg
    | CompleteMsg,
    Field(discriminator="type"),
]
"""Any message the browser may send (the order is the generated builders')."""

CLIENT_MESSAGES: tuple[type[_Msg], ...] = get_args(get_args(ClientMessage)[0])


def message_type(model: type[BaseModel]) -> str:
    """The ``type`` a message model carries on the wire."""
    (kind,) = get_args(model.model_fields["type"].annotation)
    return str(kind)


KNOWN_TYPES = tuple(message_type(m) for m in CLIENT_MESSAGES)

_adapter: TypeAdapter[ClientMessage] = TypeAdapter(
    ClientMessage, config=ConfigDict(defer_build=True)
)


def _bound(model: type[BaseModel], field: str, bound: Literal["le", "max_length"]) -> int:
    """The bound (``le``: a number's largest, ``max_length``: a text's or a
    list's longest) a model puts on one of its fields."""
    for item in model.model_fields[field].metadata:
        value = getattr(item, bound, None)
        if isinstance(value, int):
            return value
    raise LookupError(f"{model.__name__}.{field} has no {bound} bound")


WIRE_LIMITS: dict[str, int] = {
    "max_upload_bytes": _bound(FileUpload, "size", "le"),
    "max_attachments": _bound(SendMsg, "attachments", "max_length"),
    "max_window": _bound(DataWindowMsg, "limit", "le"),
    "max_filter": _bound(DataWindowMsg, "filter", "max_length"),
    "max_field_chars": _bound(CompleteMsg, "value", "max_length"),
}
"""The limits the browser applies before it sends, read from the models'
own constraints: the Chat's ``limits`` trait carries them to the browser
(``readLimits`` in ``js/src/protocol.js``; the generated file names the
keys), so the user reads why before the bytes travel; the kernel checks
every message again."""


def parse_client_message(content: Any) -> ClientMessage:
    """Validate a raw frontend payload; raise :class:`ProtocolError` if it is bad."""
    if not isinstance(content, dict):
        raise ProtocolError("message from the browser is not an object")
    kind = content.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_TYPES:
        raise ProtocolError(f"unknown message type {str(kind)[:40]!r} from the browser")
    text = content.get("text")
    if kind in ("send", "suggestion", "edit") and isinstance(text, str) and len(text) > MAX_TEXT:
        raise ProtocolError(
            f"message too long: {len(text):,} characters, the chat takes at most "
            f"{MAX_TEXT:,}; shorten it"
        )
    try:
        return _adapter.validate_python(content)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or 'message'}: {err['msg']}"
            for err in exc.errors(include_url=False)[:3]
        )
        raise ProtocolError(f"invalid {kind!r} message: {problems}") from None


def uploads_for_runtime(msg: SendMsg, buffers: list[Any]) -> list[Any]:
    """The send's attachments as ``Runtime.send`` takes them: a file's bytes
    from its buffer (checked against the size the browser announced), a data
    pick as its name (``"@name"``: the chat resolves it in its data)."""
    out: list[Any] = []
    for item in msg.attachments:
        if isinstance(item, DataPick):
            out.append(item)
            continue
        if item.buffer >= len(buffers):
            raise ProtocolError(f"the bytes of {item.name!r} did not arrive: attach it again")
        data = bytes(buffers[item.buffer])
        if len(data) != item.size or len(data) > MAX_UPLOAD_BYTES:
            raise ProtocolError(
                f"{item.name!r} arrived with {len(data):,} bytes, not the {item.size:,} announced "
                f"(at most {MAX_UPLOAD_BYTES // 1_048_576} MB): attach it again"
            )
        out.append(FileAttachment(item.name, data, item.mime or None))
    return out


# --- kernel -> browser -------------------------------------------------------------

MAX_ERROR = 2000
"""Longest error text sent to the browser (characters)."""


class ToBrowser(BaseModel):
    """A kernel -> browser message. The constructors below build one without
    validating (the kernel's own values, on the streaming path) and send its
    :meth:`wire` dict; the tests validate the fixture's examples against it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The message as sent: its fields in order, an optional one only when set."""
        given = self.model_fields_set
        return {name: getattr(self, name) for name in type(self).model_fields if name in given}


_Out = TypeVar("_Out", bound=ToBrowser)


def _build(model: type[_Out], **fields: Any) -> dict[str, Any]:
    return model.model_construct(**{"type": message_type(model), **fields}).wire()


class Patch(TypedDict):
    """The ops of one message in a frame."""

    id: str
    ops: Annotated[list[PatchOp], WithJsonSchema({"type": "array"})]
    """The browser checks each op as it applies it (``isPatchOp``) and skips
    one it does not know: the next snapshot carries that change."""


class FrameMessage(ToBrowser):
    """Streamed changes, coalesced (``_sync.py``); ``seq`` counts frames from 1."""

    type: Literal["frame"]
    seq: int
    patches: list[Patch]


class SnapshotItem(TypedDict):
    message: dict[str, Any]
    """The message in its wire form (:func:`message_for_browser`)."""
    rev: int
    """The last frame this state includes: the view replays newer ones."""


class SnapshotMessage(ToBrowser):
    """The answer to ``hello``: messages whose traits are behind the stream."""

    type: Literal["snapshot"]
    seq: int
    messages: list[SnapshotItem]


class AcceptedMessage(ToBrowser):
    """A send (or an edit) was taken: the view that tagged it ``ref`` clears
    its box (closes its editor)."""

    type: Literal["accepted"]
    request: Literal["send", "edit", "starter_form"]
    ref: str | None = None


class ErrorMessage(ToBrowser):
    """A browser message changed nothing; ``message`` says why, for the user."""

    type: Literal["error"]
    message: Annotated[str, Field(max_length=MAX_ERROR)]
    request: str | None = None
    """The ``type`` of the message refused."""
    ref: str | None = None
    """The refused send's tag: that view keeps its text."""


@with_config(ConfigDict(extra="allow"))
class ComponentOutputRef(TypedDict):
    """A component's output (``ComponentOutput.to_json()``): the slot it goes
    to is its call's; the rest the slot reads itself."""

    tool_call_id: str


class ComponentOutputMessage(ToBrowser):
    """A kernel output for a shown component."""

    type: Literal["component_output"]
    output: ComponentOutputRef


class TranscriptMessage(ToBrowser):
    """The thread as markdown, for the view that asked to download it."""

    type: Literal["transcript"]
    markdown: str
    filename: str


class ModuleMessage(ToBrowser):
    """The answer to ``load_module``: the module's ES source, or why there is none."""

    model_config = ConfigDict(
        json_schema_extra={"anyOf": [{"required": ["source"]}, {"required": ["error"]}]}
    )

    type: Literal["module"]
    name: str
    source: str | None = None
    error: Annotated[str, Field(max_length=MAX_ERROR)] | None = None


class DataWindowMessage(ToBrowser):
    """The answer to a ``data_window`` request: the rows, or why there are none."""

    type: Literal["data_window"]
    tool_call_id: str
    request: int
    offset: int
    total_rows: int
    columns: list[str]
    rows: list[dict[str, Any]]
    sort: str | None
    descending: bool
    filter: str | None = None
    """A filtered window: the filter text, ``total_rows`` counting the matching rows."""
    all_rows: int | None = None
    """A filtered window: the rows of the whole table."""
    error: Annotated[str, Field(max_length=MAX_ERROR)] | None = None


@with_config(ConfigDict(extra="allow"))
class McpAppError(TypedDict):
    """A JSON-RPC error for an app; ``needs_approval``: ask the user, then send again."""

    code: Any
    message: Annotated[str, Field(max_length=MAX_ERROR)]


class McpAppMessage(ToBrowser):
    """The answer to an ``mcp_app`` request: ``result``, or ``error``."""

    type: Literal["mcp_app"]
    tool_call_id: str
    request: int
    result: Any = None
    error: McpAppError | None = None


MAX_SUGGESTIONS = 20
"""Suggestions one ``completion`` answer carries (the form shows fewer)."""


class CompletionMessage(ToBrowser):
    """The answer to ``complete``: the server's suggestions (its text,
    untrusted: the form shows it as text), or why there are none."""

    type: Literal["completion"]
    request: int
    prompt: str
    argument: str
    values: Annotated[list[str], Field(max_length=MAX_SUGGESTIONS)]
    error: Annotated[str, Field(max_length=MAX_ERROR)] | None = None


ServerMessage = (
    FrameMessage
    | SnapshotMessage
    | AcceptedMessage
    | ErrorMessage
    | ComponentOutputMessage
    | TranscriptMessage
    | ModuleMessage
    | DataWindowMessage
    | McpAppMessage
    | CompletionMessage
)

SERVER_MESSAGES: tuple[type[ToBrowser], ...] = get_args(ServerMessage)
"""Every message the kernel sends (the generated validators' order)."""


def frame_message(seq: int, patches: list[Patch]) -> dict[str, Any]:
    return _build(FrameMessage, seq=seq, patches=patches)


def snapshot_message(seq: int, messages: list[SnapshotItem]) -> dict[str, Any]:
    return _build(SnapshotMessage, seq=seq, messages=messages)


def accepted_message(
    ref: str | None, request: Literal["send", "edit", "starter_form"] = "send"
) -> dict[str, Any]:
    if ref is None:
        return _build(AcceptedMessage, request=request)
    return _build(AcceptedMessage, request=request, ref=ref)


def error_message(text: str, refused: Any = None) -> dict[str, Any]:
    """The error answer to the browser message ``refused`` (raw, maybe malformed)."""
    fields: dict[str, Any] = {"message": text[:MAX_ERROR]}
    if isinstance(refused, dict):
        kind, ref = refused.get("type"), refused.get("ref")
        if isinstance(kind, str):
            fields["request"] = kind[:40]
        if isinstance(ref, str) and len(ref) <= MAX_REF:
            fields["ref"] = ref  # the view that sent it keeps its text
    return _build(ErrorMessage, **fields)


def component_output_message(output: dict[str, Any]) -> dict[str, Any]:
    return _build(ComponentOutputMessage, output=output)


def transcript_message(markdown: str, filename: str) -> dict[str, Any]:
    return _build(TranscriptMessage, markdown=markdown, filename=filename)


def module_message(
    name: str, source: str | None = None, error: str | None = None
) -> dict[str, Any]:
    """The answer to a ``load_module`` request: ``source``, or ``error``."""
    if source is not None:
        return _build(ModuleMessage, name=name, source=source)
    return _build(ModuleMessage, name=name, error=(error or "no such module")[:MAX_ERROR])


def data_window_message(
    msg: DataWindowMsg, window: dict[str, Any] | None = None, error: str | None = None
) -> dict[str, Any]:
    """The answer to ``msg``: ``window`` (``data.RowWindows.window``) or ``error``."""
    w = window or {}
    fields: dict[str, Any] = {
        "tool_call_id": msg.tool_call_id,
        "request": msg.request,
        "offset": int(w.get("offset", msg.offset)),
        "total_rows": int(w.get("total_rows", 0)),
        "columns": list(w.get("columns", [])),
        "rows": list(w.get("rows", [])),
        "sort": w.get("sort", msg.sort),
        "descending": bool(w.get("descending", msg.descending)),
    }
    if msg.filter and msg.filter.strip():
        fields["filter"] = msg.filter
        if "all_rows" in w:
            fields["all_rows"] = int(w["all_rows"])
    if error is not None:
        fields["error"] = error[:MAX_ERROR]
    return _build(DataWindowMessage, **fields)


def mcp_app_message(
    msg: McpAppMsg, result: Any = None, error: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The answer to ``msg``: ``result`` or ``error`` (``{code, message, needs_approval?}``)."""
    if error is not None:
        message = str(error.get("message", ""))[:MAX_ERROR]
        return _build(
            McpAppMessage,
            tool_call_id=msg.tool_call_id,
            request=msg.request,
            error={**error, "message": message},
        )
    return _build(McpAppMessage, tool_call_id=msg.tool_call_id, request=msg.request, result=result)


def completion_message(
    msg: CompleteMsg, values: list[str], error: str | None = None
) -> dict[str, Any]:
    """The answer to ``msg``: at most ``MAX_SUGGESTIONS`` of ``values``, or ``error``."""
    fields: dict[str, Any] = {
        "request": msg.request,
        "prompt": msg.prompt,
        "argument": msg.argument,
        "values": values[:MAX_SUGGESTIONS],
    }
    if error is not None:
        fields["error"] = error[:MAX_ERROR]
    return _build(CompletionMessage, **fields)


# --- messages in their wire form ----------------------------------------------------

STANDARD_PARAM_NAMES: tuple[str, ...] = tuple(STANDARD_PARAMETERS)
"""Argument names every tool call carries for the UI: the browser hides them
(the ``standard_params`` trait sends them)."""

COMPONENT_CALL_FIELD = "component_call"
"""The field of a tool-call part, on the wire only, holding its :class:`ComponentCall`."""


class ComponentCall(TypedDict, total=False):
    """What the browser needs to know about a call of a components' tool:
    which component it shows (and that component's id) or which one it updates."""

    component: str
    """A ``show_component_<Name>`` call: the component's name."""
    component_id: str
    """A ``show_component_<Name>`` call: the id of the component it shows."""
    update_of: str
    """An ``update_component_<id>`` call: the id of the component it changes."""


def component_call(tool_name: str, tool_call_id: str) -> ComponentCall | None:
    """What a call shows or updates (None for any other tool), by the rules
    of ``tools/component_names.py``: the browser reads it, it never derives it."""
    name = component_name_of(tool_name)
    if name is not None:
        return {"component": name, "component_id": component_id_of(tool_call_id)}
    target_id = update_of(tool_name)
    if target_id is not None:
        return {"update_of": target_id}
    return None


def message_for_browser(message: Message) -> dict[str, Any]:
    """A message as synced: tool-call parts carry their components' names, and
    parsed ``args`` the browser can derive are left out.

    The browser parses ``args_text`` itself (it streams it anyway), so a large
    argument (a 1,000-row table) crosses the wire once, not twice; the kernel
    does not even write those ``args`` (they are left out of the dump).
    """
    derived = {
        i: {"args"}
        for i, part in enumerate(message.parts)
        if isinstance(part, ToolCallPart) and part.args and _derivable(part)
    }
    data = message.model_dump(mode="json", exclude={"parts": derived} if derived else None)
    for i, (part, raw) in enumerate(zip(message.parts, data["parts"], strict=True)):
        raw.pop("provider_data", None)  # opaque, for the provider only: the browser never needs it
        if isinstance(part, ToolCallPart):
            call = component_call(part.tool_name, part.tool_call_id)
            if call is not None:
                raw[COMPONENT_CALL_FIELD] = call
            if i in derived:
                raw["args"] = {}
    return data


def _derivable(part: ToolCallPart) -> bool:
    """True when the browser's parse of ``args_text``, less the standard
    parameters, gives ``args`` exactly (read from the call's one parse,
    ``ToolCallPart.parsed_args``: a snapshot parses nothing).

    Edited (approved) or filtered arguments differ from the text: keep those.
    """
    parsed = part.parsed_args.value
    if not isinstance(parsed, dict):
        return False
    # the values are the parse's own objects: equal by identity, no deep walk
    return {k: v for k, v in parsed.items() if k not in STANDARD_PARAMETERS} == part.args


def ops_for_browser(ops: list[PatchOp], message: Message | None) -> list[PatchOp]:
    """The patch ops as sent: a tool call's components' names go with the op
    that adds the call or names its tool. ``message`` is the live message
    (None if unknown: the next snapshot then carries the names).

    Runs once per frame on the merged ops (``FrameCoalescer``'s ``prepare``),
    not per delta; text and argument ops pass through, the list unchanged.
    """
    out: list[PatchOp] | None = None
    for i, op in enumerate(ops):
        if op["op"] == "append" or (op["op"] == "set" and op["field"] != "tool_name"):
            if out is not None:
                out.append(op)
            continue
        if out is None:
            out = ops[:i]
        out.extend(_with_names(op, message))
    return ops if out is None else out


def _with_names(op: PatchOp, message: Message | None) -> list[PatchOp]:
    if op["op"] == "add_part":
        value = op["value"]
        if value.get("type") == "tool-call":
            call = component_call(value["tool_name"], value["tool_call_id"])
            if call is not None:
                return [add_part_op(op["part"], {**value, COMPONENT_CALL_FIELD: call})]
    elif op["op"] == "set" and message is not None and 0 <= op["part"] < len(message.parts):
        part = message.parts[op["part"]]
        if isinstance(part, ToolCallPart):
            call = component_call(op["value"], part.tool_call_id)
            if call is not None:
                return [op, set_op(op["part"], COMPONENT_CALL_FIELD, call)]
    return [op]
