import { describe, expect, it } from "vitest";
import { parsePartialJson } from "../src/partial-json.js";

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
});
