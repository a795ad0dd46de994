// Screen readers hear a reply's start and end from one polite status region,
// never its streamed text: the thread is not a live region.
import { describe, expect, it } from "vitest";
import { REPLYING, createAnnouncer, endText } from "../../src/thread/announcer.js";
import { createThreadView } from "../../src/thread/view.js";

const reply = (status) => ({ id: "a1", role: "assistant", parts: [{ type: "text", text: "Hello there" }], status });

describe("announcer", () => {
  it("says a reply started and how it ended, never its text", () => {
    const a = createAnnouncer();
    expect(a.el.getAttribute("role")).toBe("status");
    expect(a.el.getAttribute("aria-live")).toBe("polite");
    a.update([], false); // the chat opens idle: nothing to say
    expect(a.el.textContent).toBe("");
    a.update([reply({ type: "running" })], true);
    expect(a.el.textContent).toBe(REPLYING);
    a.update([reply({ type: "running" })], true); // tokens stream: the region stays as it is
    expect(a.el.textContent).toBe(REPLYING);
    a.update([reply({ type: "complete" })], false);
    expect(a.el.textContent).toBe("Reply finished.");
    expect(a.el.textContent).not.toContain("Hello");
  });

  it("a chat opened mid-run says nothing until the run changes", () => {
    const a = createAnnouncer();
    a.update([reply({ type: "running" })], true);
    expect(a.el.textContent).toBe("");
  });

  it("words a stopped, failed or waiting reply", () => {
    expect(endText(reply({ type: "incomplete", reason: "cancelled" }))).toBe("Reply stopped.");
    expect(endText(reply({ type: "incomplete", reason: "error", error: "rate limited" }))).toBe(
      "The reply ended early: rate limited",
    );
    expect(endText(reply({ type: "requires-action", reason: "tool-calls" }))).toBe("The reply waits for you.");
  });

  it("the thread is a log that is not read out as it grows", () => {
    const view = createThreadView({ send: () => {}, notify: () => {}, isHuman: () => false });
    expect(view.el.getAttribute("role")).toBe("log");
    expect(view.el.getAttribute("aria-live")).toBe("off");
  });
});
