import { describe, expect, it } from "vitest";
import { PartialJsonParser, parsePartialJson } from "../../src/common/partial-json.js";

describe("parsePartialJson", () => {
  it("parses complete JSON like JSON.parse", () => {
    const value = { a: [1, -2.5, true, false, null], b: { c: "x\"y\\z\n\u00e9" }, d: 1e3 };
    expect(parsePartialJson(JSON.stringify(value))).toEqual(value);
  });

  it("shows a string value while it streams but drops a half key", () => {
    expect(parsePartialJson('{"city": "Par')).toEqual({ city: "Par" });
    expect(parsePartialJson('{"city": "Paris", "cou')).toEqual({ city: "Paris" });
    expect(parsePartialJson('{"city": "Paris", "country":')).toEqual({ city: "Paris" });
  });

  it("leaves out literals and numbers that are not known yet", () => {
    expect(parsePartialJson('{"ok": tr')).toEqual({});
    expect(parsePartialJson('{"n": -')).toEqual({});
    expect(parsePartialJson('{"n": 12')).toEqual({ n: 12 });
  });

  it("drops an escape cut in the middle", () => {
    expect(parsePartialJson('{"s": "a\\')).toEqual({ s: "a" });
    expect(parsePartialJson('{"s": "a\\u00')).toEqual({ s: "a" });
  });

  it("every prefix of a table parses to a prefix-consistent value", () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 }));
    const text = JSON.stringify({ _status_message: "loading", rows });
    let lastRows = 0;
    for (let i = 1; i <= text.length; i++) {
      const value = parsePartialJson(text.slice(0, i));
      if (value === undefined) continue;
      const n = value.rows?.length ?? 0;
      expect(n).toBeGreaterThanOrEqual(lastRows); // rows never disappear as text grows
      lastRows = n;
      for (const row of (value.rows ?? []).slice(0, -1)) expect(row).toEqual(rows[row.id]);
    }
    expect(parsePartialJson(text)).toEqual({ _status_message: "loading", rows });
  });

  it("returns undefined for empty or non-JSON text", () => {
    expect(parsePartialJson("")).toBeUndefined();
    expect(parsePartialJson("hello")).toBeUndefined();
    expect(parsePartialJson('{"a" 1}')).toBeUndefined();
  });

  it("shows a number only once its text is a valid number (as the kernel's parser)", () => {
    expect(parsePartialJson('{"n": 1.')).toEqual({});
    expect(parsePartialJson('{"n": 1.5')).toEqual({ n: 1.5 });
    expect(parsePartialJson('{"n": 1e')).toEqual({});
    expect(parsePartialJson('{"n": 01}')).toBeUndefined();
  });

  it("a __proto__ key is an own property, as JSON.parse makes it, never the prototype", () => {
    const text = '{"__proto__": {"polluted": true}, "a": 1}';
    for (const value of [parsePartialJson(text), parsePartialJson(text.slice(0, 30))]) {
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(value.polluted).toBeUndefined();
      expect(Object.keys(value)[0]).toBe("__proto__");
    }
    expect(parsePartialJson(text)).toEqual(JSON.parse(text));
  });
});

describe("PartialJsonParser", () => {
  const DOCS = [
    { a: [1, -2.5, true, false, null, "x\"y\\z\n\u00e9 \ud83d\ude00"], b: { c: { d: [[], {}, [0.5e-3]] } } },
    { _status_message: "loading", rows: Array.from({ length: 12 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0, v: i * 1.25 })) },
    ["top", 1, [2, [3, { four: 4 }]]],
    "a plain string with an escape \t and a \u2028",
    -12.5e3,
  ];

  it("fed in pieces of any size, shows after each piece what a parse of the text so far shows", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const doc of DOCS) {
      const text = JSON.stringify(doc, null, seed % 2 ? 2 : 0);
      for (let run = 0; run < 20; run++) {
        const parser = new PartialJsonParser();
        let at = 0;
        while (at < text.length) {
          const size = 1 + Math.floor(random() * 9);
          parser.feed(text.slice(at, at + size));
          at += size;
          // The value is live: compare a copy, as a reader that keeps it would.
          expect(structuredClone(parser.value)).toEqual(parsePartialJson(text.slice(0, at)));
        }
        expect(parser.value).toEqual(JSON.parse(text));
        expect(parser.done).toBe(typeof doc !== "number"); // a number may still grow
        expect(parser.consumed).toBe(text.length);
      }
    }
  });

  it("text that can never be JSON fails for good, and the value is then unknown", () => {
    const parser = new PartialJsonParser();
    parser.feed('{"a": 1');
    expect(parser.value).toEqual({ a: 1 });
    parser.feed(" x");
    expect(parser.failed).toBe(true);
    expect(parser.value).toBeUndefined();
    parser.feed("}");
    expect(parser.value).toBeUndefined();
    expect(parsePartialJson('{"a": 1} {')).toBeUndefined();
    expect(parsePartialJson(String.raw`{"s": "a\x"}`)).toBeUndefined();
    expect(parsePartialJson(String.raw`{"s": "line\nbreak"}`)).toEqual({ s: "line\nbreak" });
    expect(parsePartialJson("{\"s\": \"raw\nbreak\"}")).toBeUndefined(); // a raw line break, as JSON.parse refuses
  });
});
