// The wire contract between the browser and the kernel, browser side.
// Every message is defined once, as a pydantic model in
// src/ipygenui/widget/_protocol.py; ./protocol-wire.generated.js is generated
// from those models (`make protocol`) and re-exported here, with what is not
// generated; tests/fixtures/wire.json holds examples both test suites replay.
//
// - Browser -> kernel: custom messages, built only by `toKernel` (generated;
//   the kernel validates each one and answers `error` when it changes nothing).
// - Kernel -> browser: custom messages (`FROM_KERNEL` names them), read only
//   through `readServerMessage`, which drops a malformed one (the next
//   snapshot or trait carries the state).
// - Patch ops (inside frames): `append`, `set` and `add_part` on one part of
//   one message; `isPatchOp` says whether this view can apply one.
// - Names the kernel decides and the view reads, never derives: on a
//   tool-call part, `component_call` says which component a call shows (and
//   its `component_id`) or which component it is an `update_of`
//   (`shownComponent`, `componentIdOf`, `updateOf`); the `standard_params` trait lists the arguments every
//   call carries for the UI.

import { FROM_KERNEL_VALIDATORS, LIMIT_KEYS } from "./protocol-wire.generated.js";

export {
  FROM_KERNEL,
  PACKAGE_VERSION,
  PATCH_OPS,
  TO_KERNEL_TYPES,
  isFrame,
  isPatchOp,
  toKernel,
} from "./protocol-wire.generated.js";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The kernel's limits, from the Chat's `limits` trait (widget/_protocol.py's
 * WIRE_LIMITS defines them; this file has no copy). The view applies them
 * before it sends so the user reads why at once; the kernel checks every
 * message again, so a missing or malformed value only means no early check.
 * @param {any} raw the trait's value
 * @returns {import("./protocol-wire.generated.js").Limits}
 */
export function readLimits(raw) {
  const limit = (key) => {
    const value = isObject(raw) ? raw[key] : undefined;
    return Number.isInteger(value) && value > 0 ? value : Infinity;
  };
  return /** @type {import("./protocol-wire.generated.js").Limits} */ (
    Object.fromEntries(Object.entries(LIMIT_KEYS).map(([name, key]) => [name, limit(key)]))
  );
}

/**
 * A custom message from the kernel if it is one this view knows, well formed; else null.
 * @param {any} msg
 */
export function readServerMessage(msg) {
  if (!isObject(msg) || !Object.hasOwn(FROM_KERNEL_VALIDATORS, msg.type)) return null;
  return FROM_KERNEL_VALIDATORS[msg.type](msg) ? msg : null;
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
