// The per-run footer: tokens used (when the model reports them) and time taken.

import { h, setText, show } from "./dom.js";

/**
 * Format a run footer as one line of text.
 * @param {{input_tokens?: number, output_tokens?: number, seconds?: number, model?: string} | null} footer
 * @returns {string}
 */
export function footerText(footer) {
  if (!footer) return "";
  const bits = [];
  const tin = footer.input_tokens ?? 0;
  const tout = footer.output_tokens ?? 0;
  if (tin || tout) bits.push(`${tin + tout} tokens (${tin} in, ${tout} out)`);
  if (typeof footer.seconds === "number") bits.push(`${footer.seconds.toFixed(1)} s`);
  if (footer.model) bits.push(footer.model);
  return bits.join(" · ");
}

/**
 * The footer of a finished run, from the assistant message's metadata
 * (the runtime records usage and start / end times there), or null.
 */
export function runFooter(message) {
  const meta = message?.metadata;
  if (message?.role !== "assistant" || !meta || typeof meta.ended_at !== "number") return null;
  const footer = {};
  if (meta.usage) {
    footer.input_tokens = meta.usage.input_tokens ?? 0;
    footer.output_tokens = meta.usage.output_tokens ?? 0;
  }
  if (typeof meta.started_at === "number") footer.seconds = Math.max(0, meta.ended_at - meta.started_at);
  return footer;
}

export function createFooter() {
  const el = h("div.gu-footer", { hidden: true });
  return {
    el,
    update(footer) {
      const text = footerText(footer);
      setText(el, text);
      show(el, text !== "");
    },
  };
}
