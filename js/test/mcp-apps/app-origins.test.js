// Which origins an MCP app's CSP may name, as the browser checks them (the
// kernel's rule, src/ipygenui/mcp/_app_origins.py, plus this page's own
// origin), and an `app_origin` proxy on this page's own origin refused: the
// card says what it left out.
import { describe, expect, it, vi } from "vitest";
import { proxyRefusal } from "../../src/mcp-apps/app-frame.js";
import { appPolicy, checkedCsp, originRefusal } from "../../src/mcp-apps/csp.js";

const JUPYTER = "http://localhost:8888";
const HOSTILE = [
  "http://127.0.0.1:8888",
  "ws://localhost:8888",
  "http://0.0.0.0:8888",
  "http://169.254.169.254",
  "https://*.com",
  "http://2130706433",
  "https://*.co.uk",
  "http://192.168.0.1",
];

describe("the origins an app's CSP may name", () => {
  it("leaves out loopback, private, link-local and unspecified addresses and wide wildcards", () => {
    for (const key of ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"]) {
      const policy = appPolicy({ [key]: [...HOSTILE, "https://api.example.com"] }, JUPYTER);
      for (const origin of HOSTILE) expect(policy).not.toContain(origin);
      expect(policy).toContain("https://api.example.com");
    }
    expect(originRefusal("https://*.example.com", JUPYTER)).toBeNull();
    expect(originRefusal("https://*.example.co.uk", JUPYTER)).toBeNull();
    expect(originRefusal("http://169.254.169.254", JUPYTER)).toBe("a link-local address");
    expect(originRefusal("https://*.com", JUPYTER)).toBe("a wildcard wider than one registrable domain");
  });

  it("leaves out this page's own origin, its websocket form and a wildcard over it", () => {
    const page = "https://hub.example.com";
    for (const origin of ["https://hub.example.com", "wss://hub.example.com", "https://hub.example.com:443", "https://*.example.com"]) {
      expect(originRefusal(origin, page)).toBe("this page's own origin");
    }
    expect(originRefusal("https://api.example.org", page)).toBeNull();
  });

  it("names each origin left out, the kernel's first", () => {
    const app = {
      csp: { connectDomains: ["http://127.0.0.1:8888", "https://api.example.com"], resourceDomains: ["https://*.com"] },
      csp_dropped: [{ key: "frameDomains", origin: "'http://10.0.0.1'", reason: "a private address" }],
    };
    const { csp, dropped } = checkedCsp(app, JUPYTER);
    expect(csp).toEqual({ connectDomains: ["https://api.example.com"] });
    expect(dropped.map((d) => `${d.origin} ${d.reason}`)).toEqual([
      "'http://10.0.0.1' a private address",
      "http://127.0.0.1:8888 a loopback address",
      "https://*.com a wildcard wider than one registrable domain",
    ]);
  });
});

describe("an app's card", () => {
  const apps = (origin) => ({
    appOrigin: () => origin,
    kernelAlive: () => true,
    specFor: () => ({ uri: "ui://c", html: "<p>app</p>", csp: { connectDomains: [`${location.origin}`, "http://127.0.0.1:9"] } }),
    sendText: vi.fn(),
    request: vi.fn(),
    register() {},
    unregister() {},
  });
  const call = { tool_call_id: "c1", tool_name: "show_counter", has_result: false, approval: null, args_complete: false };

  async function card(origin) {
    const { createAppFrame } = await import("../../src/mcp-apps/app-frame.js");
    const frame = createAppFrame(apps(origin));
    frame.update(call, {});
    return frame.el;
  }

  it("notes each origin its CSP left out", async () => {
    const el = await card("");
    const frame = el.querySelector("iframe");
    expect(frame.srcdoc).not.toContain("127.0.0.1");
    expect(frame.srcdoc).toContain("connect-src 'none'");
    const note = el.querySelector(".gu-app-refused")?.textContent ?? "";
    expect(note).toContain("http://127.0.0.1:9 (a loopback address)");
    expect(note).toContain(`${location.origin} (`);
  });

  it("refuses an app_origin proxy on this page's own origin: the default sandbox, and a note", async () => {
    const own = `${location.origin}/files/proxy.html`;
    expect(proxyRefusal(own)).toContain("this page's own origin");
    expect(proxyRefusal("https://apps.example.com/sandbox.html")).toBeNull();
    const el = await card(own);
    const frame = el.querySelector("iframe");
    expect(frame.getAttribute("src")).toBeNull();
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts allow-forms"); // never allow-same-origin here
    expect(frame.srcdoc).toContain("Content-Security-Policy");
    expect(el.querySelector(".gu-app-refused")?.textContent).toContain(`app_origin ${own} is on this page's own origin: not used`);
  });
});
