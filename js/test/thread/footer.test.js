// The reply footer: tokens (reasoning and cached only when nonzero), the
// reply's and the thread's cost as the kernel priced them, how full the
// context window is when known; each piece whole, wrapping between pieces.
import { describe, expect, it } from "vitest";
import { createFooter, dollars, footerText, footerTitle, runFooter } from "../../src/thread/footer.js";

const reply = (metadata) => ({ role: "assistant", metadata: { started_at: 10, ended_at: 12.5, ...metadata } });

const PRICED = {
  usage: {
    input_tokens: 1200,
    output_tokens: 300,
    reasoning_tokens: 120,
    cache_read_tokens: 1000,
    cache_write_tokens: 40,
  },
  cost: { usd: 0.000435, thread_usd: 0.0452, priced_as: "openai:gpt-4o-mini" },
  context: { tokens: 12800, window: 128000 },
};

describe("footer", () => {
  it("shows every count, the reply's and the thread's cost, and the context", () => {
    expect(footerText(runFooter(reply(PRICED)))).toBe(
      "1,500 tokens (1,200 in, 300 out, 120 reasoning, 1,000 cached) · $0.00044 · thread $0.045" +
        " · 10% of 128k context · 2.5 s",
    );
  });

  it("leaves out reasoning and cached tokens when they are zero", () => {
    const usage = { input_tokens: 7, output_tokens: 5, reasoning_tokens: 0, cache_read_tokens: 0 };
    expect(footerText(runFooter(reply({ usage })))).toBe("12 tokens (7 in, 5 out) · 2.5 s");
  });

  it("an unpriced reply with an unknown window shows tokens only", () => {
    const usage = { input_tokens: 10, output_tokens: 2 };
    const text = footerText(runFooter(reply({ usage, context: { tokens: 10, window: null } })));
    expect(text).toBe("12 tokens (10 in, 2 out) · 2.5 s");
    expect(text).not.toContain("$");
  });

  it("reads an old reply's two counts and ignores odd values", () => {
    const odd = { usage: { input_tokens: 3, output_tokens: "x", reasoning_tokens: -4 }, cost: { usd: "1" } };
    expect(footerText(runFooter(reply(odd)))).toBe("3 tokens (3 in, 0 out) · 2.5 s");
  });

  it("says how full a nearly full window is", () => {
    const context = { tokens: 190000, window: 200000 };
    expect(footerText(runFooter(reply({ context })))).toBe("95% of 200k context · 2.5 s");
    const tiny = { tokens: 10, window: 1048576 };
    expect(footerText(runFooter(reply({ context: tiny })))).toBe("<1% of 1M context · 2.5 s");
  });

  it("prices with the digits a reply needs", () => {
    expect(dollars(0)).toBe("$0");
    expect(dollars(0.00001)).toBe("<$0.0001");
    expect(dollars(0.0012)).toBe("$0.0012");
    expect(dollars(0.0456)).toBe("$0.046");
    expect(dollars(12.345)).toBe("$12.35");
  });

  it("the tooltip has every number in full and what the reply was priced as", () => {
    const title = footerTitle(runFooter(reply(PRICED)));
    expect(title).toContain("Input: 1,200 tokens (1,000 read from cache, 40 written to cache)");
    expect(title).toContain("Output: 300 tokens (120 reasoning)");
    expect(title).toContain("$0.000435, priced as openai:gpt-4o-mini");
    expect(title).toContain("Thread so far: $0.0452");
    expect(title).toContain("Context: 12,800 of 128,000 tokens");
  });

  it("renders each piece whole, separated where a narrow chat may wrap", () => {
    const footer = createFooter();
    footer.update(runFooter(reply(PRICED)));
    const items = [...footer.el.querySelectorAll(".gu-footer-item")].map((e) => e.textContent);
    expect(items).toEqual([
      "1,500 tokens (1,200 in, 300 out, 120 reasoning, 1,000 cached)",
      "$0.00044",
      "thread $0.045",
      "10% of 128k context",
      "2.5 s",
    ]);
    expect(footer.el.textContent).toBe(footerText(runFooter(reply(PRICED))));
    expect(footer.el.hidden).toBe(false);
    expect(footer.el.title).toContain("priced as openai:gpt-4o-mini");
    footer.update(null);
    expect(footer.el.hidden).toBe(true);
    expect(footer.el.hasAttribute("title")).toBe(false);
  });

  it("an estimate (the offline demo's) is marked: ≈ and 'estimated', unpriced", () => {
    const usage = { input_tokens: 337, output_tokens: 57, estimated: true };
    const footer = runFooter(reply({ usage, context: { tokens: 337, window: null } }));
    expect(footerText(footer)).toBe("≈394 tokens (337 in, 57 out, estimated) · 2.5 s");
    expect(footerTitle(footer)).toContain("Estimated by the model");
    expect(footerText(runFooter(reply({ usage: { ...usage, estimated: "yes" } })))).not.toContain("≈");
  });

  it("an estimate priced as another model says what it would cost there", () => {
    const usage = { input_tokens: 337, output_tokens: 57, estimated: true };
    const cost = { usd: 0.000148, thread_usd: 0.00029, priced_as: "openai:gpt-4o-mini" };
    const footer = runFooter(reply({ usage, cost }));
    expect(footerText(footer)).toBe(
      "≈394 tokens (337 in, 57 out, estimated) · ≈$0.00015 as openai:gpt-4o-mini · thread ≈$0.00029 · 2.5 s",
    );
    expect(footerTitle(footer)).toContain("What this reply would cost: $0.000148, priced as openai:gpt-4o-mini");
  });

  it("shows the model's time, the user's waits only in the tooltip", () => {
    // 17.7 s from start to end, 2.1 s of it the model's: the rest an approval
    const waited = reply({ started_at: 100, ended_at: 117.7, model_seconds: 2.14 });
    expect(footerText(runFooter(waited))).toBe("2.1 s");
    const title = footerTitle(runFooter(waited));
    expect(title).toContain("Model time: 2.1 s");
    expect(title).toContain("Start to end: 17.7 s (tools and waiting for you included)");
    // nothing waited: one time, said once
    const quick = footerTitle(runFooter(reply({ model_seconds: 2.5 })));
    expect(quick).toContain("Model time: 2.5 s");
    expect(quick).not.toContain("Start to end");
  });

  it("a user message or an unfinished reply has no footer", () => {
    expect(runFooter({ role: "user", metadata: { ended_at: 1 } })).toBeNull();
    expect(runFooter({ role: "assistant", metadata: { started_at: 1, ...PRICED } })).toBeNull();
  });
});
