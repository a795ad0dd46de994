// The wire contract between the browser and the kernel, browser side.
// src/ipygenui/widget/_protocol.py is the same contract in the kernel, and
// tests/fixtures/wire.json holds examples that both test suites replay, so
// the two sides cannot drift.
//
// - Browser -> kernel: custom messages, built only by `toKernel` below (the
//   kernel validates each one and answers `error` when it changes nothing).
// - Kernel -> browser: custom messages (`frame`, `snapshot`, `accepted`,
//   `error`, `component_output`, `transcript`, `data_window`, `module`, `mcp_app`), read only through
//   `readServerMessage`,
//   which drops a malformed one (the next snapshot or trait carries the state).
// - Patch ops (inside frames): `append`, `set` and `add_part` on one part of
//   one message; `isPatchOp` says whether this view can apply one.
// - Names the kernel decides and the view reads, never derives: on a
//   tool-call part, `component_call` says which component a call shows (and
//   its `component_id`) or which component it is an `update_of`
//   (`shownComponent`, `componentIdOf`, `updateOf`); the `standard_params` trait lists the arguments every
//   call carries for the UI.

// --- browser -> kernel ---------------------------------------------------------

/**
 * The kernel's limits, from the Chat's `limits` trait (widget/_protocol.py's
 * WIRE_LIMITS defines them; this file has no copy). The view applies them
 * before it sends so the user reads why at once; the kernel checks every
 * message again, so a missing or malformed value only means no early check.
 * @param {any} raw the trait's value
 * @returns {{maxUploadBytes: number, maxAttachments: number, maxWindow: number, maxFilter: number}}
 */
export function readLimits(raw) {
  const limit = (key) => {
    const value = isObject(raw) ? raw[key] : undefined;
    return Number.isInteger(value) && value > 0 ? value : Infinity;
  };
  return {
    maxUploadBytes: limit("max_upload_bytes"),
    maxAttachments: limit("max_attachments"),
    maxWindow: limit("max_window"),
    maxFilter: limit("max_filter"),
  };
}

export const toKernel = Object.freeze({
  /** Ask for the live state (a view opened, maybe mid-stream). */
  hello: () => ({ type: "hello" }),
  /**
   * The composer's text; `ref` tags it so only this view's answer clears the box.
   * `attachments`: `{kind: "file", name, mime, size, buffer}` (the file's bytes
   * are the message's binary buffer number `buffer`) or `{kind: "data", name}`.
   */
  send: (text, ref, attachments) =>
    attachments?.length ? { type: "send", text, ref, attachments } : { type: "send", text, ref },
  suggestion: (text) => ({ type: "suggestion", text }),
  /** `args`: the arguments as the user edited them, null when unchanged. */
  approve: (toolCallId, args) => ({ type: "approve", tool_call_id: toolCallId, args }),
  /** Approve, and approve this tool without asking for the rest of the chat. */
  always: (toolCallId, args) => ({ type: "always", tool_call_id: toolCallId, args }),
  reject: (toolCallId, reason) => ({ type: "reject", tool_call_id: toolCallId, reason }),
  /** Take back the "always allow" of a tool (the `always_allowed` trait lists them): it asks again. */
  revokeAlways: (toolName) => ({ type: "revoke_always", tool_name: toolName }),
  /** The user's answer to a human tool. */
  toolResult: (toolCallId, result) => ({ type: "tool_result", tool_call_id: toolCallId, result }),
  cancel: () => ({ type: "cancel" }),
  retry: () => ({ type: "retry" }),
  /** A component's state as the user left it (a Form's values). */
  componentState: (toolCallId, state) => ({ type: "component_state", tool_call_id: toolCallId, state }),
  /**
   * A pressed button of an A2UI surface a call showed, with what the user
   * entered (`data`: surface id -> {JSON Pointer: value}); the kernel reads
   * the button's event and context from the surface it holds.
   */
  a2uiAction: (toolCallId, surfaceId, componentId, data) => ({
    type: "a2ui_action",
    tool_call_id: toolCallId,
    surface_id: surfaceId,
    component_id: componentId,
    data,
  }),
  /** A user message's new text: the kernel re-runs from it, keeping the old branch. */
  edit: (messageId, text, ref) => ({ type: "edit", message_id: messageId, text, ref }),
  /** A new reply in place of this assistant message (a new branch). */
  regenerate: (messageId) => ({ type: "regenerate", message_id: messageId }),
  /** Show the `index`-th (from 0) version of this message and what follows it. */
  switchBranch: (messageId, index) => ({ type: "switch_branch", message_id: messageId, index }),
  /** `rating`: "up", "down", or null to take a rating back. */
  feedback: (messageId, rating) => ({ type: "feedback", message_id: messageId, rating }),
  newThread: () => ({ type: "new_thread" }),
  switchThread: (threadId) => ({ type: "switch_thread", thread_id: threadId }),
  renameThread: (threadId, title) => ({ type: "rename_thread", thread_id: threadId, title }),
  /** The model picker's choice, by its id in the `model_choices` trait (the next reply uses it). */
  chooseModel: (model) => ({ type: "choose_model", model }),
  /** Ask for a frontend module kept beside the bundle (answered by a `module` message). */
  loadModule: (name) => ({ type: "load_module", name }),
  /** Ask for the thread as markdown (answered by a `transcript` message). */
  transcript: () => ({ type: "transcript" }),
  /** A table of kernel data asks for rows `offset`..`offset + limit`, sorted by `sort` in the
   * kernel, of the rows holding the plain text `filter` in some cell (none: every row). */
  dataWindow: (toolCallId, request, offset, limit, sort = null, descending = false, filter = "") => ({
    type: "data_window",
    tool_call_id: toolCallId,
    request,
    offset,
    limit,
    sort,
    descending,
    ...(filter.trim() ? { filter } : {}),
  }),
  /** A request of the MCP app a call shows (`tools/call`, `resources/read`, `ping`,
   * `ui/update-model-context`), as the app sent it; `approved`: the user's click on the host's bar. */
  mcpApp: (toolCallId, request, method, params, approved = false) => ({
    type: "mcp_app",
    tool_call_id: toolCallId,
    request,
    method,
    params,
    approved,
  }),
});

// --- kernel -> browser ---------------------------------------------------------

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isOptionalString = (v) => v === undefined || typeof v === "string";

export const PATCH_OPS = Object.freeze(["append", "set", "add_part"]);

/** Whether `op` is a patch op this view can apply. */
export function isPatchOp(op) {
  if (!isObject(op) || !Number.isInteger(op.part) || op.part < 0) return false;
  switch (op.op) {
    case "append":
      return typeof op.field === "string" && typeof op.value === "string";
    case "set":
      return typeof op.field === "string" && "value" in op;
    case "add_part":
      return isObject(op.value);
    default:
      return false;
  }
}

/** Whether `m` has a frame's fields (`seq`, `patches: [{id, ops}]`). */
export const isFrame = (m) =>
  isObject(m) &&
  Number.isInteger(m.seq) &&
  Array.isArray(m.patches) &&
  m.patches.every((p) => isObject(p) && typeof p.id === "string" && Array.isArray(p.ops));

const SERVER_MESSAGES = {
  frame: isFrame,
  snapshot: (m) =>
    Number.isInteger(m.seq) &&
    Array.isArray(m.messages) &&
    m.messages.every((item) => isObject(item) && isObject(item.message) && typeof item.rev === "number"),
  accepted: (m) => (m.request === "send" || m.request === "edit") && isOptionalString(m.ref),
  error: (m) => isOptionalString(m.message) && isOptionalString(m.request) && isOptionalString(m.ref),
  component_output: (m) => isObject(m.output) && typeof m.output.tool_call_id === "string",
  transcript: (m) => typeof m.markdown === "string" && typeof m.filename === "string",
  module: (m) =>
    typeof m.name === "string" && (typeof m.source === "string" || typeof m.error === "string"),
  mcp_app: (m) =>
    typeof m.tool_call_id === "string" &&
    Number.isInteger(m.request) &&
    (m.error === undefined || (isObject(m.error) && typeof m.error.message === "string")),
  data_window: (m) =>
    typeof m.tool_call_id === "string" &&
    Number.isInteger(m.request) &&
    Number.isInteger(m.offset) &&
    Number.isInteger(m.total_rows) &&
    Array.isArray(m.columns) &&
    Array.isArray(m.rows) &&
    isOptionalString(m.error),
};

/**
 * A custom message from the kernel if it is one this view knows, well formed; else null.
 * @param {any} msg
 */
export function readServerMessage(msg) {
  if (!isObject(msg)) return null;
  const known = Object.prototype.hasOwnProperty.call(SERVER_MESSAGES, msg.type);
  const valid = known ? SERVER_MESSAGES[msg.type] : null;
  return valid && valid(msg) ? msg : null;
}

// --- names on a tool-call part -------------------------------------------------

const componentCallField = (part, key) => {
  const value = part?.component_call?.[key];
  return typeof value === "string" && value ? value : null;
};

/** The component a call shows, or null. */
export const shownComponent = (part) => componentCallField(part, "component");

/** The id of the component a call shows, or null. */
export const componentIdOf = (part) => componentCallField(part, "component_id");

/** The id of the component an update call changes, or null. */
export const updateOf = (part) => componentCallField(part, "update_of");

// --- names on a message ----------------------------------------------------------

/**
 * Where a message sits among its versions (an edit or a regenerate makes a
 * sibling): `{index, count}` with index from 0, or null when it has none.
 * @param {any} message
 * @returns {{index: number, count: number} | null}
 */
export function branchOf(message) {
  const b = message?.branch;
  if (!isObject(b) || !Number.isInteger(b.index) || !Number.isInteger(b.count)) return null;
  if (b.count < 1 || b.index < 0 || b.index >= b.count) return null;
  return { index: b.index, count: b.count };
}

/**
 * The user's rating of a reply (the kernel keeps it in `metadata.feedback`):
 * "up", "down", or null.
 * @param {any} message
 * @returns {"up" | "down" | null}
 */
export function feedbackOf(message) {
  const rating = message?.metadata?.feedback?.rating;
  return rating === "up" || rating === "down" ? rating : null;
}
