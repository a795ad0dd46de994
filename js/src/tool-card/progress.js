// What a running tool reports about itself on its card: a progress bar while
// it runs (`part.progress`, 0 to 1, from an MCP server's progress
// notifications) and its log lines (`part.log`, kept by the kernel) in the
// card's details. Both are the tool's text: shown as text only.

import { h, setText, show } from "../common/dom.js";

/** The bar (under the card's head) and the log block (for the details). */
export function createToolProgress() {
  const bar = h("progress.gu-tool-progress", { max: "1", hidden: true });
  const logLabel = h("div.gu-tool-label", { text: "Log", hidden: true });
  const logBlock = h("pre.gu-tool-log", { hidden: true });
  return {
    bar,
    log: [logLabel, logBlock],
    /** @param {any} part */
    update(part) {
      const fraction = typeof part.progress === "number" && Number.isFinite(part.progress) ? part.progress : null;
      const running = !part.has_result && fraction !== null;
      if (running) {
        bar.value = Math.min(Math.max(fraction, 0), 1);
        bar.setAttribute("aria-label", `${part.tool_name}: ${Math.round(bar.value * 100)}%`);
      }
      show(bar, running);
      const lines = Array.isArray(part.log) ? part.log.filter((line) => typeof line === "string") : [];
      setText(logBlock, lines.join("\n"));
      show(logLabel, lines.length > 0);
      show(logBlock, lines.length > 0);
    },
  };
}
