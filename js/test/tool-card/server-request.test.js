// A tool server's request during a call (a synthetic part: mcp_sampling /
// mcp_elicitation) gets its own controls on its card: sampling approved
// twice (the prompt, then the model's answer), a form from the server's
// schema, a link opened only by a click. Decisions are the usual messages.
import { afterEach, describe, expect, it, vi } from "vitest";
import { formContent, formFields } from "../../src/tool-card/server-request.js";
import { createToolCard } from "../../src/tool-card/tool-card.js";

const ctx = () => ({ send: vi.fn(), notify: vi.fn(), isHuman: () => false });

const request = (tool_name, args, extra = {}) => ({
  type: "tool-call",
  tool_call_id: "req_1",
  tool_name,
  args_text: JSON.stringify(args), // the wire sends the text; the card parses it
  args_complete: true,
  has_result: false,
  is_error: false,
  synthetic: true,
  approval: null,
  ...extra,
});

const SAMPLING = { server: "`python asking.py`", messages: [{ role: "user", text: "<b>Sum</b> it" }], system_prompt: "Be short.", max_tokens: 200 };

afterEach(() => vi.restoreAllMocks());

describe("sampling request", () => {
  it("shows who asks, the prompt as text and the limit; Ask the model approves it", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(request("mcp_sampling", SAMPLING, { approval: { status: "pending" } }), { canAct: true });
    expect(card.el.querySelector(".gu-tool-name")?.textContent).toBe("Sampling request");
    expect(card.el.querySelector(".gu-request-title")?.textContent).toBe("python asking.py asks the chat's model to answer:");
    expect(card.el.querySelector(".gu-request-server")?.textContent).toBe("python asking.py");
    expect([...card.el.querySelectorAll(".gu-request-text")].map((n) => n.textContent)).toEqual(["Be short.", "<b>Sum</b> it"]);
    expect(card.el.querySelector(".gu-request-text b")).toBeNull();
    expect(card.el.querySelector(".gu-request-meta")?.textContent).toContain("at most 200 tokens");
    expect(card.el.querySelector(".gu-args-editor")).toBeNull(); // not an editable approval
    /** @type {HTMLButtonElement} */ (card.el.querySelector("button.gu-approve")).click();
    expect(c.send).toHaveBeenCalledWith({ type: "approve", tool_call_id: "req_1", args: null });
  });

  it("shows the model's answer for a second approval, and declines with a reason", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(request("mcp_sampling", { ...SAMPLING, reply: "A sum.", reply_model: "demo" }, { approval: { status: "pending" } }), { canAct: true });
    expect(card.el.querySelector(".gu-request-reply")?.textContent).toBe("A sum.");
    expect(card.el.querySelector("button.gu-approve")?.textContent).toBe("Send to the server");
    /** @type {HTMLInputElement} */ (card.el.querySelector(".gu-reject-reason")).value = "wrong";
    /** @type {HTMLButtonElement} */ (card.el.querySelector("button.gu-reject")).click();
    expect(c.send).toHaveBeenCalledWith({ type: "reject", tool_call_id: "req_1", reason: "wrong" });
  });

  it("has no controls while the model answers, nor once answered", () => {
    const card = createToolCard(ctx());
    card.update(request("mcp_sampling", SAMPLING, { approval: { status: "approved" }, status_message: "Asking the model…" }), { canAct: true });
    expect(card.el.querySelector(".gu-request")).toBeNull();
    expect(card.el.querySelector(".gu-tool-status")?.textContent).toContain("Asking the model…");
  });
});

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name" },
    age: { type: "integer", minimum: 0 },
    agree: { type: "boolean" },
    pet: { type: "string", enum: ["cat", "dog"], description: "Your <i>pet</i>" },
    hero: { type: "string", oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2", title: "Wonder Woman" }] },
    tools: { type: "array", items: { type: "string", enum: ["saw", "drill"] } },
  },
  required: ["name"],
};

describe("form request", () => {
  it("renders the server's schema as a Form; Submit accepts with typed values", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(request("mcp_elicitation", { server: "srv", mode: "form", message: "Sign up", schema: SCHEMA }), { canAct: true });
    expect(card.el.querySelector(".gu-tool-name")?.textContent).toBe("Form request");
    expect(card.el.querySelector(".gu-tool-status")?.textContent).toBe("Waiting for your answer");
    const name = /** @type {HTMLInputElement} */ (card.el.querySelector('input[data-field="name"]'));
    name.value = "Ada";
    name.dispatchEvent(new Event("input"));
    const age = /** @type {HTMLInputElement} */ (card.el.querySelector('input[data-field="age"]'));
    age.value = "36";
    age.dispatchEvent(new Event("input"));
    const tools = /** @type {HTMLInputElement} */ (card.el.querySelector('input[data-field="tools"]'));
    tools.value = "saw, drill";
    tools.dispatchEvent(new Event("input"));
    card.el.querySelector("form")?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    expect(c.send).toHaveBeenCalledWith({
      type: "tool_result",
      tool_call_id: "req_1",
      result: { action: "accept", content: { name: "Ada", age: 36, agree: false, pet: "cat", hero: "hero-1", tools: ["saw", "drill"] } },
    });
    expect(card.el.querySelector(".gu-c-form-done")?.textContent).toBe("Sent to the server.");
    // titled choices show their titles, send their values; descriptions are text under the field
    const hero = /** @type {HTMLSelectElement} */ (card.el.querySelector('select[data-field="hero"]'));
    expect([...hero.options].map((o) => [o.value, o.textContent])).toEqual([["hero-1", "Superman"], ["hero-2", "Wonder Woman"]]);
    const help = card.el.querySelector('select[data-field="pet"]')?.parentElement?.querySelector(".gu-c-form-help");
    expect(help?.textContent).toBe("Your <i>pet</i>");
    expect(card.el.querySelector(".gu-c-form-help i")).toBeNull();
  });

  it("declines and cancels", () => {
    const c = ctx();
    const card = createToolCard(c);
    card.update(request("mcp_elicitation", { server: "srv", mode: "form", message: "m", schema: SCHEMA }), { canAct: true });
    /** @type {HTMLButtonElement} */ (card.el.querySelector("button.gu-reject")).click();
    /** @type {HTMLButtonElement} */ (card.el.querySelector("button.gu-request-cancel")).click();
    expect(c.send.mock.calls.map(([m]) => m.result.action)).toEqual(["decline", "cancel"]);
  });

  it("maps fields and content by the schema", () => {
    expect(formFields(SCHEMA).map((f) => [f.name, f.type, f.required])).toEqual([
      ["name", "text", true],
      ["age", "integer", false],
      ["agree", "checkbox", false],
      ["pet", "select", false],
      ["hero", "select", false],
      ["tools", "text", false],
    ]);
    expect(formContent(SCHEMA, { name: "", tools: "saw,,drill " })).toEqual({ tools: ["saw", "drill"] });
  });
});

// The MCP conformance scenario elicitation-sep1034-client-defaults asks with defaults like these.
const DEFAULTS = {
  type: "object",
  properties: {
    score: { type: "number", default: 95.5, minimum: 0, maximum: 100 },
    age: { type: "integer", default: 30, minimum: 0, maximum: 150 },
  },
};

describe("form request, numbers", () => {
  const show = (c) => {
    const card = createToolCard(c);
    card.update(request("mcp_elicitation", { server: "srv", mode: "form", message: "Defaults", schema: DEFAULTS }), { canAct: true });
    const input = (name) => /** @type {HTMLInputElement} */ (card.el.querySelector(`input[data-field="${name}"]`));
    const submit = () => card.el.querySelector("form")?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    return { input, submit };
  };

  it("keeps the schema's bounds and defaults: decimals for a number, whole numbers for an integer", () => {
    const { input } = show(ctx());
    const score = input("score");
    const age = input("age");
    expect([score.type, score.step, score.min, score.max, score.value]).toEqual(["number", "any", "0", "100", "95.5"]);
    expect([age.type, age.step, age.min, age.max, age.value]).toEqual(["number", "1", "0", "150", "30"]);
    expect(score.checkValidity()).toBe(true); // step 1 (none given) refused 95.5
    age.value = "30.5";
    expect(age.checkValidity()).toBe(false);
  });

  it("sends the defaults as numbers, and a typed decimal as a number", () => {
    const c = ctx();
    const first = show(c);
    first.submit();
    expect(c.send).toHaveBeenLastCalledWith({ type: "tool_result", tool_call_id: "req_1", result: { action: "accept", content: { score: 95.5, age: 30 } } });
    const second = show(c);
    second.input("score").value = "12.25";
    second.input("score").dispatchEvent(new Event("input"));
    second.input("age").value = "41";
    second.input("age").dispatchEvent(new Event("input"));
    second.submit();
    expect(c.send).toHaveBeenLastCalledWith({ type: "tool_result", tool_call_id: "req_1", result: { action: "accept", content: { score: 12.25, age: 41 } } });
  });
});

describe("link request", () => {
  it("shows the whole URL and opens it only on a click", () => {
    const opened = vi.spyOn(window, "open").mockImplementation(() => null);
    const c = ctx();
    const card = createToolCard(c);
    const url = "https://example.org/auth?state=abc&next=%2F";
    card.update(request("mcp_elicitation", { server: "srv", mode: "url", message: "Sign in", url }), { canAct: true });
    expect(card.el.querySelector(".gu-tool-name")?.textContent).toBe("Link request");
    expect(card.el.querySelector(".gu-request-url")?.textContent).toBe(url);
    expect(opened).not.toHaveBeenCalled();
    /** @type {HTMLButtonElement} */ (card.el.querySelector("button.gu-approve")).click();
    expect(opened).toHaveBeenCalledWith(url, "_blank", "noopener,noreferrer");
    expect(c.send).toHaveBeenCalledWith({ type: "tool_result", tool_call_id: "req_1", result: { action: "accept" } });
  });

  it("flags bidi and invisible characters in the URL and the message, as the approval card does", () => {
    const opened = vi.spyOn(window, "open").mockImplementation(() => null);
    const c = ctx();
    const card = createToolCard(c);
    // reads as https://example.org/cod.exe but goes to the reversed path
    const url = "https://example.org/\u202Eexe.doc";
    card.update(request("mcp_elicitation", { server: "srv", mode: "url", message: "Sign\u200B in", url }), { canAct: true });
    const shown = card.el.querySelector(".gu-request-url");
    expect(shown?.textContent).toBe(url); // the text still reads and copies as it runs
    expect(shown?.querySelector(".gu-invisible")?.getAttribute("data-code-point")).toBe("U+202E");
    expect(card.el.querySelector(".gu-request-text .gu-invisible")?.getAttribute("data-code-point")).toBe("U+200B");
    const warning = card.el.querySelector(".gu-invisible-warning");
    expect(warning?.textContent).toContain("2 invisible or bidirectional characters");
    expect(warning?.textContent).toContain("RIGHT-TO-LEFT OVERRIDE");
    expect(card.el.querySelector("button.gu-approve")?.getAttribute("title") ?? "").not.toContain("\u202E");
    /** @type {HTMLButtonElement} */ (card.el.querySelector("button.gu-approve")).click();
    expect(opened).toHaveBeenCalledWith(url, "_blank", "noopener,noreferrer"); // the address itself, unchanged
  });

  it("has no warning for a plain URL", () => {
    const card = createToolCard(ctx());
    card.update(request("mcp_elicitation", { server: "srv", mode: "url", message: "Sign in", url: "https://example.org/a" }), { canAct: true });
    expect(card.el.querySelector(".gu-invisible, .gu-invisible-warning")).toBeNull();
  });
});

describe("an app's own tool call", () => {
  it("is shown as the app's, settled: who decided, the arguments and the result, nothing to click", () => {
    const card = createToolCard(ctx());
    const args = { tool: "save_note", arguments: { text: "y" }, app_call: "c1", decided: "approved by the user in the app's card" };
    const result = { content: [{ type: "text", text: "saved 'y'" }] };
    card.update(request("mcp_app_call", args, { has_result: true, result, approval: { status: "approved", decided_by: "user" } }), { canAct: true });
    expect(card.el.querySelector(".gu-tool-name")?.textContent).toBe("save_note, called by an app");
    const details = /** @type {HTMLDetailsElement} */ (card.el.querySelector("details.gu-tool-details"));
    details.open = true; // the arguments and result print when the user opens them
    details.dispatchEvent(new Event("toggle"));
    expect(card.el.textContent).toContain("approved by the user in the app's card");
    expect(card.el.textContent).toContain("saved 'y'");
    expect(card.el.querySelector("button.gu-approve, button.gu-reject")).toBeNull();
  });
});
