// `_meta.ui.permissions` in jsdom: an app that asks for any loads only once
// the user answered the bar naming them, its iframe created with an `allow`
// naming exactly what they allowed (none by default, none on "Continue
// without"), and the app reads the grant in its host capabilities. That
// Chromium gives the frame those features is proved in
// tests/e2e/test_mcp_apps.py.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAppFrame } from "../../src/mcp-apps/app-frame.js";
import { allowAttribute, askedPermissions, permissionWords } from "../../src/mcp-apps/permissions.js";

const apps = (origin = "") => ({
  appOrigin: () => origin,
  kernelAlive: () => true,
  specFor: () => null,
  sendText: vi.fn(),
  request: vi.fn(),
  register() {},
  unregister() {},
});

const ASKED = { camera: {}, microphone: {}, clipboardWrite: {} };
const call = (permissions, id = "c1") => ({
  tool_call_id: id,
  tool_name: "show_sdk_asking",
  args_complete: true,
  has_result: true,
  is_error: false,
  approval: null,
  result: { for_user: { mcp_app: { uri: "ui://sdk/asking", html: "<p>app</p>", csp: {}, permissions, result: { content: [] } } } },
});

const tick = () => new Promise((r) => setTimeout(r));

function showCard(part, origin = "") {
  const frame = createAppFrame(apps(origin));
  document.body.append(frame.el);
  frame.update(part, {});
  return frame;
}

/** The host capabilities the app reads from `ui/initialize`. */
async function capabilities(iframe) {
  const win = iframe.contentWindow;
  const posted = [];
  win.postMessage = (m) => posted.push(m);
  window.dispatchEvent(new MessageEvent("message", { data: { jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} }, source: win }));
  await tick();
  return posted.find((m) => m.id === 1).result.hostCapabilities;
}

afterEach(() => document.body.replaceChildren());

describe("an app's permissions", () => {
  it("are read under the spec's names only, and named to the user", () => {
    expect(askedPermissions({ permissions: { geolocation: {}, camera: {}, usb: {}, microphone: true } })).toEqual(["camera", "geolocation"]);
    expect(askedPermissions({ permissions: ["camera"] })).toEqual([]);
    expect(allowAttribute(["camera", "clipboardWrite"])).toBe("camera; clipboard-write");
    expect(allowAttribute(["camera *; usb"])).toBe(""); // only the spec's names make an allow
    expect(permissionWords(["camera", "microphone", "geolocation"])).toBe("camera, microphone, location");
  });

  it("are asked for before the app loads, and granted only on Allow", async () => {
    const frame = showCard(call(ASKED));
    expect(frame.el.querySelector("iframe")).toBeNull(); // nothing loads before the answer
    const bar = frame.el.querySelector(".gu-app-ask");
    expect(bar.querySelector(".gu-app-ask-text").textContent).toBe("This app asks for: camera, microphone, writing to the clipboard");
    frame.update(call(ASKED), {}); // the card renders again: one bar still
    expect(frame.el.querySelectorAll(".gu-app-ask")).toHaveLength(1);
    bar.querySelector("button.gu-app-yes").click();
    await tick();
    const iframe = frame.el.querySelector("iframe.gu-app-frame");
    expect(iframe.getAttribute("allow")).toBe("camera; microphone; clipboard-write");
    expect(frame.el.querySelector(".gu-app-ask")).toBeNull();
    expect((await capabilities(iframe)).sandbox.permissions).toEqual(ASKED);
    frame.update(call(ASKED), {}); // the answer holds for the card: not asked again
    expect(frame.el.querySelector(".gu-app-ask")).toBeNull();
    expect(frame.el.querySelector("iframe")).toBe(iframe);
  });

  it("are not granted on Continue without", async () => {
    const frame = showCard(call(ASKED));
    frame.el.querySelector(".gu-app-ask button.gu-app-no").click();
    await tick();
    const iframe = frame.el.querySelector("iframe.gu-app-frame");
    expect(iframe.hasAttribute("allow")).toBe(false);
    expect((await capabilities(iframe)).sandbox.permissions).toEqual({});
  });

  it("are none by default: an app asking for nothing loads at once, with no allow", async () => {
    const frame = showCard(call(undefined));
    const iframe = frame.el.querySelector("iframe.gu-app-frame");
    expect(iframe.hasAttribute("allow")).toBe(false);
    expect(frame.el.querySelector(".gu-app-ask")).toBeNull();
    expect((await capabilities(iframe)).sandbox.permissions).toEqual({});
  });

  it("asked for one call are not given to the next call's app", async () => {
    const frame = showCard(call(ASKED, "c1"));
    frame.el.querySelector(".gu-app-ask button.gu-app-yes").click();
    await tick();
    frame.update(call(ASKED, "c2"), {}); // another call takes the card
    expect(frame.el.querySelector("iframe")).toBeNull();
    expect(frame.el.querySelectorAll(".gu-app-ask")).toHaveLength(1);
  });

  it("behind a sandbox proxy, go to the proxy's frame and to the proxy for the app's", async () => {
    const frame = showCard(call({ geolocation: {} }), "https://apps.example.com/proxy.html");
    frame.el.querySelector(".gu-app-ask button.gu-app-yes").click();
    await tick();
    const iframe = frame.el.querySelector("iframe.gu-app-frame");
    expect(iframe.getAttribute("allow")).toBe("geolocation");
    const win = iframe.contentWindow;
    const posted = [];
    win.postMessage = (m) => posted.push(m);
    const ready = { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} };
    window.dispatchEvent(new MessageEvent("message", { data: ready, source: win, origin: "https://apps.example.com" }));
    expect(posted.at(-1).params.permissions).toEqual({ geolocation: {} });
  });
});
