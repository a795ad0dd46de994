// An MCP app in its tool call's place: a sandboxed iframe, the host's own
// bars for what the app asks of the user, and the tool's text where no
// kernel answers (a static export, a saved notebook opened without one).
//
// Sandbox: the app's HTML never enters this page's DOM. It is the `srcdoc`
// of an iframe with `sandbox="allow-scripts allow-forms"` (no
// `allow-same-origin`: an opaque origin, no cookies, storage or XSRF token of
// the page; no `allow-top-navigation` or `allow-popups`), its CSP a `<meta>`
// before any of its markup (csp.js). With `Chat(app_origin=...)` the iframe
// is that proxy page instead, on another origin, which loads the HTML it is
// sent (the spec's double iframe), unless that page is on this page's own
// origin (it would run the app with this page's powers): then the default,
// with a note. The CSP's origins an app may not name are dropped and noted.
//
// An app whose resource asks for permissions (camera, microphone, ...) loads
// only once the user answered a bar naming them, its iframe created with an
// `allow` naming what they allowed (permissions.js). It may ask to be shown
// full screen or in a floating panel, on the user's click (display-mode.js);
// the user brings it back inline.

import { h, show } from "../common/dom.js";
import { PACKAGE_VERSION } from "../protocol.js";
import { createBridge, PROTOCOL_VERSION } from "./bridge.js";
import { checkedCsp, withPolicy } from "./csp.js";
import { createDisplayMode, containerDimensions, userJustActed } from "./display-mode.js";
import { downloadDetails, downloadFiles, saveFiles } from "./download.js";
import { hostContext, styleVariables, themeOf, toolInfo } from "./host-context.js";
import { allowAttribute, askedPermissions, permissionWords, permissionsObject } from "./permissions.js";

const MAX_HEIGHT = 600;
const MIN_HEIGHT = 40;
const FIRST_HEIGHT = 160;
const TEARDOWN_WAIT_MS = 2000;
const SANDBOX = "allow-scripts allow-forms";
const HOST_INFO = { name: "ipygenui", version: PACKAGE_VERSION };

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The app a call's result carries (`for_user.mcp_app`), if well formed; else null. */
export function appOf(part) {
  const app = part?.has_result && !part.is_error ? part.result?.for_user?.mcp_app : null;
  if (!isObject(app) || typeof app.html !== "string" || typeof app.uri !== "string") return null;
  return app;
}

/** What the app is told of the call's end: its result, or why it was cancelled. */
function ending(part, app) {
  if (part.approval?.status === "rejected") return { cancelled: part.approval.reason || "the user rejected the call" };
  if (!part.has_result) return null;
  if (app?.result) return { result: app.result };
  const text = typeof part.result?.error === "string" ? part.result.error : JSON.stringify(part.result ?? null);
  return { result: { content: [{ type: "text", text }], isError: !!part.is_error } };
}

/** The text of the tool's result for where the app cannot run. */
export function fallbackText(app) {
  const content = Array.isArray(app?.result?.content) ? app.result.content : [];
  const text = content
    .filter((c) => c?.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n");
  return text || "This tool's app shows only where a kernel runs.";
}

/** Why the `app_origin` proxy may not be used here (on this page's own origin), or null. */
export function proxyRefusal(proxy, page = globalThis.location) {
  let origin;
  try {
    origin = new URL(proxy, page?.href).origin;
  } catch {
    return `app_origin ${proxy} is not a URL`;
  }
  if (origin === page?.origin) return `app_origin ${proxy} is on this page's own origin`;
  return null;
}

/** The card's note on what of the app's setup was refused (null when nothing was). */
function refusedNote(dropped, proxyWhy) {
  const lines = [];
  if (proxyWhy) lines.push(`${proxyWhy}: not used; the app runs in a sandbox of its own.`);
  if (dropped.length) lines.push(`Left out of the app's CSP: ${dropped.map((d) => `${d.origin} (${d.reason})`).join(", ")}.`);
  return lines.length ? h("div.gu-app-note.gu-app-refused", { role: "note", text: lines.join("\n") }) : null;
}

/** The text of a `ui/message`'s content (a block or a list of blocks). */
function messageText(params) {
  const blocks = Array.isArray(params.content) ? params.content : [params.content];
  return blocks
    .filter((c) => c?.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n")
    .slice(0, 20000);
}

/** An http(s) URL the app asks to open, whole; null for any other scheme. */
function linkOf(params) {
  try {
    const url = new URL(String(params.url ?? ""));
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * @param {ReturnType<typeof import("./apps-context.js").createAppsContext>} apps
 */
export function createAppFrame(apps) {
  const bars = h("div.gu-app-bars");
  const box = h("div.gu-app-box");
  const title = h("span.gu-app-title");
  const inline = h("button.gu-app-inline", { type: "button", hidden: true, onclick: () => display.set("inline") });
  const close = h("button.gu-app-close", { type: "button", text: "Close app" });
  const head = h("div.gu-app-head", {}, title, inline, close);
  // the card: restyled in place for full screen and pip, never moved (its iframe would reload)
  const el = h("div.gu-app", { "data-display-mode": "inline" }, head, bars, box);
  const awayText = h("span.gu-app-away-text");
  const back = h("button.gu-app-back", { type: "button", text: "Show it here", onclick: () => display.set("inline") });
  // in the card's place while the app is shown elsewhere
  const away = h("div.gu-app-away", { hidden: true }, awayText, back);
  const slot = h("div.gu-app-slot", { hidden: true }, away, el);
  /** @type {{part: any, args: any, app: any, csp: Record<string, string[]>, granted: string[], iframe: HTMLIFrameElement,
   *   bridge: ReturnType<typeof createBridge>, sent: {partial: string, input: boolean, end: boolean}} | null} */
  let live = null;
  let lastPart = null;
  let lastArgs = {};
  /** The call whose app the user or the app itself closed, and the note its text keeps. */
  let closed = null;
  /** The call whose app waits for the user's answer on its permissions. */
  let asking = null;
  /** The user's answer for a call's app: the spec's names they allowed (none: "Continue without"). */
  let granted = null;

  const display = createDisplayMode(el, {
    onChange(mode, tell) {
      const shownAway = mode !== "inline";
      show(away, shownAway);
      show(inline, shownAway);
      inline.textContent = mode === "fullscreen" ? "Exit full screen" : "Back to the chat";
      inline.title = mode === "fullscreen" ? "Back in its card (Esc)" : "Back in its card";
      awayText.textContent = mode === "fullscreen" ? "The app is shown full screen." : "The app is shown in a floating panel.";
      if (tell) live?.bridge.notify("ui/notifications/host-context-changed", { displayMode: mode, containerDimensions: dimensions() });
    },
    focusOnFullscreen: () => inline,
  });
  const dimensions = () => containerDimensions(el, box, display.mode, MAX_HEIGHT);

  /** @param {string} text @param {string} yes @param {string} no @param {Node | null} [extra] */
  const ask = (text, yes, no, extra = null) =>
    new Promise((resolve) => {
      const done = (answer) => {
        const hadFocus = bar.contains(document.activeElement);
        bar.remove();
        // the pressed button went with its bar: the next question, else the chat says where
        const next = /** @type {HTMLElement | null} */ (bars.querySelector(".gu-app-yes"));
        if (hadFocus && next) next.focus();
        else if (hadFocus) apps.afterDecision?.();
        resolve(answer);
      };
      const bar = h(
        "div.gu-app-ask",
        { role: "group" },
        h("div.gu-app-ask-text", { text }),
        extra,
        h("button.gu-app-yes.gu-approve", { type: "button", text: yes, onclick: () => done(true) }),
        h("button.gu-app-no", { type: "button", text: no, onclick: () => done(false) }),
      );
      bars.append(bar);
    });

  const denied = (message) => Object.assign(new Error(message), { code: -32000 });

  /** A request that goes to the kernel; one that asks first waits for the user's click here. */
  const throughKernel = (method) => async (params) => {
    const id = live?.part.tool_call_id;
    try {
      return await apps.request(id, method, params);
    } catch (/** @type {any} */ error) {
      if (!error?.needs_approval) throw Object.assign(new Error(error?.message ?? String(error)), error);
      const what = method === "tools/call" ? `call ${String(params.name)}` : `read ${String(params.uri)}`;
      const args = method === "tools/call" ? JSON.stringify(params.arguments ?? {}, null, 2) : "";
      const shown = args ? h("pre.gu-app-ask-args", { text: args }) : null;
      const ok = await ask(`The app asks to ${what}.`, "Approve", "Reject", shown);
      if (!ok) throw denied("the user rejected the call");
      return apps.request(id, method, params, true);
    }
  };

  const handlers = {
    "ui/initialize": () => ({
      protocolVersion: PROTOCOL_VERSION,
      hostInfo: HOST_INFO,
      // every capability the host has, under the spec's names (McpUiHostCapabilities):
      // an app that checks one before using it turns the feature off when it is missing
      hostCapabilities: {
        openLinks: {},
        downloadFile: {},
        message: { text: {} }, // the text blocks of a ui/message become the user's message
        updateModelContext: { text: {}, structuredContent: {} },
        serverTools: {},
        serverResources: {},
        logging: {},
        sandbox: { csp: live?.csp ?? {}, permissions: permissionsObject(live?.granted ?? []) },
      },
      hostContext: hostContext(
        el,
        live?.part ?? {},
        { mode: display.mode, dimensions: dimensions() },
        live?.app?.tool,
        appOf(live?.part)?.request_id,
      ),
    }),
    ping: () => ({}),
    "tools/call": throughKernel("tools/call"),
    "resources/read": throughKernel("resources/read"),
    "ui/update-model-context": throughKernel("ui/update-model-context"),
    // away from inline only on the user's click in the app: never on its own
    "ui/request-display-mode": (params) => {
      const mode = String(params.mode ?? "");
      if (mode !== "inline" && !userJustActed()) return { mode: display.mode };
      return { mode: display.set(mode) };
    },
    "ui/message": async (params) => {
      const text = messageText(params);
      if (!text.trim()) throw denied("the message has no text");
      const ok = await ask(`The app wants to send this message as you:\n\n${text}`, "Send", "Discard");
      if (!ok) throw denied("the user discarded the message");
      apps.sendText(text);
      return {};
    },
    "ui/download-file": async (params) => {
      const files = downloadFiles(params); // over the cap or not embedded: an error, no bar
      const what = files.length === 1 ? "this file" : `these ${files.length} files`;
      const ok = await ask(`The app wants to save ${what} to your computer:`, "Download", "Cancel", downloadDetails(files));
      if (!ok) return { isError: true, content: [{ type: "text", text: "the user cancelled the download" }] };
      saveFiles(files);
      return {};
    },
    "ui/open-link": async (params) => {
      const url = linkOf(params);
      if (!url) throw denied("only http(s) links open");
      const ok = await ask(`The app wants to open:\n${url}`, "Open link", "Cancel");
      if (!ok) throw denied("the user did not open the link");
      window.open(url, "_blank", "noopener,noreferrer");
      return {};
    },
  };

  // JupyterLab's theme switched: the app hears the new theme and variables
  let lastTheme = null;
  const themeWatch = new MutationObserver(() => {
    const theme = themeOf(el);
    if (!live || theme === lastTheme) return;
    lastTheme = theme;
    live.bridge.notify("ui/notifications/host-context-changed", { theme, styles: { variables: styleVariables(el) } });
  });

  const onNotification = (method, params) => {
    if (!live) return;
    if (method === "ui/notifications/initialized") {
      lastTheme = themeOf(el);
      themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light"] });
      // a second one: the iframe reloaded (its node moved in the page), a new document hears it all again
      live.sent = { partial: "", input: false, end: false };
      tell();
    } else if (method === "ui/notifications/size-changed" && Number.isFinite(params.height)) {
      const height = Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(params.height)));
      live.iframe.style.height = `${height}px`;
      el.dataset.appHeight = String(height);
    } else if (method === "ui/notifications/request-teardown") {
      void closeApp("the app asked to close", "The app closed itself.");
    } else if (method === "ui/notifications/sandbox-proxy-ready") {
      live.bridge.postRaw("ui/notifications/sandbox-resource-ready", {
        html: live.app.html,
        sandbox: SANDBOX,
        csp: live.csp,
        permissions: permissionsObject(live.granted),
      });
    }
  };

  /** Tell the app how its call stands: partial input while it streams, the input once, then its end. */
  function tell() {
    if (!live || !live.bridge.initialized) return;
    const { part, sent, bridge } = live;
    if (!sent.input && !part.args_complete) {
      const text = JSON.stringify(live.args ?? {});
      if (text !== sent.partial) bridge.notify("ui/notifications/tool-input-partial", { arguments: live.args ?? {} });
      sent.partial = text;
      return;
    }
    if (!sent.input) {
      sent.input = true;
      bridge.notify("ui/notifications/tool-input", { arguments: live.args ?? {} });
    }
    const end = sent.end ? null : ending(part, appOf(part));
    if (!end) return;
    sent.end = true;
    const requestId = appOf(part)?.request_id;
    if (requestId != null) {
      // the tools/call may have gone out after ui/initialize: its id reaches the app with its result
      bridge.notify("ui/notifications/host-context-changed", { toolInfo: toolInfo(part, live.app?.tool, requestId) });
    }
    if (end.cancelled) bridge.notify("ui/notifications/tool-cancelled", { reason: String(end.cancelled) });
    else bridge.notify("ui/notifications/tool-result", end.result);
  }

  /**
   * Ask the user for what the app's resource asks (the app waits), then show it.
   * @param {any} part @param {any} app @param {string[]} asked the spec's names
   */
  async function askPermissions(part, app, asked) {
    const id = part.tool_call_id;
    if (asking === id) return; // its bar is up
    asking = id;
    bars.replaceChildren();
    box.replaceChildren(h("div.gu-app-note.gu-app-waiting", { text: "The app loads once you answer." }));
    title.textContent = app.uri;
    el.dataset.app = "asking";
    show(close, false);
    const note = h("div.gu-app-ask-note", { text: "Allow lets the app use them in this card only; your browser may ask you too." });
    const ok = await ask(`This app asks for: ${permissionWords(asked)}`, "Allow", "Continue without", note);
    if (asking !== id) return; // another call took the card meanwhile
    asking = null;
    granted = { id, names: ok ? asked : [] };
    if (lastPart) frame.update(lastPart, lastArgs);
  }

  /** @param {any} part @param {any} app @param {string[]} allowed the permissions the user granted */
  function mount(part, app, allowed) {
    const { csp, dropped } = checkedCsp(app);
    const wanted = apps.appOrigin();
    const proxyWhy = wanted ? proxyRefusal(wanted) : null;
    const proxy = proxyWhy ? "" : wanted;
    const iframe = h("iframe.gu-app-frame", {
      title: `App of ${part.tool_name}`,
      referrerpolicy: "no-referrer",
      // behind a proxy on another origin, the proxy page needs its own origin to run
      sandbox: proxy ? `${SANDBOX} allow-same-origin` : SANDBOX,
      // set before the frame loads: a later change would apply only at its next navigation
      ...(allowed.length ? { allow: allowAttribute(allowed) } : {}),
    });
    iframe.style.height = `${FIRST_HEIGHT}px`;
    let origin = "*";
    if (proxy) {
      origin = new URL(proxy).origin;
      iframe.src = proxy;
    } else {
      iframe.srcdoc = withPolicy(app.html, csp);
    }
    const bridge = createBridge({ target: () => iframe.contentWindow, origin, handlers, onNotification });
    live = { part, args: lastArgs, app, csp, granted: allowed, iframe, bridge, sent: { partial: "", input: false, end: false } };
    // A second load is the app navigating its own frame away (no sandbox flag
    // forbids that): whatever loaded is not the server's app, so it goes. Its
    // text is the call's as it stands now: `app` is the copy read before the
    // call ended, with no result.
    let loads = 0;
    iframe.addEventListener("load", () => {
      if (++loads < 2 || live?.iframe !== iframe) return;
      const now = live.part;
      closed = { id: now.tool_call_id, why: "The app left its page and was closed." };
      void teardown("the app left its page", false).then(() => showText(appOf(now) ?? app, closed?.why));
    });
    const note = refusedNote(dropped, proxyWhy);
    box.replaceChildren(iframe, ...(note ? [note] : []));
    title.textContent = app.uri;
    el.dataset.app = "live";
  }

  function showText(app, why = "") {
    box.replaceChildren(h("div.gu-app-fallback", { text: fallbackText(app) }), ...(why ? [h("div.gu-app-note", { text: why })] : []));
    title.textContent = app.uri;
    el.dataset.app = "text";
    show(close, false);
  }

  /**
   * Send `ui/resource-teardown`, wait for the app's answer (a while at most), then drop it.
   * @param {string} reason @param {boolean} [ask] false: the app is gone already, drop it at once
   */
  async function teardown(reason, ask = true) {
    const was = live;
    if (!was) return;
    live = null;
    display.reset();
    if (ask && was.bridge.initialized) {
      let timer;
      const waited = new Promise((resolve) => (timer = setTimeout(resolve, TEARDOWN_WAIT_MS)));
      await Promise.race([was.bridge.request("ui/resource-teardown", { reason }).catch(() => null), waited]);
      clearTimeout(timer);
    }
    themeWatch.disconnect();
    was.bridge.close();
    was.iframe.remove();
    bars.replaceChildren();
  }

  /**
   * The card is leaving the page (its message dropped: another thread or
   * branch, a regenerated reply). Removing an iframe ends its document at
   * once, so the app's frame first moves, alive (`moveBefore` keeps its
   * document), to a hidden holder beside the chat, hears the teardown and
   * waits for its answer there (a while at most), then goes. A browser
   * without `moveBefore` drops it unasked, as before.
   * @param {string} reason
   */
  async function leave(reason) {
    apps.unregister(frame);
    lastPart = null;
    asking = null;
    display.reset();
    const was = live;
    if (!was) return;
    const holder = h("div.gu-app-leaving", { "aria-hidden": "true" });
    holder.style.cssText = "position:fixed;left:-10000px;top:0;width:1px;height:1px;overflow:hidden;visibility:hidden";
    const beside = was.iframe.closest(".gu-chat") ?? document.body;
    const canMove = typeof holder.moveBefore === "function" && was.iframe.isConnected && was.bridge.initialized;
    if (!canMove) return teardown(reason, false);
    beside.append(holder);
    try {
      holder.moveBefore(was.iframe, null);
    } catch {
      holder.remove();
      return teardown(reason, false);
    }
    await teardown(reason);
    holder.remove();
  }

  /** Close app (the user's click, or the app's own request): the teardown, then the tool's text. */
  async function closeApp(reason, why) {
    const part = live?.part;
    await teardown(reason);
    if (part) {
      closed = { id: part.tool_call_id, why };
      const app = appOf(part);
      if (app) showText(app, closed.why);
    }
  }

  close.addEventListener("click", () => void closeApp("the user closed the app", "App closed."));

  const frame = {
    el: slot,
    refresh() {
      if (lastPart) frame.update(lastPart, lastArgs);
    },
    teardown,
    leave,
    /**
     * @param {any} part the tool-call part (its result may carry an app)
     * @param {any} args its arguments as the tool got them (the standard parameters left out)
     */
    update(part, args) {
      lastPart = part;
      lastArgs = args;
      // the app the result carries, or (while the call runs) the tool's app from the kernel
      const app = appOf(part) ?? (part.has_result ? null : apps.specFor(part.tool_name));
      if (live && live.part.tool_call_id === part.tool_call_id) {
        live.part = part;
        live.args = args;
        tell();
        return;
      }
      if (asking === part.tool_call_id && app) return; // its bar waits for the user
      show(slot, !!app);
      if (asking) {
        asking = null; // another call, or none, took the card: its question goes
        bars.replaceChildren();
      }
      if (!app) {
        if (live) void teardown("the call no longer shows an app");
        return;
      }
      apps.register(frame);
      if (live) void teardown("another call took its place");
      if (closed?.id === part.tool_call_id) {
        if (appOf(part)) showText(app, closed.why); // its result may have come since
        return;
      }
      if (!apps.kernelAlive()) {
        showText(app);
        return;
      }
      const asked = askedPermissions(app);
      const answered = granted?.id === part.tool_call_id ? granted.names : null;
      if (asked.length && !answered) {
        void askPermissions(part, app, asked);
        return;
      }
      show(close, true);
      mount(part, app, answered ? asked.filter((name) => answered.includes(name)) : []);
    },
  };
  return frame;
}
