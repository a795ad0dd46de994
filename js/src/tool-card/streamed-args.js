// The parsed arguments of each tool-call part, parsed once.
//
// While a call's `args_text` streams, the sync layer (sync.js) feeds each
// `append` it applies to one incremental parser kept for that part: a frame
// costs the length of its new text, not of the whole text (a 1,000-row table
// is not re-parsed on each of its frames). When the arguments are complete
// the parser is dropped: the kernel's validated `args` stand if a `set` of
// them came after the last append (the kernel leaves them out of a frame
// that appends, see widget/_sync.py), else the parser's final value. A part
// that did not stream in this view (a snapshot) is parsed once, on first
// read, when the kernel left its `args` out because the text gives them.
//
// A part's parse lives in a WeakMap keyed by the part object of the view's copy of
// the thread, so it goes when a new snapshot replaces that copy.

import { PartialJsonParser } from "../common/partial-json.js";

/**
 * @typedef {{parser: PartialJsonParser | null, value: any, whole: boolean, kernelArgsCurrent: boolean, revision: number}} ArgsParse
 *   `whole`: the text (read without a parser) is one complete JSON value
 */

/** @type {WeakMap<object, ArgsParse>} */
const parses = new WeakMap();

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The sync layer appended `text` to a part's `args_text` (already applied).
 * @param {any} part @param {string} text
 */
export function noteArgsAppend(part, text) {
  let parse = parses.get(part);
  if (!parse?.parser) {
    // The first append this view sees: the text before it came in a snapshot.
    const parser = new PartialJsonParser();
    const before = String(part.args_text ?? "");
    parser.feed(before.slice(0, before.length - text.length));
    parse = { parser, value: undefined, whole: false, kernelArgsCurrent: false, revision: (parse?.revision ?? 0) + 1 };
    parses.set(part, parse);
  }
  parse.parser?.feed(text);
  parse.kernelArgsCurrent = false;
  parse.revision++;
}

/**
 * The sync layer set a field of a part: the kernel's `args` are current
 * again (a later read prefers them once the arguments are complete).
 * @param {any} part @param {string} field
 */
export function noteArgsSet(part, field) {
  if (field !== "args" && field !== "args_complete" && field !== "args_text") return;
  const parse = parses.get(part);
  if (!parse) return;
  parse.revision++;
  if (field === "args" && parse.parser) parse.kernelArgsCurrent = true;
  else if (field !== "args_complete") parses.delete(part); // new arguments after the stream (an edit): read afresh
}

/** @param {any} part @returns {ArgsParse} */
function parseOf(part) {
  let parse = parses.get(part);
  if (!parse) {
    const args = part.args;
    let value = args;
    let whole = false;
    if (!isObject(args) || (!Object.keys(args).length && part.args_text)) {
      const parser = new PartialJsonParser();
      parser.feed(String(part.args_text ?? ""));
      value = parser.value;
      whole = parser.done;
    }
    parse = { parser: null, value, whole, kernelArgsCurrent: false, revision: 0 };
    parses.set(part, parse);
  } else if (parse.parser && part.args_complete) {
    // Complete: the parser's work is done; keep its value unless the kernel's is newer.
    const kernel = parse.kernelArgsCurrent && isObject(part.args) && Object.keys(part.args).length;
    parse.value = kernel ? part.args : parse.parser.value;
    parse.whole = parse.parser.done;
    parse.parser = null;
    parse.revision++;
  }
  return parse;
}

/**
 * A call's arguments as parsed so far: an object, or the kernel's `args`
 * when the text does not parse to one. Live while streaming: objects grow
 * in place, so copy what must not change.
 * @param {any} part
 */
export function parsedArgs(part) {
  const parse = parseOf(part);
  const value = parse.parser ? parse.parser.value : parse.value;
  return isObject(value) ? value : part.args;
}

/**
 * A number that changes whenever `parsedArgs(part)` may have (same part
 * object): lets a view skip work while nothing new arrived.
 * @param {any} part
 */
export function argsRevision(part) {
  return parseOf(part).revision;
}

/**
 * Whether the text read so far is one whole JSON value: all the arguments
 * are there, though the kernel may not have marked them complete yet (a
 * provider that sends a call's arguments in one piece, then ends the step
 * later). Their component then renders them settled, in one step.
 * @param {any} part
 */
export function argsWhole(part) {
  const parse = parseOf(part);
  return parse.parser ? parse.parser.done : parse.whole;
}

/** Whether the part's arguments are being read from its stream (a parser is live). */
export function argsStreaming(part) {
  return !!parses.get(part)?.parser && !part.args_complete;
}

/** Characters the part's parser has read (tests: each append is read once). */
export function argsCharsRead(part) {
  return parses.get(part)?.parser?.consumed ?? 0;
}
