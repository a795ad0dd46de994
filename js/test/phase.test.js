import { describe, expect, it } from "vitest";
import { phaseText } from "../src/widget.js";

describe("the header's status line", () => {
  it("says what a thinking model waits for, and plain Thinking… otherwise", () => {
    expect(phaseText("thinking", "Rate limited by http://127.0.0.1:8000/v1: retrying in 118 s (retry 1 of 2)")).toBe(
      "Rate limited by http://127.0.0.1:8000/v1: retrying in 118 s (retry 1 of 2)",
    );
    expect(phaseText("thinking", "No answer from http://127.0.0.1:8000/v1 for 30 s")).toBe(
      "No answer from http://127.0.0.1:8000/v1 for 30 s",
    );
    expect(phaseText("thinking", "")).toBe("Thinking…");
    expect(phaseText("thinking", undefined)).toBe("Thinking…");
  });

  it("keeps the other phases as they were", () => {
    expect(phaseText("running-tool", "drop_table")).toBe("Running drop table…");
    expect(phaseText("running-tool", "")).toBe("Running a tool…");
    expect(phaseText("waiting", "")).toBe("Waiting for you");
    expect(phaseText("idle", "stale detail")).toBe("");
  });
});
