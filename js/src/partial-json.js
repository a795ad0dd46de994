// Tolerant parser for a JSON *prefix*, as a model streams tool arguments.
// Returns what is known so far: complete keys with their (possibly partial)
// values; a key whose value has not started yet is left out. Never throws:
// text that is not a JSON prefix gives `undefined`.

const MISSING = Symbol("missing");

class Prefix {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
    this.i = 0;
  }

  get done() {
    return this.i >= this.text.length;
  }

  ws() {
    while (!this.done && " \t\n\r".includes(this.text[this.i])) this.i++;
  }

  value() {
    this.ws();
    if (this.done) return MISSING;
    const c = this.text[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string().value;
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    return this.literal();
  }

  object() {
    this.i++; // {
    const out = {};
    for (;;) {
      this.ws();
      if (this.done) return out;
      if (this.text[this.i] === "}") {
        this.i++;
        return out;
      }
      if (this.text[this.i] !== '"') throw new SyntaxError("expected key");
      const key = this.string();
      if (!key.complete) return out;
      this.ws();
      if (this.done) return out;
      if (this.text[this.i] !== ":") throw new SyntaxError("expected ':'");
      this.i++;
      const v = this.value();
      if (v !== MISSING) out[key.value] = v;
      this.ws();
      if (this.done) return out;
      const sep = this.text[this.i++];
      if (sep === "}") return out;
      if (sep !== ",") throw new SyntaxError("expected ',' or '}'");
    }
  }

  array() {
    this.i++; // [
    const out = [];
    for (;;) {
      this.ws();
      if (this.done) return out;
      if (this.text[this.i] === "]") {
        this.i++;
        return out;
      }
      const v = this.value();
      if (v !== MISSING) out.push(v);
      this.ws();
      if (this.done) return out;
      const sep = this.text[this.i++];
      if (sep === "]") return out;
      if (sep !== ",") throw new SyntaxError("expected ',' or ']'");
    }
  }

  string() {
    const text = this.text;
    this.i++; // opening quote
    let out = "";
    let start = this.i;
    while (this.i < text.length) {
      const c = text[this.i];
      if (c === '"') {
        out += text.slice(start, this.i);
        this.i++;
        return { value: out, complete: true };
      }
      if (c === "\\") {
        out += text.slice(start, this.i);
        start = text.length; // the text before the escape is in `out` now
        const esc = text[this.i + 1];
        if (esc === undefined) break; // cut inside an escape: drop it
        if (esc === "u") {
          const hex = text.slice(this.i + 2, this.i + 6);
          if (hex.length < 4) break;
          out += String.fromCharCode(parseInt(hex, 16));
          this.i += 6;
        } else {
          out += ESCAPES[esc] ?? esc;
          this.i += 2;
        }
        start = this.i;
        continue;
      }
      this.i++;
    }
    out += text.slice(start);
    this.i = text.length;
    return { value: out, complete: false };
  }

  number() {
    const m = /^-?\d*(\.\d*)?([eE][+-]?\d*)?/.exec(this.text.slice(this.i));
    const raw = m ? m[0] : "";
    this.i += raw.length;
    const n = parseFloat(raw);
    return Number.isFinite(n) ? n : MISSING;
  }

  literal() {
    for (const [word, value] of LITERALS) {
      const rest = this.text.slice(this.i, this.i + word.length);
      if (rest === word) {
        this.i += word.length;
        return value;
      }
      if (word.startsWith(rest) && this.i + rest.length >= this.text.length) {
        this.i = this.text.length; // a literal cut short: not known yet
        return MISSING;
      }
    }
    throw new SyntaxError("unexpected character");
  }
}

const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
/** @type {[string, unknown][]} */
const LITERALS = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/**
 * Parse the known part of a streamed JSON text.
 * @param {string} text
 * @returns {any} the value so far, or undefined when nothing is known or the text is not JSON
 */
export function parsePartialJson(text) {
  if (!text) return undefined;
  try {
    const v = new Prefix(text).value();
    return v === MISSING ? undefined : v;
  } catch {
    return undefined;
  }
}
