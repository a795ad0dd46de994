// Converges a view's copy of the thread from two sources:
// - durable snapshots (a message model's trait, or a `snapshot` reply),
//   each stamped with `rev`, the frame sequence number it already includes;
// - streamed `frame` custom messages, each with a sequence number `seq`
//   and patch ops per message.
// Messages and frames may arrive in any order (they travel on different
// comms), so frames newer than a message's snapshot are kept and replayed
// on top of the next snapshot. The newest snapshot always wins.

import { isFrame, isPatchOp } from "./protocol.js";
import { noteArgsAppend, noteArgsSet } from "./tool-card/streamed-args.js";

/**
 * Apply patch ops (see protocol.js) to a message in place.
 * @param {any} message
 * @param {Array<any>} ops
 * @returns {any} the message
 */
export function applyOps(message, ops) {
  message.parts ??= [];
  for (const op of ops) {
    if (!isPatchOp(op)) continue; // an op this view does not know: the next snapshot carries it
    const target = message.parts[op.part];
    switch (op.op) {
      case "append":
        if (!target) break;
        target[op.field] = (target[op.field] ?? "") + op.value;
        // The part's parser reads only the new text (tool-card/streamed-args.js).
        if (op.field === "args_text") noteArgsAppend(target, op.value);
        break;
      case "set":
        if (!target) break;
        target[op.field] = op.value;
        noteArgsSet(target, op.field);
        break;
      case "add_part":
        message.parts[op.part] = structuredClone(op.value);
        break;
    }
  }
  return message;
}

/** One message as this view holds it: newest snapshot plus frames that came after it. */
class Entry {
  constructor() {
    this.base = null;
    this.rev = -1;
    /** @type {Array<{seq:number, ops:any[]}>} */
    this.frames = [];
    this.view = null;
  }

  setBase(message, rev) {
    if (rev < this.rev) return false; // older than what this view has
    this.base = message;
    this.rev = rev;
    this.frames = this.frames.filter((f) => f.seq > rev);
    this.view = structuredClone(message);
    for (const f of this.frames) applyOps(this.view, f.ops);
    return true;
  }

  addFrame(seq, ops) {
    if (seq <= this.rev) return false; // already inside the snapshot
    this.frames.push({ seq, ops });
    if (this.view) applyOps(this.view, ops);
    return this.view !== null;
  }
}

// The browser's copy of a thread's messages: one Entry (snapshot + frames)
// per message id, in the `messages` trait's order. (The kernel's folder of
// saved threads is `ThreadStore` in `persistence/store.py`; this is not that.)
export class MessageStore {
  constructor() {
    /** @type {Map<string, Entry>} */
    this.entries = new Map();
    /** @type {string[]} order of message ids, from the `messages` trait */
    this.order = [];
    this.seq = -1;
    this.listeners = new Set();
  }

  entry(id) {
    let e = this.entries.get(id);
    if (!e) {
      e = new Entry();
      this.entries.set(id, e);
    }
    return e;
  }

  /** @param {(ids: string[]) => void} fn called with the ids that changed */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(ids) {
    if (ids.length) for (const fn of this.listeners) fn(ids);
  }

  setOrder(ids) {
    this.order = ids.slice();
    for (const id of [...this.entries.keys()]) {
      if (!ids.includes(id) && this.entries.get(id)?.base) this.entries.delete(id);
    }
    this.emit(["*order*"]);
  }

  /** A durable snapshot: `{message, rev}` as the kernel stamps it. */
  setSnapshot(message, rev) {
    if (!message || typeof message.id !== "string") return;
    if (this.entry(message.id).setBase(message, rev ?? -1)) this.emit([message.id]);
  }

  /** A `frame` custom message: `{seq, patches: [{id, ops}]}` (see protocol.js). */
  applyFrame(frame) {
    if (!isFrame(frame)) return;
    this.seq = Math.max(this.seq, frame.seq);
    const changed = [];
    for (const patch of frame.patches) {
      if (this.entry(patch.id).addFrame(frame.seq, patch.ops)) changed.push(patch.id);
    }
    this.emit(changed);
  }

  /** The live message as this view knows it, or null. */
  get(id) {
    return this.entries.get(id)?.view ?? null;
  }

  /** The live messages, in thread order, skipping any not yet received. */
  messages() {
    return this.order.map((id) => this.get(id)).filter((m) => m !== null);
  }
}
