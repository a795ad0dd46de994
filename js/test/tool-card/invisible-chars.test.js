// Invisible and bidirectional characters ("Trojan Source") on the approval
// card: found by one definition, shown as chips in the arguments and code
// views (highlighted or not), listed beside the editors, and never changed
// on their way back: Approve without edits sends exactly what was validated.
import { describe, expect, it, vi } from "vitest";
import { createApproval } from "../../src/tool-card/approval.js";
import { highlighter } from "../../src/markdown/highlighter.js";
import {
  escapeInvisibleInJson,
  findInvisible,
  linesOf,
  markInvisibleIn,
} from "../../src/tool-card/invisible-chars.js";
import { highlightCodeIn } from "../../src/markdown/markdown.js";
import { toKernel } from "../../src/protocol.js";
import { createToolCard } from "../../src/tool-card/tool-card.js";
import { loadHighlighter } from "../helpers/load-highlighter.js";
import { XSS } from "../helpers/xss-corpus.js";

const RLO = "\u202E";
const ZWSP = "\u200B";
const cp = (text) => findInvisible(text).map((f) => f.codePoint);
const labels = (root) => [...root.querySelectorAll(".gu-invisible")].map((c) => c.dataset.codePoint);

/** The text of `root` that is shown as text, chips left out. */
function textOutsideChips(root) {
  const copy = root.cloneNode(true);
  for (const c of copy.querySelectorAll(".gu-invisible")) c.remove();
  return copy.textContent;
}

function pendingCall(args) {
  return {
    type: "tool-call",
    tool_call_id: "call_1",
    tool_name: "drop_table",
    args_text: JSON.stringify(args),
    args,
    args_complete: true,
    has_result: false,
    is_error: false,
    approval: { status: "pending" },
    status_message: null,
    completion_status_message: null,
  };
}

function approval(args, toolName = "run_python") {
  const send = vi.fn();
  const a = createApproval({ toolCallId: "c1", toolName, args, send, notify: vi.fn() });
  document.body.append(a.el);
  return { el: a.el, send };
}

// First in the file: the highlighter module is not loaded yet.
describe("code shown before the highlighter loads", () => {
  it("keeps its chips when the late colouring comes", async () => {
    expect(highlighter()).toBeNull();
    const source = `access = "user${RLO} ${ZWSP}"\nprint(access)`;
    const { el } = approval({ code: source });
    const view = el.querySelector(".gu-code-view");
    expect(labels(view)).toEqual(["U+202E", "U+200B"]);
    await loadHighlighter();
    highlightCodeIn(el); // what the chat view does when it arrives
    expect(view.querySelector(".hljs-string")).not.toBeNull(); // coloured now
    expect(labels(view)).toEqual(["U+202E", "U+200B"]);
    expect(view.querySelector("code").textContent).toBe(source);
  });
});

describe("the set of characters", () => {
  it("flags the bidi controls, zero-width characters, tags, fillers and controls", () => {
    const flagged = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200c, 0x200d, 0x200e,
      0x200f, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x00ad, 0x061c, 0x180e, 0x3164, 0x115f, 0x034f,
      0x2028, 0x2029, 0xfff9, 0xe0001, 0xe0041, 0xe007f, 0xe0100, 0x1b, 0x00, 0x7f, 0x85,
    ];
    for (const c of flagged) {
      expect(cp(`a${String.fromCodePoint(c)}b`), `U+${c.toString(16)}`).toEqual([c]);
    }
  });

  it("leaves ordinary text alone: whitespace, scripts, emoji and their joiners", () => {
    for (const text of [
      "tab\tnew\nline\r\nreturn\rend",
      "naïve café, 東京, שלום, مرحبا, नमस्ते",
      "non\u00a0breaking space",
      "❤️ ☺︎ 1️⃣ #️⃣ 👨‍👩‍👧 🏳️‍🌈 👩🏽‍💻 ❤️‍🔥",
    ]) {
      expect(cp(text), text).toEqual([]);
    }
  });

  it("flags selectors and joiners that hide outside an emoji", () => {
    expect(cp("sales\uFE0F")).toEqual([0xfe0f]); // after a letter
    expect(cp("❤\uFE0F\uFE0F")).toEqual([0xfe0f]); // the second one
    expect(cp("a\u200Db")).toEqual([0x200d]);
    expect(cp("😀\u{E0100}\u{E0101}")).toEqual([0xe0100, 0xe0101]); // bytes smuggled after an emoji
  });

  it("gives indexes in UTF-16 units and the lines they are on", () => {
    const text = `x = 1\ny = "\u{E0041}${RLO}"\r\nz${ZWSP}`;
    const found = findInvisible(text);
    expect(found.map((f) => [f.index, f.length])).toEqual([
      [11, 2],
      [13, 1],
      [18, 1],
    ]);
    expect(linesOf(text, found)).toEqual([2, 3]);
  });
});

describe("JSON escapes for the arguments editor", () => {
  it("writes each one as \\u escapes that parse back to the same value", () => {
    const value = { name: `sales${RLO}txt.exe`, [`k${ZWSP}`]: ["\u{E0041}", "❤️", 1] };
    const json = JSON.stringify(value, null, 2);
    const escaped = escapeInvisibleInJson(json);
    expect(findInvisible(escaped)).toEqual([]);
    expect(escaped).toContain("sales\\u202etxt.exe");
    expect(escaped).toContain('"k\\u200b"');
    expect(escaped).toContain('"\\udb40\\udc41"');
    expect(escaped).toContain('"❤️"'); // an emoji stays as it is
    expect(JSON.parse(escaped)).toEqual(value);
  });
});

describe("marking the DOM", () => {
  it("puts a chip on each run, keeps the text as it runs, and marks once", () => {
    const el = document.createElement("div");
    el.innerHTML = `<pre><code><span class="x">a${RLO}b</span>c${ZWSP}\u2066d</code></pre>`;
    const before = el.textContent;
    expect(markInvisibleIn(el)).toBe(3);
    expect(labels(el)).toEqual(["U+202E", "U+200B U+2066"]); // neighbours share a chip
    expect(el.textContent).toBe(before); // a copy of the code is the code
    expect(findInvisible(textOutsideChips(el))).toEqual([]);
    expect(el.querySelector(".gu-invisible").title).toBe("U+202E RIGHT-TO-LEFT OVERRIDE");
    expect(markInvisibleIn(el)).toBe(3);
    expect(el.querySelectorAll(".gu-invisible")).toHaveLength(2);
  });

  it("spells a long run in short and names the tags it hides", () => {
    const el = document.createElement("p");
    el.textContent = `ok${[..."ignore"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("")}`;
    expect(markInvisibleIn(el)).toBe(6);
    expect(labels(el)).toEqual(["U+E0069 U+E0067 U+E006E …3 more"]);
    expect(el.querySelector(".gu-invisible").title).toContain('U+E0069 TAG "i"');
  });
});

describe("the approval card", () => {
  const args = { name: `sales${RLO}txt.exe`, note: `drop${ZWSP} it` };

  it("shows chips in the arguments view and a warning with the list", () => {
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });
    card.update(pendingCall(args), { canAct: true });
    const view = card.el.querySelector(".gu-tool-args");
    expect(labels(view)).toEqual(["U+202E", "U+200B"]);
    expect(findInvisible(textOutsideChips(view))).toEqual([]);
    const warning = card.el.querySelector(".gu-approval .gu-invisible-warning");
    expect(warning.textContent).toContain(
      "This call contains 2 invisible or bidirectional characters, shown as",
    );
    expect(warning.textContent).toContain("what you read may not be what runs");
    const items = [...warning.querySelectorAll("li")].map((li) => li.textContent.trim());
    expect(items).toEqual(["RIGHT-TO-LEFT OVERRIDE", "ZERO WIDTH SPACE"]);
    expect(labels(warning)).toEqual(["U+202E", "U+202E", "U+200B"]);
    expect(warning.textContent).toContain("escapes (\\u202e)");
  });

  it("holds them as escapes in the editor; Approve sends the exact arguments", () => {
    const c = { send: vi.fn(), notify: vi.fn(), isHuman: () => false };
    const card = createToolCard(c);
    card.update(pendingCall(args), { canAct: true });
    const editor = card.el.querySelector("textarea.gu-args-editor");
    expect(findInvisible(editor.value)).toEqual([]);
    expect(editor.value).toContain("sales\\u202etxt.exe");
    expect(JSON.parse(editor.value)).toEqual(args);
    card.el.querySelector("button.gu-approve").click();
    expect(c.send).toHaveBeenLastCalledWith(toKernel.approve("call_1", null)); // unchanged
    // an edit elsewhere keeps every character where it was
    editor.value = editor.value.replace('"drop', '"please drop');
    editor.dispatchEvent(new Event("input"));
    card.el.querySelector("button.gu-always").click();
    expect(c.send).toHaveBeenLastCalledWith(
      toKernel.always("call_1", { name: args.name, note: `please drop${ZWSP} it` }),
    );
  });

  it("marks highlighted code, says on which lines, and sends it unchanged", () => {
    expect(highlighter()).not.toBeNull();
    const source = `if access_level != "user${RLO} \u2066// admin\u2069":\n    grant()\n\nok${ZWSP} = 1`;
    const { el, send } = approval({ code: source });
    const view = el.querySelector(".gu-code-view");
    expect(view.querySelector(".hljs-keyword, .hljs-string")).not.toBeNull();
    expect(labels(view)).toEqual(["U+202E", "U+2066", "U+2069", "U+200B"]);
    expect(view.querySelector("code").textContent).toBe(source);
    expect(findInvisible(textOutsideChips(view))).toEqual([]);
    const warning = el.querySelector(".gu-invisible-warning");
    expect(warning.textContent).toContain("contains 4 invisible");
    expect(warning.textContent).toContain("In the code, lines 1, 4");
    expect(el.querySelector("textarea.gu-code-editor").value).toBe(source);
    el.querySelector("button.gu-approve").click();
    expect(send).toHaveBeenLastCalledWith(toKernel.approve("c1", null));
  });

  it("follows edits: the warning counts what would be sent, Preview marks it", () => {
    const { el } = approval({ code: `x = 1${RLO}` });
    el.querySelector("button.gu-code-edit").click();
    const box = el.querySelector("textarea.gu-code-editor");
    box.value = `x = 1${RLO}${ZWSP}\ny = 2${ZWSP}`;
    box.dispatchEvent(new Event("input"));
    expect(el.querySelector(".gu-invisible-warning").textContent).toContain("contains 3 invisible");
    el.querySelector("button.gu-code-edit").click(); // Preview
    expect(labels(el.querySelector(".gu-code-view"))).toEqual(["U+202E U+200B", "U+200B"]);
    box.value = "x = 1";
    box.dispatchEvent(new Event("input"));
    expect(el.querySelector(".gu-invisible-warning")).toBeNull();
    expect(el.querySelector(".gu-invisible-slot").hidden).toBe(true);
  });

  it("never rewrites code on its own: line breaks in the box are not an edit", () => {
    const source = `a = 1\r\nb = "${RLO}"\r\n`;
    const { el, send } = approval({ code: source, timeout: 5 });
    el.querySelector("button.gu-approve").click();
    expect(send).toHaveBeenLastCalledWith(toKernel.approve("c1", null));
    // another argument edited: the code goes back exactly as it came
    const editor = el.querySelector("textarea.gu-args-editor");
    editor.value = '{"timeout": 9}';
    el.querySelector("button.gu-approve").click();
    expect(send).toHaveBeenLastCalledWith(toKernel.approve("c1", { timeout: 9, code: source }));
  });

  it("shows no warning for a call without such characters", () => {
    const { el } = approval({ name: "sales ❤️ 👨‍👩‍👧" }, "drop_table");
    expect(el.querySelector(".gu-invisible-warning")).toBeNull();
    expect(el.querySelector(".gu-invisible")).toBeNull();
  });

  it("builds no markup from hostile text around the characters", () => {
    for (const payload of XSS) {
      const hostile = `${RLO}${payload}${ZWSP}`;
      const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });
      card.update({ ...pendingCall({ code: hostile, q: hostile }), tool_name: "run_python" }, { canAct: true });
      const el = card.el;
      expect(el.querySelector("script, img, iframe, svg, form, object, embed, style, math")).toBeNull();
      for (const node of el.querySelectorAll("*")) {
        for (const attr of node.attributes) expect(attr.name.startsWith("on"), attr.name).toBe(false);
      }
      expect(el.querySelectorAll(".gu-code-view .gu-invisible").length).toBeGreaterThanOrEqual(2);
      expect(el.querySelector(".gu-invisible-warning").textContent).toContain("contains 4 invisible");
    }
  });
});
