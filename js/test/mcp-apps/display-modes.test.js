// Display modes in jsdom: `ui/request-display-mode` answered with the mode
// set, the app told through `host-context-changed`, the same iframe kept,
// only one app full screen, Esc and the card's buttons bring it back inline,
// and nothing leaves inline without the user's click. That the frame covers
// the window, floats while the notebook scrolls and is not reloaded is proved
// in Chromium (tests/e2e/test_mcp_apps.py).
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAppFrame } from "../../src/mcp-apps/app-frame.js";

const apps = () => ({
  appOrigin: () => "",
  kernelAlive: () => true,
  specFor: () => null,
  sendText: vi.fn(),
  request: vi.fn(),
  register() {},
  unregister() {},
});

const call = (id) => ({
  tool_call_id: id,
  tool_name: "show_sdk",
  args_complete: true,
  has_result: true,
  is_error: false,
  approval: null,
  result: { for_user: { mcp_app: { uri: `ui://sdk/${id}`, html: "<p>app</p>", csp: {}, result: { content: [] } } } },
});

const tick = () => new Promise((r) => setTimeout(r));

/** An app shown and initialized; `ask` sends it a request and resolves with the answer. */
async function shown(id = "c1") {
  const frame = createAppFrame(apps());
  document.body.append(frame.el);
  frame.update(call(id), {});
  const iframe = frame.el.querySelector("iframe");
  const win = iframe.contentWindow;
  const posted = [];
  win.postMessage = (m) => posted.push(m);
  const speak = (data) => window.dispatchEvent(new MessageEvent("message", { data, source: win }));
  let next = 1;
  const ask = async (method, params = {}) => {
    const id = next++;
    speak({ jsonrpc: "2.0", id, method, params });
    await tick();
    return posted.find((m) => m.id === id);
  };
  const init = await ask("ui/initialize");
  speak({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  const card = frame.el.querySelector(".gu-app");
  const changes = () => posted.filter((m) => m.method === "ui/notifications/host-context-changed").map((m) => m.params);
  return { frame, iframe, card, init, ask, changes };
}

afterEach(() => {
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

describe("display modes", () => {
  it("are advertised, and inline is where the app starts", async () => {
    const { init } = await shown();
    expect(init.result.hostContext.displayMode).toBe("inline");
    expect(init.result.hostContext.availableDisplayModes).toEqual(["inline", "fullscreen", "pip"]);
    expect(init.result.hostContext.containerDimensions.maxHeight).toBe(600);
  });

  it("answer with the mode set, tell the app, and keep its iframe", async () => {
    const { frame, iframe, card, ask, changes } = await shown();
    expect((await ask("ui/request-display-mode", { mode: "fullscreen" })).result).toEqual({ mode: "fullscreen" });
    expect(card.dataset.displayMode).toBe("fullscreen");
    expect(changes().at(-1)).toMatchObject({ displayMode: "fullscreen" });
    expect(frame.el.querySelector("iframe")).toBe(iframe); // the same frame, not made again
    expect(iframe.parentNode.closest(".gu-app")).toBe(card);
    expect(frame.el.querySelector(".gu-app-away").hidden).toBe(false); // the card's place says where it went
    expect(document.activeElement?.textContent).toBe("Exit full screen"); // Esc reaches the host

    expect((await ask("ui/request-display-mode", { mode: "pip" })).result).toEqual({ mode: "pip" });
    expect(changes().at(-1)).toMatchObject({ displayMode: "pip", containerDimensions: { maxHeight: 320 } });
    expect((await ask("ui/request-display-mode", { mode: "sideways" })).result).toEqual({ mode: "pip" }); // unknown: unchanged
    expect((await ask("ui/request-display-mode", { mode: "inline" })).result).toEqual({ mode: "inline" });
    expect(card.dataset.displayMode).toBe("inline");
    expect(frame.el.querySelector(".gu-app-away").hidden).toBe(true);
    expect(frame.el.querySelector("iframe")).toBe(iframe);
  });

  it("come back inline on Esc, on the head's button and on the card's", async () => {
    const { card, ask, changes, frame } = await shown();
    await ask("ui/request-display-mode", { mode: "fullscreen" });
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(card.dataset.displayMode).toBe("inline");
    expect(changes().at(-1)).toMatchObject({ displayMode: "inline" });

    await ask("ui/request-display-mode", { mode: "pip" });
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(card.dataset.displayMode).toBe("pip"); // Esc is full screen's only
    frame.el.querySelector("button.gu-app-inline").click();
    expect(card.dataset.displayMode).toBe("inline");

    await ask("ui/request-display-mode", { mode: "fullscreen" });
    frame.el.querySelector("button.gu-app-back").click();
    expect(card.dataset.displayMode).toBe("inline");
    expect(changes().map((c) => c.displayMode)).toEqual(["fullscreen", "inline", "pip", "inline", "fullscreen", "inline"]);
  });

  it("show one app full screen at a time: the one before goes back inline and hears it", async () => {
    const first = await shown("c1");
    const second = await shown("c2");
    await first.ask("ui/request-display-mode", { mode: "fullscreen" });
    await second.ask("ui/request-display-mode", { mode: "fullscreen" });
    expect(second.card.dataset.displayMode).toBe("fullscreen");
    expect(first.card.dataset.displayMode).toBe("inline");
    expect(first.changes().at(-1)).toMatchObject({ displayMode: "inline" });
  });

  it("leave inline only on the user's click", async () => {
    const { card, ask } = await shown();
    vi.stubGlobal("navigator", { ...navigator, userActivation: { isActive: false } });
    expect((await ask("ui/request-display-mode", { mode: "fullscreen" })).result).toEqual({ mode: "inline" });
    expect(card.dataset.displayMode).toBe("inline");
    vi.stubGlobal("navigator", { ...navigator, userActivation: { isActive: true } });
    expect((await ask("ui/request-display-mode", { mode: "fullscreen" })).result).toEqual({ mode: "fullscreen" });
    vi.stubGlobal("navigator", { ...navigator, userActivation: { isActive: false } });
    expect((await ask("ui/request-display-mode", { mode: "inline" })).result).toEqual({ mode: "inline" }); // back: always
  });

  it("end inline when the app closes full screen", async () => {
    const { card, ask, frame } = await shown();
    await ask("ui/request-display-mode", { mode: "fullscreen" });
    await frame.teardown("the user closed the app", false);
    expect(card.dataset.displayMode).toBe("inline");
    expect(frame.el.querySelector(".gu-app-away").hidden).toBe(true); // nothing says it is elsewhere
    expect(frame.el.querySelector("button.gu-app-inline").hidden).toBe(true);
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })); // no listener left to fail
  });
});
