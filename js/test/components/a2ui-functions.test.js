// The A2UI catalog's functions run model-written patterns on the data model:
// each is bounded, and none takes time out of proportion to its text.
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_DATE_PATTERN, runCall } from "../../src/a2ui/functions.js";

const formatDate = (value, format) => runCall({ call: "formatDate", args: { value, format } }, (v) => v, () => undefined);

afterEach(() => vi.restoreAllMocks());

describe("formatDate", () => {
  it("formats the catalog's tokens, quoted text kept", () => {
    expect(formatDate("2024-03-05", "yyyy-MM-dd")).toBe("2024-03-05");
    expect(formatDate("2024-03-05", "d/M/yy 'at' HH:mm")).toBe("5/3/24 at 00:00");
  });

  it("refuses a pattern over the cap, fast, and formats one at it", () => {
    const started = performance.now();
    expect(formatDate("2024-03-05", "MMMM ".repeat(40_000))).toBeUndefined(); // 200,000 characters
    expect(performance.now() - started).toBeLessThan(200);
    const atCap = "MMMM".repeat(MAX_DATE_PATTERN / 4);
    expect(atCap.length).toBe(MAX_DATE_PATTERN);
    const long = formatDate("2024-03-05", atCap);
    expect(long).toBe(formatDate("2024-03-05", "MMMM").repeat(MAX_DATE_PATTERN / 4));
  });

  it("builds each locale name once per call, however often the pattern names it", () => {
    const once = formatDate("2024-03-05", "MMMM EEEE");
    let made = 0;
    const counting = new Proxy(Intl.DateTimeFormat, {
      construct(target, args) {
        made++;
        return Reflect.construct(target, args);
      },
    });
    vi.spyOn(Intl, "DateTimeFormat", "get").mockReturnValue(counting);
    expect(formatDate("2024-03-05", "MMMM EEEE ".repeat(MAX_DATE_PATTERN / 10))).toBe(`${once} `.repeat(MAX_DATE_PATTERN / 10));
    expect(made).toBe(2); // the month's name and the weekday's
  });
});
