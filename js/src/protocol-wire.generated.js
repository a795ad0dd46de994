// GENERATED FILE: do not edit. `make protocol` writes it (python -m
// ipygenui.widget._wire_codegen) from the pydantic models of
// src/ipygenui/widget/_protocol.py, where every message is defined; change a
// message there and run `make protocol` (a test fails while this file is stale).
// js/src/protocol.js re-exports it with what is not generated.

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The `type` of every message the browser sends. */
export const TO_KERNEL_TYPES = Object.freeze([
  "hello",
  "send",
  "suggestion",
  "approve",
  "always",
  "reject",
  "revoke_always",
  "tool_result",
  "cancel",
  "retry",
  "component_state",
  "a2ui_action",
  "edit",
  "regenerate",
  "switch_branch",
  "feedback",
  "new_thread",
  "switch_thread",
  "rename_thread",
  "choose_model",
  "load_module",
  "transcript",
  "data_window",
  "mcp_app",
  "sign_in",
  "starter_form",
  "complete",
]);

/** Every message type the kernel sends, by name (a dispatch table's keys). */
export const FROM_KERNEL = Object.freeze({
  frame: "frame",
  snapshot: "snapshot",
  accepted: "accepted",
  error: "error",
  component_output: "component_output",
  transcript: "transcript",
  module: "module",
  data_window: "data_window",
  mcp_app: "mcp_app",
  completion: "completion",
});

// --- browser -> kernel: the only way a view builds a message --------------------

export const toKernel = Object.freeze({
  /** A view asks for the live state (it opened, maybe mid-stream). */
  hello: () => ({ type: "hello" }),
  /**
   * The composer's text; `ref` tags it so only this view's answer clears the box. `attachments`:
   * files (their bytes are the message's binary buffers) and picks of the chat's data.
   */
  send: (text, ref, attachments) => ({
    type: "send",
    text,
    ref,
    ...(attachments?.length ? { attachments } : {}),
  }),
  /** A suggestion the chat offers, clicked: sent as the user's message. */
  suggestion: (text) => ({ type: "suggestion", text }),
  /** Approve a call; `args`: the arguments as the user edited them. */
  approve: (toolCallId, args) => ({ type: "approve", tool_call_id: toolCallId, args }),
  /** Approve, and approve this tool without asking for the rest of the chat. */
  always: (toolCallId, args) => ({ type: "always", tool_call_id: toolCallId, args }),
  /** Reject a call; `reason`: what the user said, for the model. */
  reject: (toolCallId, reason) => ({ type: "reject", tool_call_id: toolCallId, reason }),
  /**
   * Take back an "always allow" grant: the tool's next calls ask again. The only grant message the
   * browser has: it can take trust away, never give it (a grant comes only with the user's
   * approval of a call).
   */
  revokeAlways: (toolName) => ({ type: "revoke_always", tool_name: toolName }),
  /** The user's answer to a human tool. */
  toolResult: (toolCallId, result) => ({ type: "tool_result", tool_call_id: toolCallId, result }),
  /** Stop the run that streams (or waits). */
  cancel: () => ({ type: "cancel" }),
  /** Run the last turn again (after an error or a stop). */
  retry: () => ({ type: "retry" }),
  /**
   * A component's state as the user left it (a Form's values); the component bridge
   * (`components.py`) parses and applies it.
   */
  componentState: (toolCallId, state) => ({ type: "component_state", tool_call_id: toolCallId, state }),
  /**
   * The user pressed a button of an A2UI surface a call showed; `data`: what they entered, per
   * surface (JSON Pointer -> value), stored first. The kernel reads the button's event from the
   * surface it holds (`a2ui._thread.action_event`), so the browser names only the button.
   */
  a2uiAction: (toolCallId, surfaceId, componentId, data) => ({
    type: "a2ui_action",
    tool_call_id: toolCallId,
    surface_id: surfaceId,
    component_id: componentId,
    data,
  }),
  /** A user message's new text: the kernel re-runs from it (a new branch). */
  edit: (messageId, text, ref) => ({ type: "edit", message_id: messageId, text, ref }),
  /** A new reply in place of an assistant message (a new branch). */
  regenerate: (messageId) => ({ type: "regenerate", message_id: messageId }),
  /** Show another version of a message, and what follows it. */
  switchBranch: (messageId, index) => ({ type: "switch_branch", message_id: messageId, index }),
  /** Thumbs up or down on a reply, or neither (null): the rating taken back. */
  feedback: (messageId, rating) => ({ type: "feedback", message_id: messageId, rating }),
  /** Start a new, empty thread. */
  newThread: () => ({ type: "new_thread" }),
  /** Show another thread of the chat's store. */
  switchThread: (threadId) => ({ type: "switch_thread", thread_id: threadId }),
  /** A thread's new title, as the user typed it. */
  renameThread: (threadId, title) => ({ type: "rename_thread", thread_id: threadId, title }),
  /** The model picker's choice, by its id; the chat accepts only an id of its `models=` list. */
  chooseModel: (model) => ({ type: "choose_model", model }),
  /** Asks for a frontend module kept beside the bundle (answered by `module`). */
  loadModule: (name) => ({ type: "load_module", name }),
  /** Asks for the thread as markdown (answered by `transcript`). */
  transcript: () => ({ type: "transcript" }),
  /**
   * A table showing kernel data asks for rows `offset` to `offset + limit`, sorted by column
   * `sort` (kernel-side) and, with `filter`, of the rows holding that plain text in some cell;
   * `request` pairs the answer with the question. The component bridge (`components.py`) answers
   * it.
   */
  dataWindow: (toolCallId, request, offset, limit, sort, descending = false, filter) => ({
    type: "data_window",
    tool_call_id: toolCallId,
    request,
    offset,
    limit,
    sort,
    descending,
    ...(filter?.trim() ? { filter } : {}),
  }),
  /**
   * A request of the MCP app a call shows (its method and params as the app sent them: untrusted);
   * `approved`: the user clicked Approve on the host's own bar for this very request. The app
   * bridge (`_mcp_apps.py`) answers it with `mcp_app`.
   */
  mcpApp: (toolCallId, request, method, params, approved = false) => ({
    type: "mcp_app",
    tool_call_id: toolCallId,
    request,
    method,
    params,
    approved,
  }),
  /**
   * The user's answer to a tool server's sign-in card: `paste` the address the browser landed on
   * (`url`: the kernel checks it is this sign-in's redirect), or `cancel` the sign-in.
   */
  signIn: (id, action, url) => ({ type: "sign_in", id, action, url }),
  /**
   * A starter's form submitted: the prompt `prompt` (an id of the `starter_forms` trait) filled by
   * its server with `arguments`, and the text sent as the user's message. Answered by `accepted`
   * (the form closes) or `error` (it stays, with the values); `ref` tags it.
   */
  starterForm: (prompt, fields, ref) => ({ type: "starter_form", prompt, fields, ref }),
  /**
   * The user types in a field of a starter's form: the server's suggestions for the argument
   * `argument` of `prompt` as typed so far (`value`), the other fields as `context`; `request`
   * pairs the answer (`completion`) with the question.
   */
  complete: (prompt, argument, value, context, request) => ({
    type: "complete",
    prompt,
    argument,
    value,
    context,
    request,
  }),
});

// --- kernel -> browser: a validator per message (its `type` picked it) ----------

const isAppendOp = (v) =>
  isObject(v) &&
  v.op === "append" &&
  Number.isInteger(v.part) &&
  v.part >= 0 &&
  typeof v.field === "string" &&
  typeof v.value === "string";

const isSetOp = (v) =>
  isObject(v) &&
  v.op === "set" &&
  Number.isInteger(v.part) &&
  v.part >= 0 &&
  typeof v.field === "string" &&
  "value" in v;

const isAddPartOp = (v) =>
  isObject(v) &&
  v.op === "add_part" &&
  Number.isInteger(v.part) &&
  v.part >= 0 &&
  isObject(v.value);

const isPatch = (v) =>
  isObject(v) &&
  typeof v.id === "string" &&
  Array.isArray(v.ops);

const isSnapshotItem = (v) =>
  isObject(v) &&
  isObject(v.message) &&
  Number.isInteger(v.rev);

const isComponentOutputRef = (v) =>
  isObject(v) &&
  typeof v.tool_call_id === "string";

const isMcpAppError = (v) =>
  isObject(v) &&
  "code" in v &&
  typeof v.message === "string" &&
  v.message.length <= 2000;

/** `frame`: Streamed changes, coalesced (`_sync.py`); `seq` counts frames from 1. */
export const isFrame = (m) =>
  isObject(m) &&
  Number.isInteger(m.seq) &&
  Array.isArray(m.patches) &&
  m.patches.every(isPatch);

/** `snapshot`: The answer to `hello`: messages whose traits are behind the stream. */
export const isSnapshot = (m) =>
  isObject(m) &&
  Number.isInteger(m.seq) &&
  Array.isArray(m.messages) &&
  m.messages.every(isSnapshotItem);

/**
 * `accepted`: A send (or an edit) was taken: the view that tagged it `ref` clears its box (closes
 * its editor).
 */
export const isAccepted = (m) =>
  isObject(m) &&
  (m.request === "send" || m.request === "edit" || m.request === "starter_form") &&
  (m.ref === undefined || typeof m.ref === "string");

/** `error`: A browser message changed nothing; `message` says why, for the user. */
export const isError = (m) =>
  isObject(m) &&
  typeof m.message === "string" &&
  m.message.length <= 2000 &&
  (m.request === undefined || typeof m.request === "string") &&
  (m.ref === undefined || typeof m.ref === "string");

/** `component_output`: A kernel output for a shown component. */
export const isComponentOutput = (m) =>
  isObject(m) &&
  isComponentOutputRef(m.output);

/** `transcript`: The thread as markdown, for the view that asked to download it. */
export const isTranscript = (m) =>
  isObject(m) &&
  typeof m.markdown === "string" &&
  typeof m.filename === "string";

/** `module`: The answer to `load_module`: the module's ES source, or why there is none. */
export const isModule = (m) =>
  isObject(m) &&
  typeof m.name === "string" &&
  (m.source === undefined || typeof m.source === "string") &&
  (m.error === undefined || (typeof m.error === "string" && m.error.length <= 2000)) &&
  ("source" in m || "error" in m);

/** `data_window`: The answer to a `data_window` request: the rows, or why there are none. */
export const isDataWindow = (m) =>
  isObject(m) &&
  typeof m.tool_call_id === "string" &&
  Number.isInteger(m.request) &&
  Number.isInteger(m.offset) &&
  Number.isInteger(m.total_rows) &&
  Array.isArray(m.columns) &&
  m.columns.every((item0) => typeof item0 === "string") &&
  Array.isArray(m.rows) &&
  m.rows.every(isObject) &&
  (typeof m.sort === "string" || m.sort === null) &&
  typeof m.descending === "boolean" &&
  (m.filter === undefined || typeof m.filter === "string") &&
  (m.all_rows === undefined || Number.isInteger(m.all_rows)) &&
  (m.error === undefined || (typeof m.error === "string" && m.error.length <= 2000));

/** `mcp_app`: The answer to an `mcp_app` request: `result`, or `error`. */
export const isMcpApp = (m) =>
  isObject(m) &&
  typeof m.tool_call_id === "string" &&
  Number.isInteger(m.request) &&
  (m.error === undefined || isMcpAppError(m.error));

/**
 * `completion`: The answer to `complete`: the server's suggestions (its text, untrusted: the form
 * shows it as text), or why there are none.
 */
export const isCompletion = (m) =>
  isObject(m) &&
  Number.isInteger(m.request) &&
  typeof m.prompt === "string" &&
  typeof m.argument === "string" &&
  Array.isArray(m.values) &&
  m.values.length <= 20 &&
  m.values.every((item0) => typeof item0 === "string") &&
  (m.error === undefined || (typeof m.error === "string" && m.error.length <= 2000));

/** The validator of each message the kernel sends, by its `type`. */
export const FROM_KERNEL_VALIDATORS = Object.freeze({
  frame: isFrame,
  snapshot: isSnapshot,
  accepted: isAccepted,
  error: isError,
  component_output: isComponentOutput,
  transcript: isTranscript,
  module: isModule,
  data_window: isDataWindow,
  mcp_app: isMcpApp,
  completion: isCompletion,
});

// --- patch ops, inside frames -----------------------------------------------------

export const PATCH_OPS = Object.freeze(["append", "set", "add_part"]);

/** Whether `op` is a patch op this view can apply. @param {any} op */
export const isPatchOp = (op) => isAppendOp(op) || isSetOp(op) || isAddPartOp(op);

// --- the kernel's limits (the `limits` trait), by the name the view reads --------

/** @typedef {{maxUploadBytes: number, maxAttachments: number, maxWindow: number, maxFilter: number, maxFieldChars: number}} Limits */

export const LIMIT_KEYS = Object.freeze({
  maxUploadBytes: "max_upload_bytes",
  maxAttachments: "max_attachments",
  maxWindow: "max_window",
  maxFilter: "max_filter",
  maxFieldChars: "max_field_chars",
});

// --- the package's version (src/ipygenui/__init__.py's __version__) -----------------

export const PACKAGE_VERSION = "0.1.0";
