// For tests of code colouring: the highlighter loaded as a view would load it
// from the kernel (src/markdown/highlighter.js), here straight from its source.
import { addHighlighterLoader, wantHighlighter } from "../../src/markdown/highlighter.js";

export async function loadHighlighter() {
  addHighlighterLoader(() => import("../../src/markdown/highlight.js"));
  const loaded = await wantHighlighter();
  if (!loaded) throw new Error("the highlighter did not load");
}
