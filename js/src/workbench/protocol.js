// The workbench's wire messages, browser side. They are defined once, as
// pydantic models in src/ipygenui/workbench/_protocol.py;
// ./protocol-wire.generated.js is generated from them (`make protocol`) and
// re-exported here. Requests carry a `ref` the answer echoes: an answer to an
// older edit is dropped.

import { FROM_KERNEL_VALIDATORS } from "./protocol-wire.generated.js";

export { FROM_KERNEL, toKernel } from "./protocol-wire.generated.js";

/** A kernel reply, or null for anything else. @param {any} msg */
export function readReply(msg) {
  if (msg === null || typeof msg !== "object" || !Object.hasOwn(FROM_KERNEL_VALIDATORS, msg.type)) return null;
  return FROM_KERNEL_VALIDATORS[msg.type](msg) ? msg : null;
}
