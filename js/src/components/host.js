// Mounts one component in its slot: a built-in module of this bundle, a
// registered component's ES module (its source comes from the Python
// registry, never from the model), or the kernel's output for a
// Python-rendered component. A component that throws shows an error box in
// its slot; the thread keeps working.
//
// Component contract (same for built-ins and user ESM):
//   export function render({ props, status, el, state, setState }) -> cleanup?
//   export function update({ props, status, el, state, setState })  (optional)
// Built-ins also get `resources`, the URLs the chat allowed to load (model
// images wait behind a "Load image" button until the user allows them).
// Without `update`, `render` runs again on a cleared `el` when props change.

import { h } from "../common/dom.js";
import * as a2ui from "./a2ui.js";
import * as chart from "./chart.js";
import * as form from "./form.js";
import * as image from "./image.js";
import * as markdown from "./markdown.js";
import * as metric from "./metric.js";
import * as output from "./python-component.js";
import * as table from "./table.js";

export const BUILTINS = { markdown, table, metric, chart, image, form, a2ui };

/** A short stable hash of a string (FNV-1a), to key the module cache. */
export function hashSource(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16) + ":" + text.length;
}

const moduleCache = new Map();

/** Import an ES module from source through a Blob URL; one import per source. */
export function loadModule(source, importer = (url) => import(/* @vite-ignore */ url)) {
  const key = hashSource(source);
  let entry = moduleCache.get(key);
  if (!entry || entry.source !== source) {
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    const promise = importer(url).finally(() => URL.revokeObjectURL(url));
    entry = { source, promise };
    moduleCache.set(key, entry);
    promise.catch(() => moduleCache.delete(key)); // let a later mount try again
  }
  return entry.promise;
}

/** The module that renders `spec`, or a promise of it. */
function resolveModule(spec, importer) {
  if (!spec || spec.kind === "missing") throw new Error("this component is not registered in this chat");
  if (spec.kind === "python") return output;
  if (spec.kind === "builtin") {
    const mod = BUILTINS[spec.builtin];
    if (!mod) throw new Error(`unknown built-in component "${spec.builtin}"`);
    return mod;
  }
  if (typeof spec.esm !== "string") throw new Error("the component has no ES module source");
  return loadModule(spec.esm, importer);
}

function errorBox(text) {
  return h("div.gu-component-error", { role: "alert", text });
}

function describe(err) {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/**
 * @param {{el: HTMLElement, spec: any, props: any, status: any, state?: any,
 *          setState?: (state: any, opts?: {flush?: boolean}) => void, output?: any,
 *          importer?: (url: string) => Promise<any>,
 *          resources?: import("../common/resources.js").Resources,
 *          fetchRows?: (opts: any) => Promise<any>, sendMessage?: (text: string) => void,
 *          sendAction?: (surfaceId: string, componentId: string, data: any) => void,
 *          isRunning?: () => boolean}} opts `fetchRows`: rows of the kernel
 *   data a call's table shows, by window (slot.js); `sendMessage`: starts a turn with
 *   a user message (a submitted Form's values); `isRunning`: whether a reply streams
 * @returns {{update: (props: any, status: any, extra?: {state?: any, output?: any, key?: string}) => void,
 *           destroy: () => void, ready: Promise<void>}}
 */
export function mountComponent({
  el,
  spec,
  props,
  status,
  state,
  setState,
  output: out,
  importer,
  resources,
  fetchRows,
  sendMessage,
  sendAction,
  isRunning,
}) {
  const body = h("div.gu-component-body");
  el.replaceChildren(body);
  let mod = null;
  let cleanup = null;
  let failed = false;
  let destroyed = false;
  /** @type {{props: any, status: any, state: any, output: any, key?: string}} */
  let current = { props, status, state: state ?? {}, output: out ?? null };
  let rendered = false;
  let lastKey = null;
  // Renders are skipped when nothing the component sees has changed: the
  // caller's key says so while props stream (comparing them would cost their
  // size on every frame), else the props themselves.
  const keyOf = (c) => {
    if (c.key !== undefined) return `key:${c.key}`;
    try {
      return JSON.stringify([c.props, c.status?.streaming, c.status?.fields, c.output?.seq, c.output?.final, c.output?.error]);
    } catch {
      return null;
    }
  };

  const args = () => ({
    props: current.props,
    status: current.status,
    el: body,
    state: current.state,
    output: current.output,
    resources,
    fetchRows,
    sendMessage,
    sendAction,
    isRunning,
    setState: (next, opts) => {
      const value = typeof next === "function" ? next(current.state) : next;
      current.state = { ...current.state, ...value };
      setState?.(current.state, opts);
    },
  });

  const fail = (err) => {
    failed = true;
    el.dataset.error = "render";
    body.replaceChildren(errorBox(`${spec?.name ?? "Component"} failed: ${describe(err)}`));
  };

  const draw = () => {
    if (!mod || destroyed) return;
    const key = keyOf(current);
    if (rendered && !failed && key !== null && key === lastKey) return;
    lastKey = key;
    try {
      if (rendered && typeof mod.update === "function") {
        mod.update(args());
      } else {
        if (rendered && typeof cleanup === "function") cleanup();
        body.replaceChildren();
        if (typeof mod.render !== "function") throw new Error("the module does not export render()");
        cleanup = mod.render(args());
        rendered = true;
      }
      if (failed) {
        failed = false;
        delete el.dataset.error;
      }
    } catch (err) {
      fail(err);
    }
  };

  let ready;
  try {
    const resolved = resolveModule(spec, importer);
    ready = Promise.resolve(resolved).then(
      (m) => {
        mod = m;
        draw();
      },
      (err) => fail(err),
    );
  } catch (err) {
    fail(err);
    ready = Promise.resolve();
  }

  return {
    ready,
    update(props, status, extra = {}) {
      current = {
        props,
        status,
        state: extra.state ?? current.state,
        output: extra.output === undefined ? current.output : extra.output,
        key: extra.key,
      };
      // After a throw, a new update is a new chance (the next props may be fine).
      if (failed) rendered = false;
      draw();
    },
    destroy() {
      destroyed = true;
      try {
        if (typeof cleanup === "function") cleanup();
      } catch {
        // a failing cleanup must not break the thread
      }
      el.replaceChildren();
    },
  };
}
