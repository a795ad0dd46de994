// The workbench's wire messages (the kernel's side: ipygenui/workbench/_protocol.py).
// Requests carry a `ref` the answer echoes: an answer to an older edit is dropped.

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

export const toKernel = {
  /** @param {number} ref @param {string} name @param {string} text */
  checkProps: (ref, name, text) => ({ type: "check_props", ref, name, text }),
  /** @param {number} ref @param {string} name @param {string} text @param {number} chunkChars 0: whole */
  replay: (ref, name, text, chunkChars) => ({ type: "replay", ref, name, text, chunk_chars: chunkChars }),
};

const REPLIES = {
  props_checked: (m) => typeof m.name === "string" && (m.error === null || typeof m.error === "string"),
  replay_states: (m) =>
    typeof m.name === "string" &&
    Array.isArray(m.states) &&
    m.states.every((s) => isObject(s) && typeof s.text === "string" && typeof s.complete === "boolean") &&
    (m.error === null || typeof m.error === "string"),
};

/** A kernel reply, or null for anything else. @param {any} msg */
export function readReply(msg) {
  if (!isObject(msg) || typeof msg.ref !== "number") return null;
  const valid = Object.prototype.hasOwnProperty.call(REPLIES, msg.type) ? REPLIES[msg.type] : null;
  return valid && valid(msg) ? msg : null;
}
