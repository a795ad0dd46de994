// MCP Apps host, browser half, in jsdom: the CSP built from the resource's
// declared domains (the spec's default without them, nothing undeclared), a
// bridge that hears only its app's window and says nothing before the app is
// initialized, and a card that shows the app's text where no kernel answers.
// The real sandbox is proved in Chromium (tests/e2e/test_mcp_apps.py).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAppsContext } from "../../src/mcp-apps/apps-context.js";
import { createBridge } from "../../src/mcp-apps/bridge.js";
import { appPolicy, withPolicy } from "../../src/mcp-apps/csp.js";
import { createThreadView } from "../../src/thread/view.js";
import { createToolCard } from "../../src/tool-card/tool-card.js";

describe("the app's CSP", () => {
  it("is the spec's default when nothing is declared", () => {
    const policy = appPolicy(undefined);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self' 'unsafe-inline'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "media-src 'self' data:",
      "connect-src 'none'",
      "frame-src 'none'",
      "object-src 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
  });

  it("adds declared origins only, and nothing that is not an origin", () => {
    const policy = appPolicy({
      connectDomains: ["https://api.example.com", "https://x.com; script-src *", "*", "'unsafe-eval'"],
      resourceDomains: ["https://cdn.example.com"],
    });
    expect(policy).toContain("connect-src https://api.example.com;");
    expect(policy).toContain("script-src 'self' 'unsafe-inline' https://cdn.example.com");
    expect(policy).not.toContain("x.com");
    expect(policy).not.toContain("unsafe-eval");
    expect(policy.split(";").filter((d) => d.trim().startsWith("script-src"))).toHaveLength(1);
  });

  it("comes before any of the app's markup", () => {
    const html = withPolicy('<!DOCTYPE html><html><head><script>x()</script></head></html>', {});
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<script>"));
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    // an attribute-breaking quote in the policy is impossible: origins carry none
    expect(withPolicy("", { connectDomains: ['https://a.com"><script>'] })).not.toContain("<script>");
  });
});

/** A fake app window: what the host posts to it, and a way to speak as it. */
function fakeApp() {
  const posted = [];
  const win = { postMessage: (m) => posted.push(m) };
  const speak = (data, source = win) => window.dispatchEvent(new MessageEvent("message", { data, source }));
  return { win, posted, speak };
}

describe("the bridge", () => {
  it("hears only its app's window, and holds its notifications until initialized", async () => {
    const { win, posted, speak } = fakeApp();
    const handlers = { "ui/initialize": vi.fn(() => ({ ok: 1 })), "ui/open-link": vi.fn(() => ({})) };
    const onNotification = vi.fn();
    const bridge = createBridge({ target: () => win, origin: "*", handlers, onNotification });
    bridge.notify("ui/notifications/tool-input", { arguments: { a: 1 } });
    expect(posted).toEqual([]); // not before the app is initialized
    // another window speaks: ignored
    speak({ jsonrpc: "2.0", id: 1, method: "ui/open-link", params: { url: "https://evil" } }, window);
    speak({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, { postMessage() {} });
    await Promise.resolve();
    expect(handlers["ui/open-link"]).not.toHaveBeenCalled();
    expect(onNotification).not.toHaveBeenCalled();
    speak({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
    await new Promise((r) => setTimeout(r));
    expect(posted).toEqual([{ jsonrpc: "2.0", id: 1, result: { ok: 1 } }]);
    speak({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    expect(posted.at(-1)).toEqual({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { a: 1 } } });
    speak({ jsonrpc: "2.0", id: 2, method: "sampling/createMessage", params: {} });
    await new Promise((r) => setTimeout(r));
    expect(posted.at(-1).error.code).toBe(-32601);
    bridge.close();
  });
});

/** A finished call of an app tool, its app in the result. */
const COUNTER_CALL = {
  type: "tool-call",
  tool_call_id: "call_app",
  tool_name: "show_counter",
  args: { start: 5 },
  args_text: '{"start": 5}',
  args_complete: true,
  has_result: true,
  is_error: false,
  approval: null,
  result: {
    result: "Counter shown",
    for_user: {
      mcp_app: {
        uri: "ui://counter/app",
        html: "<h3 id=secret-markup>x</h3><script>parent.x=1</script>",
        csp: {},
        result: { content: [{ type: "text", text: "Counter shown from 5" }] },
      },
    },
  },
};

describe("an app tool's card", () => {
  const part = COUNTER_CALL;
  const model = () => {
    const handlers = {};
    return {
      get: () => "",
      on: (name, f) => (handlers[name] = f),
      off() {},
      send: vi.fn(),
      fire: (msg) => handlers["msg:custom"]?.(msg),
    };
  };

  it("shows the tool's text until a kernel answers, then the sandboxed app; its HTML never in the card", () => {
    const m = model();
    const apps = createAppsContext({ model: m, send: m.send, sendText: vi.fn() });
    const card = createToolCard({ send: m.send, notify() {}, isHuman: () => false, apps });
    card.update(part, { canAct: false });
    expect(card.el.querySelector(".gu-app-fallback").textContent).toBe("Counter shown from 5");
    expect(card.el.querySelector("iframe")).toBeNull();
    m.fire({ type: "snapshot", seq: 1, messages: [] }); // a kernel answers
    const frame = card.el.querySelector("iframe.gu-app-frame");
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts allow-forms");
    expect(frame.srcdoc).toContain("Content-Security-Policy");
    expect(card.el.querySelector("#secret-markup")).toBeNull();
    expect(card.el.querySelector(".gu-tool-result").textContent).not.toContain("parent.x=1"); // nor printed
  });
});

describe("an app shown while its call streams", () => {
  const apps = (spec) => ({
    appOrigin: () => "",
    kernelAlive: () => true,
    specFor: (name) => (name === "show_counter" ? spec : null),
    sendText: vi.fn(),
    request: vi.fn(),
    register() {},
    unregister() {},
  });
  const call = (extra) => ({ tool_call_id: "c1", tool_name: "show_counter", has_result: false, approval: null, ...extra });

  async function mounted(spec, context = apps(spec)) {
    const { createAppFrame } = await import("../../src/mcp-apps/app-frame.js");
    const frame = createAppFrame(context);
    document.body.append(frame.el);
    frame.update(call({ args_complete: false }), { start: 1 });
    const win = frame.el.querySelector("iframe").contentWindow;
    const posted = [];
    win.postMessage = (m) => posted.push(m);
    const speak = (data) => window.dispatchEvent(new MessageEvent("message", { data, source: win }));
    speak({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
    await new Promise((r) => setTimeout(r));
    speak({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    return { frame, posted, methods: () => posted.map((m) => m.method).filter(Boolean) };
  }

  it("a question's bar answered from the keyboard hands the focus on: the next question, else the chat", async () => {
    const context = { ...apps({}), afterDecision: vi.fn() };
    const { frame } = await mounted({ uri: "ui://c", html: "<p>app</p>", csp: {} }, context);
    const win = frame.el.querySelector("iframe").contentWindow;
    const speak = (data) => window.dispatchEvent(new MessageEvent("message", { data, source: win }));
    speak({ jsonrpc: "2.0", id: 7, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "one" }] } });
    speak({ jsonrpc: "2.0", id: 8, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "two" }] } });
    await new Promise((r) => setTimeout(r));
    const sends = () => [...frame.el.querySelectorAll(".gu-app-ask button.gu-app-yes")];
    expect(sends()).toHaveLength(2);
    sends()[0].focus();
    sends()[0].click();
    expect(document.activeElement).toBe(sends()[0]); // the second question's Send
    expect(context.afterDecision).not.toHaveBeenCalled();
    sends()[0].click();
    expect(context.afterDecision).toHaveBeenCalledTimes(1); // the chat puts it on the composer
    await new Promise((r) => setTimeout(r));
    expect(context.sendText.mock.calls).toEqual([["one"], ["two"]]);
    frame.el.remove();
  });

  it("gets partial input, then the input once, then the result", async () => {
    const { frame, posted, methods } = await mounted({ uri: "ui://c", html: "<p>app</p>", csp: {} });
    frame.update(call({ args_complete: false }), { start: 12 });
    frame.update(call({ args_complete: true }), { start: 123 });
    const result = { content: [{ type: "text", text: "shown" }] };
    const done = call({ args_complete: true, has_result: true, is_error: false, result: { for_user: { mcp_app: { uri: "ui://c", html: "", result } } } });
    frame.update(done, { start: 123 });
    frame.update(done, { start: 123 });
    expect(methods()).toEqual([
      "ui/notifications/tool-input-partial",
      "ui/notifications/tool-input-partial",
      "ui/notifications/tool-input",
      "ui/notifications/tool-result",
    ]);
    expect(posted.find((m) => m.method === "ui/notifications/tool-input").params).toEqual({ arguments: { start: 123 } });
    expect(posted.at(-1).params).toEqual(result);
    frame.el.remove();
  });

  it("hears its input and result again when its iframe reloads", async () => {
    const { frame, posted, methods } = await mounted({ uri: "ui://c", html: "<p>app</p>", csp: {} });
    const result = { content: [{ type: "text", text: "shown" }] };
    const done = call({ args_complete: true, has_result: true, is_error: false, result: { for_user: { mcp_app: { uri: "ui://c", html: "", result } } } });
    frame.update(done, { start: 1 });
    const win = frame.el.querySelector("iframe").contentWindow;
    window.dispatchEvent(new MessageEvent("message", { data: { jsonrpc: "2.0", method: "ui/notifications/initialized" }, source: win }));
    expect(methods().slice(-2)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    expect(posted.filter((m) => m.method === "ui/notifications/tool-result")).toHaveLength(2);
    frame.el.remove();
  });

  it("shows the result's text, not the pre-read copy's, once it navigates its frame away", async () => {
    // mounted while the call streamed: the tool's app as read before, with no result yet
    const { frame } = await mounted({ uri: "ui://c", html: "<p>app</p>", csp: {} });
    const result = { content: [{ type: "text", text: "Counter shown from 1" }] };
    const done = call({ args_complete: true, has_result: true, is_error: false, result: { for_user: { mcp_app: { uri: "ui://c", html: "", result } } } });
    frame.update(done, { start: 1 });
    const iframe = frame.el.querySelector("iframe");
    iframe.dispatchEvent(new Event("load"));
    iframe.dispatchEvent(new Event("load")); // a second document: the app went elsewhere
    await new Promise((r) => setTimeout(r));
    expect(frame.el.querySelector("iframe")).toBeNull();
    expect(frame.el.querySelector(".gu-app-fallback").textContent).toBe("Counter shown from 1");
    expect(frame.el.querySelector(".gu-app-note").textContent).toBe("The app left its page and was closed.");
    frame.update(done, { start: 1 }); // the message renders again: the app stays closed
    expect(frame.el.querySelector("iframe")).toBeNull();
    expect(frame.el.querySelector(".gu-app-fallback").textContent).toBe("Counter shown from 1");
    frame.el.remove();
  });

  it("hears tool-cancelled when the user rejects the call", async () => {
    const { frame, methods } = await mounted({ uri: "ui://c", html: "<p>app</p>", csp: {} });
    frame.update(call({ args_complete: true, approval: { status: "rejected", reason: "no" } }), { start: 1 });
    expect(methods().slice(-2)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]);
    frame.el.remove();
  });
});

describe("an app whose message leaves the thread view", () => {
  // jsdom has no `moveBefore`: a stand-in that moves the frame as Chromium
  // does, its window (and what the test listens on) kept. The real move is
  // proved in Chromium (tests/e2e/test_mcp_apps.py).
  const hasMove = Object.hasOwn(Element.prototype, "moveBefore");
  beforeEach(() => {
    if (hasMove) return;
    Element.prototype.moveBefore = function (node, child) {
      const spy = node.contentWindow?.postMessage;
      this.insertBefore(node, child);
      if (spy) node.contentWindow.postMessage = spy;
    };
  });
  afterEach(() => {
    if (!hasMove) delete Element.prototype.moveBefore;
  });

  const message = (id) => ({ id, role: "assistant", parts: [COUNTER_CALL], status: { type: "complete" }, metadata: {} });

  it("hears ui/resource-teardown and keeps its frame until it answers", async () => {
    const handlers = {};
    const model = { get: () => "", on: (name, f) => (handlers[name] = f), off() {}, send: vi.fn() };
    const apps = createAppsContext({ model, send: model.send, sendText: vi.fn() });
    handlers["msg:custom"]({ type: "snapshot", seq: 1, messages: [] }); // a kernel answers
    const view = createThreadView({ send: vi.fn(), notify() {}, isHuman: () => false, apps });
    const chat = document.createElement("div");
    chat.className = "gu-chat";
    chat.append(view.el);
    document.body.append(chat);
    view.render([message("a1")], { running: false });
    const iframe = chat.querySelector("iframe.gu-app-frame");
    const win = iframe.contentWindow;
    const posted = [];
    win.postMessage = (m) => posted.push(m);
    const speak = (data) => window.dispatchEvent(new MessageEvent("message", { data, source: iframe.contentWindow }));
    speak({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
    await new Promise((r) => setTimeout(r));
    speak({ jsonrpc: "2.0", method: "ui/notifications/initialized" });

    view.render([message("b1")], { running: false }); // another thread: a1's view is dropped
    const asked = posted.find((m) => m.method === "ui/resource-teardown");
    expect(asked).toMatchObject({ id: "host-1", params: { reason: "the message left the view" } });
    expect(chat.querySelector('[data-message-id="a1"]')).toBeNull(); // the message is gone at once
    expect(iframe.isConnected).toBe(true); // its app, hidden, waits for its answer
    expect(iframe.closest(".gu-app-leaving").parentNode).toBe(chat);
    speak({ jsonrpc: "2.0", id: asked.id, result: {} });
    await new Promise((r) => setTimeout(r));
    expect(iframe.isConnected).toBe(false);
    expect(chat.querySelector(".gu-app-leaving")).toBeNull();
    chat.remove();
  });
});
