// GENERATED FILE: do not edit. `make protocol` writes it (python -m
// ipygenui.workbench._wire_codegen) from the pydantic models of
// src/ipygenui/workbench/_protocol.py, where every message is defined; change a
// message there and run `make protocol` (a test fails while this file is stale).
// js/src/workbench/protocol.js re-exports it with what is not generated.

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The `type` of every message the browser sends. */
export const TO_KERNEL_TYPES = Object.freeze([
  "check_props",
  "replay",
]);

/** Every message type the kernel sends, by name (a dispatch table's keys). */
export const FROM_KERNEL = Object.freeze({
  props_checked: "props_checked",
  replay_states: "replay_states",
});

// --- browser -> kernel: the only way a view builds a message --------------------

export const toKernel = Object.freeze({
  /** Check the props the user typed for one component (answered by `props_checked`). */
  checkProps: (ref, name, text) => ({ type: "check_props", ref, name, text }),
  /**
   * Stream the props in chunks of `chunk_chars` (0: the whole text at once), as a model would
   * (answered by `replay_states`).
   */
  replay: (ref, name, text, chunkChars = 0) => ({ type: "replay", ref, name, text, chunk_chars: chunkChars }),
});

// --- kernel -> browser: a validator per message (its `type` picked it) ----------

const isReplayState = (v) =>
  isObject(v) &&
  typeof v.text === "string" &&
  typeof v.complete === "boolean";

/** `props_checked`: The props parsed and checked; `error`: what is wrong with them, or null. */
export const isPropsChecked = (m) =>
  isObject(m) &&
  Number.isInteger(m.ref) &&
  m.ref >= 0 &&
  typeof m.name === "string" &&
  "props" in m &&
  (typeof m.error === "string" || m.error === null);

/**
 * `replay_states`: The states a streamed replay goes through; `error`: the props' problem, or
 * null.
 */
export const isReplayStates = (m) =>
  isObject(m) &&
  Number.isInteger(m.ref) &&
  m.ref >= 0 &&
  typeof m.name === "string" &&
  Array.isArray(m.states) &&
  m.states.every(isReplayState) &&
  (typeof m.error === "string" || m.error === null);

/** The validator of each message the kernel sends, by its `type`. */
export const FROM_KERNEL_VALIDATORS = Object.freeze({
  props_checked: isPropsChecked,
  replay_states: isReplayStates,
});
