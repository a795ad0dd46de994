// Attachments in the composer (attach, drop, paste, the @ menu, size limits),
// their trip to the kernel as binary buffers, chips on user messages, and
// run_python's code in the approval card.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createApproval } from "../../src/tool-card/approval.js";
import { createComposer, mentionAt } from "../../src/composer/composer.js";
import { createMessageView } from "../../src/thread/message-view.js";
import WIRE from "../../../tests/fixtures/wire.json";
import { readLimits, toKernel } from "../../src/protocol.js";

const LIMITS = readLimits(WIRE.limits); // what the kernel's `limits` trait holds
import { createToolCard, resultFigures } from "../../src/tool-card/tool-card.js";
import { ChatView } from "../../src/widget.js";
import { FakeModel } from "../helpers/fake-model.js";
import { loadHighlighter } from "../helpers/load-highlighter.js";

// Code colouring is loaded on demand (src/markdown/highlighter.js); these tests see it loaded.
beforeAll(loadHighlighter);

const key = (el, k, extra = {}) =>
  el.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...extra }));

/** A drop event carrying `files` (jsdom has no DataTransfer constructor). */
function dropEvent(type, files) {
  const event = new Event(type, { bubbles: true, cancelable: true });
  Object.defineProperty(event, "dataTransfer", { value: { files, types: ["Files"] } });
  return event;
}

const csv = () => new File(["a,b\n1,2\n"], "sales.csv", { type: "text/csv" });

describe("composer attachments", () => {
  it("a dropped file waits as a chip and goes with the text; the box keeps both until taken", () => {
    const onSend = vi.fn();
    const c = createComposer({ onSend, onStop: vi.fn() });
    const drop = dropEvent("drop", [csv()]);
    c.el.dispatchEvent(drop);
    expect(drop.defaultPrevented).toBe(true); // the browser must not open the file
    expect(c.el.querySelector(".gu-chip-pending").textContent).toContain("sales.csv");
    c.input.value = "look";
    key(c.input, "Enter");
    const [text, items] = onSend.mock.calls[0];
    expect(text).toBe("look");
    expect(items).toMatchObject([{ kind: "file", name: "sales.csv", mime: "text/csv", size: 8 }]);
    expect(c.pending()).toHaveLength(1); // not taken yet
    c.clear("look", items);
    expect(c.pending()).toHaveLength(0);
    expect(c.input.value).toBe("");
  });

  it("an attachment alone can be sent; a file over the limit is refused with a notice", () => {
    const onSend = vi.fn();
    const notify = vi.fn();
    const c = createComposer({ onSend, onStop: vi.fn(), notify, limits: () => LIMITS });
    const big = new File(["x"], "huge.csv");
    Object.defineProperty(big, "size", { value: LIMITS.maxUploadBytes + 1 });
    c.input.value = "keep me";
    c.el.dispatchEvent(dropEvent("drop", [big]));
    expect(notify.mock.calls[0][0]).toMatch(/huge\.csv is 20\.0 MB: the chat takes files up to 20\.0 MB/);
    expect(c.pending()).toHaveLength(0);
    expect(c.input.value).toBe("keep me");
    c.input.value = "";
    c.el.dispatchEvent(dropEvent("drop", [csv()]));
    c.el.querySelector("button.gu-send").click();
    expect(onSend).toHaveBeenCalledWith("", [expect.objectContaining({ name: "sales.csv" })]);
  });

  it("a pasted image attaches; pasted text pastes as text", () => {
    const c = createComposer({ onSend: vi.fn(), onStop: vi.fn() });
    const image = new File([new Uint8Array([137, 80, 78, 71])], "image.png", { type: "image/png" });
    const paste = new Event("paste", { bubbles: true, cancelable: true });
    Object.defineProperty(paste, "clipboardData", { value: { files: [image] } });
    c.input.dispatchEvent(paste);
    expect(paste.defaultPrevented).toBe(true);
    expect(c.pending()).toMatchObject([{ kind: "file", name: "image.png", mime: "image/png" }]);
    const text = new Event("paste", { bubbles: true, cancelable: true });
    Object.defineProperty(text, "clipboardData", { value: { files: [] } });
    c.input.dispatchEvent(text);
    expect(text.defaultPrevented).toBe(false);
  });

  it("@ lists the chat's data; Enter picks a name as a data chip and removes the @word", () => {
    const onSend = vi.fn();
    const c = createComposer({ onSend, onStop: vi.fn(), dataNames: () => ["sales", "costs", "df_1"] });
    c.input.value = "compare @co";
    c.input.selectionStart = c.input.selectionEnd = c.input.value.length;
    c.input.dispatchEvent(new Event("input"));
    const menu = c.el.querySelector(".gu-mention-menu");
    expect(menu.hidden).toBe(false);
    expect([...menu.querySelectorAll(".gu-mention-item")].map((e) => e.textContent)).toEqual(["@costs"]);
    key(c.input, "Enter");
    expect(onSend).not.toHaveBeenCalled(); // Enter picked, it did not send
    expect(c.input.value).toBe("compare ");
    expect(c.pending()).toEqual([{ kind: "data", name: "costs" }]);
    expect(menu.hidden).toBe(true);
  });

  it("finds the @word before the caret only", () => {
    expect(mentionAt("see @sal", 8)).toEqual({ start: 4, query: "sal" });
    expect(mentionAt("mail a@b", 8)).toBeNull();
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
  });
});

describe("a send with attachments", () => {
  it("carries each file as a binary buffer, named by index, and data picks by name", async () => {
    const model = new FakeModel(
      { _chat_key: "k", messages: [], data_names: ["sales"], human_tools: [] },
      { get_model: async () => null },
    );
    const el = document.createElement("div");
    const view = new ChatView(model, el);
    await view.start();
    model.fire("msg:custom", { type: "snapshot", seq: 0, messages: [] });
    await view.sendText("plot", [
      { kind: "file", name: "sales.csv", mime: "text/csv", size: 8, file: csv() },
      { kind: "data", name: "sales" },
    ]);
    const msg = model.sent.at(-1);
    const buffers = model.buffers.at(-1);
    expect(msg).toEqual(
      toKernel.send("plot", msg.ref, [
        { kind: "file", name: "sales.csv", mime: "text/csv", size: 8, buffer: 0 },
        { kind: "data", name: "sales" },
      ]),
    );
    expect(buffers).toHaveLength(1);
    expect(new TextDecoder().decode(buffers[0])).toBe("a,b\n1,2\n");
    view.destroy();
  });
});

describe("chips and code", () => {
  it("a user message shows its attachments as chips (kind, name, reference)", () => {
    const v = createMessageView({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });
    v.update(
      {
        id: "u1",
        role: "user",
        status: { type: "complete" },
        parts: [
          { type: "text", text: "see" },
          { type: "attachment", kind: "data", name: "sales.csv", ref: "sales", size: 8 },
          { type: "attachment", kind: "image", name: "<img src=x onerror=alert(1)>", size: 2048 },
        ],
      },
      { isLast: true, running: false },
    );
    const chips = [...v.el.querySelectorAll(".gu-attachment")];
    expect(chips.map((c) => c.dataset.kind)).toEqual(["data", "image"]);
    expect(chips[0].textContent).toContain("as sales");
    expect(chips[1].textContent).toContain("2 KB");
    expect(v.el.querySelector("img")).toBeNull(); // a name is text, never markup
  });

  it("run_python's code is highlighted; edited code is what Approve sends", () => {
    const send = vi.fn();
    const a = createApproval({
      toolCallId: "c1",
      toolName: "run_python",
      args: { code: "x = 1\nprint(x)" },
      send,
      notify: vi.fn(),
    });
    expect(a.el.querySelector(".gu-code-view .hljs-built_in, .gu-code-view .hljs-number")).not.toBeNull();
    expect(a.el.querySelector("textarea.gu-args-editor")).toBeNull(); // only code: no JSON box
    a.el.querySelector("button.gu-code-edit").click();
    const box = a.el.querySelector("textarea.gu-code-editor");
    expect(box.hidden).toBe(false);
    box.value = "x = 2";
    a.el.querySelector("button.gu-approve").click();
    expect(send).toHaveBeenCalledWith(toKernel.approve("c1", { code: "x = 2" }));
    send.mockClear();
    const b = createApproval({ toolCallId: "c2", toolName: "run_python", args: { code: "y" }, send, notify: vi.fn() });
    b.el.querySelector("button.gu-approve").click();
    expect(send).toHaveBeenCalledWith(toKernel.approve("c2", null)); // unchanged
  });

  it("a result's figures show as images; other URLs do not", () => {
    const png = "data:image/png;base64,iVBORw0KGgo=";
    expect(resultFigures({ figures: [{ image: png }, { image: "https://evil/x.png" }, { image: "data:image/svg+xml;base64,AA==" }] })).toEqual([{ src: png, themed: false }]);
    const card = createToolCard({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });
    card.update(
      { type: "tool-call", tool_call_id: "c1", tool_name: "run_python", args: { code: "plot()" }, args_text: "", args_complete: true, has_result: true, is_error: false, result: { figures: [{ image: png }] }, approval: null },
      { canAct: false },
    );
    expect(card.el.querySelector(".gu-tool-figures img").getAttribute("src")).toBe(png);
  });
});
