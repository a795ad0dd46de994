// The per-run footer: tokens used, the reply's and the thread's cost, how full
// the context window is, and the model's time (the tooltip adds the wall time).
// The kernel prices and times each reply (ipygenui/runtime/usage.py) and sends
// the numbers in the message's metadata; this file only formats them.

import { h, show } from "../common/dom.js";

/**
 * @typedef {object} Footer
 * @property {number} [input_tokens]
 * @property {number} [output_tokens]
 * @property {number} [reasoning_tokens] of the output tokens, those spent thinking
 * @property {number} [cache_read_tokens] of the input tokens, those read from the cache
 * @property {number} [cache_write_tokens] of the input tokens, those written to the cache
 * @property {number} [cost_usd] the reply's cost
 * @property {number} [thread_usd] the thread's cost up to and with this reply
 * @property {string} [priced_as] the price list's "provider:model"
 * @property {number} [context_tokens] the last request's input tokens
 * @property {number} [context_window] the model's context window
 * @property {boolean} [estimated] the model estimated its tokens (the offline demo): shown with "≈"
 * @property {number} [seconds] the model's time (its steps), or for an older reply its wall time
 * @property {number} [wall_seconds] from the reply's start to its end: tools and the user's waits too
 * @property {string} [model]
 */

/** A count as people read it: 1,234. */
function count(n) {
  return Math.round(n).toLocaleString("en-US");
}

/** A window size in short: 128k, 1M. */
function short(n) {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}k`;
  return String(n);
}

/**
 * Dollars, with the digits a reply's few cents or fractions of a cent need.
 * @param {number} usd
 */
export function dollars(usd) {
  if (usd === 0) return "$0";
  if (usd < 0.0001) return "<$0.0001";
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  if (usd < 1) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

/** @param {unknown} value */
const num = (value) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);

/**
 * The footer's pieces, each shown whole (the line wraps between them).
 * @param {Footer | null} footer
 * @returns {string[]}
 */
export function footerBits(footer) {
  if (!footer) return [];
  const bits = [];
  const about = footer.estimated ? "≈" : "";
  const tin = num(footer.input_tokens);
  const tout = num(footer.output_tokens);
  if (tin || tout) {
    const detail = [`${count(tin)} in`, `${count(tout)} out`];
    if (num(footer.reasoning_tokens)) detail.push(`${count(num(footer.reasoning_tokens))} reasoning`);
    if (num(footer.cache_read_tokens)) detail.push(`${count(num(footer.cache_read_tokens))} cached`);
    if (footer.estimated) detail.push("estimated");
    bits.push(`${about}${count(tin + tout)} tokens (${detail.join(", ")})`);
  }
  if (typeof footer.cost_usd === "number" && Number.isFinite(footer.cost_usd)) {
    // an estimate's price is what the reply would cost as the model it is priced as: say which
    const as = footer.estimated && footer.priced_as ? ` as ${footer.priced_as}` : "";
    const approx = (usd) => (about && usd >= 0.0001 ? about : "") + dollars(usd); // not "≈<$0.0001"
    bits.push(`${approx(num(footer.cost_usd))}${as}`);
    if (typeof footer.thread_usd === "number" && Number.isFinite(footer.thread_usd)) {
      bits.push(`thread ${approx(num(footer.thread_usd))}`);
    }
  }
  const window = num(footer.context_window);
  if (window && typeof footer.context_tokens === "number") {
    const percent = (num(footer.context_tokens) / window) * 100;
    const shown = percent > 0 && percent < 1 ? "<1" : String(Math.round(percent));
    bits.push(`${shown}% of ${short(window)} context`);
  }
  if (typeof footer.seconds === "number") bits.push(`${footer.seconds.toFixed(1)} s`);
  if (footer.model) bits.push(footer.model);
  return bits;
}

/**
 * Format a run footer as one line of text.
 * @param {Footer | null} footer
 * @returns {string}
 */
export function footerText(footer) {
  return footerBits(footer).join(" · ");
}

/**
 * The footer's tooltip: every number in full, and what the price list called the model.
 * @param {Footer | null} footer
 */
export function footerTitle(footer) {
  if (!footer) return "";
  const lines = [];
  const tin = num(footer.input_tokens);
  if (tin || num(footer.output_tokens)) {
    const cache = [];
    if (num(footer.cache_read_tokens)) cache.push(`${count(num(footer.cache_read_tokens))} read from cache`);
    if (num(footer.cache_write_tokens)) cache.push(`${count(num(footer.cache_write_tokens))} written to cache`);
    lines.push(`Input: ${count(tin)} tokens${cache.length ? ` (${cache.join(", ")})` : ""}`);
    const reasoning = num(footer.reasoning_tokens);
    lines.push(
      `Output: ${count(num(footer.output_tokens))} tokens${reasoning ? ` (${count(reasoning)} reasoning)` : ""}`,
    );
    if (footer.estimated) lines.push("Estimated by the model (about 4 characters a token), not counted by a provider");
  }
  if (typeof footer.seconds === "number" && typeof footer.wall_seconds === "number") {
    lines.push(`Model time: ${footer.seconds.toFixed(1)} s`);
    // approvals, forms and a server's questions wait for the user: not the model's time
    if (footer.wall_seconds - footer.seconds >= 0.05) {
      lines.push(`Start to end: ${footer.wall_seconds.toFixed(1)} s (tools and waiting for you included)`);
    }
  }
  if (typeof footer.cost_usd === "number") {
    const as = footer.priced_as ? `, priced as ${footer.priced_as}` : "";
    const what = footer.estimated ? "What this reply would cost" : "Cost of this reply";
    lines.push(`${what}: $${num(footer.cost_usd).toPrecision(3)}${as}`);
  }
  if (typeof footer.thread_usd === "number") {
    lines.push(`Thread so far: $${num(footer.thread_usd).toPrecision(3)}`);
  }
  const window = num(footer.context_window);
  if (window && typeof footer.context_tokens === "number") {
    lines.push(`Context: ${count(num(footer.context_tokens))} of ${count(window)} tokens`);
  }
  return lines.join("\n");
}

/**
 * The footer of a finished run, from the assistant message's metadata
 * (the runtime records usage, cost, context and start / end times there), or null.
 * @returns {Footer | null}
 */
export function runFooter(message) {
  const meta = message?.metadata;
  if (message?.role !== "assistant" || !meta || typeof meta.ended_at !== "number") return null;
  /** @type {Footer} */
  const footer = {};
  const usage = meta.usage;
  if (usage && typeof usage === "object") {
    footer.input_tokens = num(usage.input_tokens);
    footer.output_tokens = num(usage.output_tokens);
    footer.reasoning_tokens = num(usage.reasoning_tokens);
    footer.cache_read_tokens = num(usage.cache_read_tokens);
    footer.cache_write_tokens = num(usage.cache_write_tokens);
    if (usage.estimated === true) footer.estimated = true;
  }
  const cost = meta.cost;
  if (cost && typeof cost === "object" && typeof cost.usd === "number") {
    footer.cost_usd = cost.usd;
    if (typeof cost.thread_usd === "number") footer.thread_usd = cost.thread_usd;
    if (typeof cost.priced_as === "string") footer.priced_as = cost.priced_as;
  }
  const context = meta.context;
  if (context && typeof context === "object" && typeof context.window === "number") {
    footer.context_window = context.window;
    footer.context_tokens = num(context.tokens);
  }
  if (typeof meta.started_at === "number") {
    const wall = Math.max(0, meta.ended_at - meta.started_at);
    const model = meta.model_seconds;
    // The model's time (the kernel's runtime/usage.py model_seconds): the user's
    // waits are theirs, not the reply's. A reply saved before it was recorded: its wall time.
    if (typeof model === "number" && Number.isFinite(model) && model >= 0) {
      footer.seconds = Math.min(model, wall);
      footer.wall_seconds = wall;
    } else footer.seconds = wall;
  }
  return footer;
}

export function createFooter() {
  const el = h("div.gu-footer", { hidden: true });
  let shown = "";
  return {
    el,
    /** @param {Footer | null} footer */
    update(footer) {
      const bits = footerBits(footer);
      const text = bits.join(" · ");
      if (text === shown) return; // unchanged: no DOM work
      shown = text;
      // Each piece whole (nowrap in CSS); the separators are where a narrow chat wraps.
      const children = [];
      for (const [i, bit] of bits.entries()) {
        if (i) children.push(" · ");
        children.push(h("span.gu-footer-item", {}, bit));
      }
      el.replaceChildren(...children);
      const title = footerTitle(footer);
      if (title) el.title = title;
      else el.removeAttribute("title");
      show(el, text !== "");
    },
  };
}
