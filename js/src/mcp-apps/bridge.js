// JSON-RPC over postMessage with one MCP app (the View), host side.
//
// - A message counts only when `event.source` is the app's own window (and,
//   behind a sandbox proxy, its origin is the proxy's): another frame, the
//   page or a popup cannot speak for it.
// - Nothing goes to the app before its `ui/notifications/initialized`
//   (answers to its own requests aside): the tool input and result wait.
// - What the app asks is handled by `handlers` (the frame decides what needs
//   the user); an unknown method is answered "method not found".

export const PROTOCOL_VERSION = "2026-01-26";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * @param {{
 *   target: () => (Window | null), origin: string,
 *   handlers: Record<string, (params: any) => Promise<any> | any>,
 *   onNotification: (method: string, params: any) => void,
 * }} opts `origin`: the origin messages must come from and go to ("*" for an
 *   opaque-origin iframe, whose origin is "null")
 */
export function createBridge({ target, origin, handlers, onNotification }) {
  let initialized = false;
  /** @type {any[]} host notifications held until the app is initialized */
  const held = [];
  /** @type {Map<string, {resolve: Function, reject: Function}>} */
  const pending = new Map();
  let nextId = 1;
  let closed = false;

  const post = (message) => {
    const win = target();
    if (!win || closed) return;
    win.postMessage({ jsonrpc: "2.0", ...message }, origin === "*" ? "*" : origin);
  };
  const answer = async (id, method, params) => {
    const handler = Object.prototype.hasOwnProperty.call(handlers, method) ? handlers[method] : null;
    if (!handler) {
      post({ id, error: { code: -32601, message: `the host does not handle ${String(method).slice(0, 80)}` } });
      return;
    }
    try {
      post({ id, result: (await handler(params)) ?? {} });
    } catch (/** @type {any} */ error) {
      const code = Number.isInteger(error?.code) ? error.code : -32000;
      post({ id, error: { code, message: String(error?.message ?? error).slice(0, 2000) } });
    }
  };

  const onMessage = (event) => {
    const win = target();
    if (closed || !win || event.source !== win) return; // only the app's own window
    if (origin !== "*" && event.origin !== origin) return;
    const m = event.data;
    if (!isObject(m) || m.jsonrpc !== "2.0") return;
    const hasId = typeof m.id === "number" || typeof m.id === "string";
    if (typeof m.method === "string" && hasId) {
      void answer(m.id, m.method, isObject(m.params) ? m.params : {});
    } else if (typeof m.method === "string") {
      if (m.method === "ui/notifications/initialized" && !initialized) {
        initialized = true;
        for (const message of held.splice(0)) post(message);
      }
      onNotification(m.method, isObject(m.params) ? m.params : {});
    } else if (hasId) {
      const entry = pending.get(m.id);
      pending.delete(m.id);
      if (entry && m.error) entry.reject(m.error);
      else entry?.resolve(m.result);
    }
  };
  window.addEventListener("message", onMessage);

  return {
    get initialized() {
      return initialized;
    },
    /** A notification to the app (held until it is initialized). */
    notify(method, params) {
      const message = { method, params };
      if (initialized) post(message);
      else held.push(message);
    },
    /** A request to the app; resolves with its result (none before it is initialized). */
    request(method, params) {
      if (!initialized) return Promise.resolve(null);
      const id = `host-${nextId++}`; // never one of the app's own ids
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        post({ id, method, params });
      });
    },
    /** A message for the proxy itself (`ui/notifications/sandbox-*`): sent at once. */
    postRaw(method, params) {
      post({ method, params });
    },
    close() {
      closed = true;
      window.removeEventListener("message", onMessage);
      for (const entry of pending.values()) entry.reject(new Error("closed"));
      pending.clear();
    },
  };
}
