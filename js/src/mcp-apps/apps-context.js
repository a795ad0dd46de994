// The chat view's side of its MCP apps: requests to the kernel (`mcp_app`
// messages, answered by request number), whether a kernel answers at all (a
// saved notebook without one shows each app's text instead), and the apps on
// screen, torn down with the view.

import { readServerMessage, toKernel } from "../protocol.js";

/**
 * @param {{model: any, send: (msg: any) => void, sendText: (text: string) => void, afterDecision?: () => void}} opts
 *   `afterDecision`: the user answered an app's question and its bar went (with the focus)
 */
export function createAppsContext({ model, send, sendText, afterDecision }) {
  let kernelAlive = false;
  /** @type {Set<{el: Element, refresh: () => void, teardown: (reason: string) => Promise<void>,
   *   leave: (reason: string) => Promise<void>}>} */
  const frames = new Set();
  /** @type {Map<number, {resolve: Function, reject: Function}>} */
  const waiting = new Map();
  let next = 1;
  const onCustom = (raw) => {
    const wasAlive = kernelAlive;
    kernelAlive = true;
    const msg = readServerMessage(raw);
    if (msg?.type === "mcp_app") {
      const entry = waiting.get(msg.request);
      waiting.delete(msg.request);
      if (entry && msg.error) entry.reject(msg.error);
      else entry?.resolve(msg.result ?? {});
    }
    if (!wasAlive) for (const frame of frames) frame.refresh();
  };
  model?.on?.("msg:custom", onCustom);
  return {
    /** The app origin option (`Chat(app_origin=...)`): a sandbox proxy page, or "". */
    appOrigin: () => String(model?.get?.("app_origin") ?? ""),
    kernelAlive: () => kernelAlive,
    /** The app of a tool (the `mcp_apps` trait), shown while its call's arguments stream; else null. */
    specFor(toolName) {
      const apps = model?.get?.("mcp_apps");
      const app = apps && typeof apps === "object" && Object.hasOwn(apps, toolName) ? apps[toolName] : null;
      return app && typeof app === "object" && typeof app.html === "string" ? app : null;
    },
    sendText,
    afterDecision,
    /**
     * An app's request, through the kernel to its server.
     * @returns {Promise<any>} the result; rejects with `{code, message, needs_approval?}`
     */
    request(toolCallId, method, params, approved = false) {
      const request = next++;
      return new Promise((resolve, reject) => {
        waiting.set(request, { resolve, reject });
        send(toKernel.mcpApp(toolCallId, request, method, params, approved));
      });
    },
    /** A part of the page leaves it (a dropped message): its apps are torn down first. @param {Element} el */
    release(el) {
      for (const frame of frames) if (el.contains(frame.el)) void frame.leave("the message left the view");
    },
    register: (frame) => frames.add(frame),
    unregister: (frame) => frames.delete(frame),
    destroy() {
      model?.off?.("msg:custom", onCustom);
      for (const frame of frames) void frame.teardown("the chat view closed");
      frames.clear();
      for (const entry of waiting.values()) entry.reject({ code: -32000, message: "the chat view closed" });
      waiting.clear();
    },
  };
}
