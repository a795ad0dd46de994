// Streaming text ends mid-sentence: "the **key" or "run `pip" would show
// its markers raw until the model closes them (and for good after Stop).
// As streaming renderers do, the open emphasis and code spans of the last
// block's last paragraph are closed before parsing, so they render as they
// will. Only the end of the text is touched: never a code fence, a table or
// raw HTML, and a `*` that cannot open emphasis (a list bullet, `2 * 3`)
// stays as written.

const PUNCT = /[\p{P}\p{S}]/u;
const SPACE = /\s/u;
const WORDY = /[\p{L}\p{N}]/u;

/** CommonMark's flanking rules for the delimiter run text[start, end). */
function flanking(text, start, end) {
  const before = start > 0 ? text[start - 1] : " ";
  const after = end < text.length ? text[end] : " ";
  const left = !SPACE.test(after) && (!PUNCT.test(after) || SPACE.test(before) || PUNCT.test(before));
  const right = !SPACE.test(before) && (!PUNCT.test(before) || SPACE.test(after) || PUNCT.test(after));
  return { left, right, before, after };
}

/**
 * The markers that close what `inline` (one paragraph's inline source)
 * leaves open at its end, innermost first: "" when nothing is open. An
 * opener with nothing after it is not closed (closing it would show `****`).
 * @param {string} inline
 * @returns {string}
 */
export function openInlineClosers(inline) {
  /** @type {{ch: string, n: number, end: number}[]} */
  const stack = [];
  let code = "";
  let i = 0;
  while (i < inline.length) {
    const ch = inline[i];
    if (ch === "\\") {
      i += 2;
      continue;
    }
    if (ch === "`") {
      let j = i;
      while (inline[j] === "`") j++;
      const run = inline.slice(i, j);
      // A complete code span: skip to its closing run of the same length.
      const close = new RegExp(`(?<!\`)${run}(?!\`)`, "g");
      close.lastIndex = j;
      const found = close.exec(inline);
      if (found) {
        i = found.index + run.length;
        continue;
      }
      // Open to the end; an empty one is left as typed.
      code = inline.slice(j).trim() ? run : "";
      break;
    }
    if (ch === "*" || ch === "_") {
      let j = i;
      while (inline[j] === ch) j++;
      const { left, right, before, after } = flanking(inline, i, j);
      // `_` inside a word (snake_case) neither opens nor closes.
      const canOpen = ch === "*" ? left : left && (!right || PUNCT.test(before)) && !WORDY.test(before);
      const canClose = ch === "*" ? right : right && (!left || PUNCT.test(after));
      let n = j - i;
      while (canClose && n > 0) {
        let k = stack.length - 1;
        while (k >= 0 && stack[k].ch !== ch) k--;
        if (k < 0) break;
        const used = Math.min(n, stack[k].n);
        stack[k].n -= used;
        n -= used;
        stack.length = stack[k].n > 0 ? k + 1 : k; // what it closed over stays literal
      }
      if (n > 0 && canOpen) stack.push({ ch, n, end: j });
      i = j;
      continue;
    }
    i++;
  }
  while (stack.length && !code && !inline.slice(stack[stack.length - 1].end).trim()) stack.pop();
  let out = code;
  for (let k = stack.length - 1; k >= 0; k--) out += stack[k].ch.repeat(Math.min(stack[k].n, 3));
  return out;
}

/** The innermost last inline leaf of a block token (a paragraph, a heading, a list item's text). */
function lastLeaf(token) {
  let node = token;
  for (let depth = 0; depth < 20 && node; depth++) {
    if (node.type === "paragraph" || node.type === "heading" || node.type === "text") return node;
    let inner = null;
    if (node.type === "list") inner = node.items?.[node.items.length - 1];
    else if (node.type === "list_item" || node.type === "blockquote") {
      const kids = (node.tokens ?? []).filter((t) => t.type !== "space");
      inner = kids[kids.length - 1];
    }
    node = inner;
  }
  return null;
}

/**
 * The last block's source with its open inline markers closed, or null
 * when there is nothing to close (or the block is code, a table, HTML).
 * @param {any} token marked's top-level token for the last block
 * @returns {string | null}
 */
export function closedBlockSource(token) {
  const leaf = lastLeaf(token);
  if (!leaf || typeof leaf.raw !== "string") return null;
  const raw = token.raw.trimEnd();
  // The leaf's lines that end the block as they are (a quote's lines lose their `>`).
  const lines = leaf.raw.trimEnd().split("\n");
  let inline = "";
  for (let k = 0; k < lines.length; k++) {
    const tail = lines.slice(k).join("\n");
    if (raw.endsWith(tail)) {
      inline = tail;
      break;
    }
  }
  if (!inline) return null;
  if (leaf.type === "heading" && /\s#+$/.test(inline)) return null; // closing hashes end it
  const closers = openInlineClosers(inline);
  return closers ? raw + closers : null;
}
