// Incremental parser for a JSON value streamed in chunks, as a model streams
// tool arguments: feed each chunk once, read the value so far. Re-parsing the
// whole prefix on every chunk would cost time quadratic in the text's length;
// this keeps a stack of the open containers and the token being read, reads
// only the new characters and updates the value in place (the kernel's
// `_internal/partial_json.py` is the same parser).
//
// The value so far: complete keys with their (possibly partial) values.
// - an unterminated string shows its decoded prefix; an escape cut by the
//   chunk boundary is left out until it is complete;
// - a number shows once its text is a valid JSON number (`12`; not `-`,
//   `1.` or `1e`);
// - `true` / `false` / `null` appear only once complete;
// - a key whose value has not started (`{"a`, `{"a":`) is left out.
// Text that can never become JSON makes the parser `failed`: its value is
// then `undefined`, and so are all later reads.

// eslint-disable-next-line no-control-regex -- a JSON string ends at a control character
const STRING_RUN = /[^"\\\x00-\x1f]*/y;
const NUMBER_RUN = /[0-9+\-.eE]*/y;
const LITERAL_RUN = /[a-z]*/y;
const SPACE_RUN = /[ \t\n\r]*/y;
const HEX4 = /^[0-9a-fA-F]{0,4}$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
// Every prefix of a valid number (and nothing else) matches this.
const NUMBER_PREFIX = /^-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*|(?:\.[0-9]+)?[eE][+-]?[0-9]*)?)?$/;
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
/** @type {Record<string, [string, unknown]>} */
const LITERALS = { t: ["true", true], f: ["false", false], n: ["null", null] };

// parser states
const VALUE = 0;
const AFTER = 1;
const KEY = 2;
const COLON = 3;
const STRING = 4;
const NUMBER_TOKEN = 5;
const LITERAL = 6;
const DONE = 7;

/** @param {RegExp} re a sticky regex @param {string} s @param {number} i @returns {number} where the run ends */
function runEnd(re, s, i) {
  re.lastIndex = i;
  re.exec(s);
  return re.lastIndex;
}

/** `obj[key] = value`, as JSON.parse does it: a `__proto__` key is an own property, not the prototype. */
function setKey(obj, key, value) {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

export class PartialJsonParser {
  constructor() {
    this.state = VALUE;
    /** @type {Array<{container: any, isArray: boolean, key: string}>} the open objects and arrays */
    this.stack = [];
    this.allowClose = false; // right after "{" or "[": "}" / "]" may close it
    /** @type {any} */
    this.root = undefined;
    /** Characters fed so far (a test reads it: each chunk is read once). */
    this.consumed = 0;
    this.carry = ""; // an escape cut by the chunk boundary
    this.token = ""; // the scalar being read: a string decoded so far, a number's or literal's text
    this.tokenIsKey = false;
    this.tokenShown = false; // a partial display of the token sits in its slot
    this.dirty = false; // text fed since the partial token was shown
    this.failed = false;
  }

  /** True once a complete JSON value has been read. */
  get done() {
    return !this.failed && this.state === DONE;
  }

  /** The value so far (live: objects and arrays grow in place); undefined before anything or after a failure. */
  get value() {
    if (this.failed) return undefined;
    if (this.dirty) {
      this.dirty = false;
      this.showPartialToken();
    }
    return this.root;
  }

  /** Read the next characters of the text. @param {string} chunk */
  feed(chunk) {
    if (this.failed || !chunk) return;
    this.consumed += chunk.length;
    const s = this.carry ? this.carry + chunk : chunk;
    this.carry = "";
    this.dirty = true;
    try {
      this.scan(s);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      this.failed = true;
    }
  }

  /** @param {string} s */
  scan(s) {
    const n = s.length;
    let i = 0;
    while (i < n) {
      const state = this.state;
      if (state === STRING) {
        const j = runEnd(STRING_RUN, s, i);
        if (j > i) this.token += s.slice(i, j);
        i = j;
        if (i >= n) break;
        const c = s[i];
        if (c === '"') {
          i++;
          this.endString();
        } else if (c === "\\") {
          const e = s[i + 1];
          if (e === undefined) {
            this.carry = s.slice(i);
            break;
          }
          if (e === "u") {
            const hex = s.slice(i + 2, i + 6);
            if (!HEX4.test(hex)) throw new SyntaxError("invalid \\u escape");
            if (hex.length < 4) {
              this.carry = s.slice(i);
              break;
            }
            this.token += String.fromCharCode(parseInt(hex, 16));
            i += 6;
          } else if (e in ESCAPES) {
            this.token += ESCAPES[e];
            i += 2;
          } else throw new SyntaxError(`invalid escape \\${e}`);
        } else throw new SyntaxError("control character in a string");
        continue;
      }
      if (state === NUMBER_TOKEN) {
        const j = runEnd(NUMBER_RUN, s, i);
        this.token += s.slice(i, j);
        i = j;
        if (j < n) this.endNumber(); // a delimiter ended the number
        else if (!NUMBER_PREFIX.test(this.token)) throw new SyntaxError("invalid number");
        continue;
      }
      if (state === LITERAL) {
        const j = runEnd(LITERAL_RUN, s, i);
        this.token += s.slice(i, j);
        i = j;
        const [word, literal] = LITERALS[this.token[0]];
        if (!word.startsWith(this.token) || (j < n && this.token.length < word.length)) {
          throw new SyntaxError("invalid literal");
        }
        if (this.token.length === word.length) this.endScalar(literal);
        continue;
      }
      const c = s[i];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") {
        i = runEnd(SPACE_RUN, s, i);
        continue;
      }
      if (state === AFTER) {
        const top = this.stack[this.stack.length - 1];
        if (c === ",") {
          this.state = top.isArray ? VALUE : KEY;
          this.allowClose = false;
        } else if (c === (top.isArray ? "]" : "}")) this.close();
        else throw new SyntaxError("expected ',' or a close");
        i++;
      } else if (state === KEY) {
        if (c === '"') this.startToken(STRING, true);
        else if (c === "}" && this.allowClose) this.close();
        else throw new SyntaxError("expected an object key");
        i++;
      } else if (state === COLON) {
        if (c !== ":") throw new SyntaxError("expected ':'");
        this.state = VALUE;
        this.allowClose = false;
        i++;
      } else if (state === VALUE) {
        i = this.startValue(s, i);
      } else throw new SyntaxError("unexpected data after the JSON value");
    }
  }

  /** @param {string} s @param {number} i @returns {number} where scanning goes on */
  startValue(s, i) {
    const c = s[i];
    if (c === "{" || c === "[") {
      const isArray = c === "[";
      const container = isArray ? [] : {};
      this.place(container);
      this.stack.push({ container, isArray, key: "" });
      this.state = isArray ? VALUE : KEY;
      this.allowClose = true;
    } else if (c === '"') {
      this.startToken(STRING, false);
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      this.startToken(NUMBER_TOKEN, false);
      return i; // the number scanner reads this character
    } else if (c in LITERALS) {
      this.startToken(LITERAL, false);
      return i;
    } else if (c === "]" && this.allowClose && this.stack[this.stack.length - 1]?.isArray) {
      this.close();
    } else throw new SyntaxError("expected a JSON value");
    return i + 1;
  }

  startToken(state, isKey) {
    this.state = state;
    this.token = "";
    this.tokenIsKey = isKey;
    this.tokenShown = false;
  }

  endString() {
    const text = this.token;
    this.token = "";
    if (this.tokenIsKey) {
      this.stack[this.stack.length - 1].key = text;
      this.state = COLON;
    } else this.endScalar(text);
  }

  endNumber() {
    if (!NUMBER.test(this.token)) throw new SyntaxError("invalid number");
    this.endScalar(Number(this.token));
  }

  endScalar(value) {
    this.token = "";
    this.place(value);
    this.tokenShown = false;
    this.state = this.stack.length ? AFTER : DONE;
  }

  /** Put a value in the slot the text is at (replacing the token's partial display). */
  place(value) {
    const top = this.stack[this.stack.length - 1];
    if (!top) this.root = value;
    else if (!top.isArray) setKey(top.container, top.key, value);
    else if (this.tokenShown) top.container[top.container.length - 1] = value;
    else top.container.push(value);
  }

  /** Take the token's partial display out of its slot (a number that is not valid yet). */
  unplace() {
    if (!this.tokenShown) return;
    this.tokenShown = false;
    const top = this.stack[this.stack.length - 1];
    if (!top) this.root = undefined;
    else if (!top.isArray) delete top.container[top.key];
    else top.container.pop();
  }

  showPartialToken() {
    if (this.tokenIsKey) return;
    if (this.state === STRING) {
      this.place(this.token);
      this.tokenShown = true;
    } else if (this.state === NUMBER_TOKEN) {
      if (!NUMBER.test(this.token)) this.unplace();
      else {
        this.place(Number(this.token));
        this.tokenShown = true;
      }
    }
  }

  close() {
    this.stack.pop();
    this.state = this.stack.length ? AFTER : DONE;
  }
}

/**
 * Parse the known part of a streamed JSON text at once.
 * @param {string} text
 * @returns {any} the value so far, or undefined when nothing is known or the text is not JSON
 */
export function parsePartialJson(text) {
  if (!text) return undefined;
  const parser = new PartialJsonParser();
  parser.feed(text);
  return parser.value;
}
