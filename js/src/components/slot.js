// The glue between the thread view and component hosts, one context per
// chat view:
// - component specs (name -> kind, ES module source or built-in id) come
//   from the Chat's `component_specs` trait;
// - kernel outputs (a Python component's MIME bundle, or kernel-computed
//   props such as a DataFrame's rows) come from the `component_outputs`
//   trait (final, durable) and `component_output` custom messages (live);
// - the effective props of a component an update call changed come from the
//   `component_props` trait (the kernel merges them:
//   ipygenui.components.shown.updated_props); any other component renders
//   its call's own (streaming) args. An update call's half-formed props are
//   not shown: they apply once the update succeeded. Which component a call
//   shows, and its id, the kernel says (protocol.js);
// - until a streaming call has props to show (its name came first; many
//   providers send the arguments whole, a while later), the slot shows a
//   placeholder that names the component ("Preparing the table…");
// - user state goes back to the kernel as `component_state`, debounced.

import { h, show } from "../common/dom.js";
import { componentIdOf, readLimits, readServerMessage, shownComponent, toKernel } from "../protocol.js";
import { argsWhole } from "../tool-card/streamed-args.js";
import { mountComponent } from "./host.js";
import { propsStatus } from "./status.js";

export const STATE_DEBOUNCE_MS = 400;

/**
 * @param {{model?: any, send: (msg: any) => void, setTimer?: Function, clearTimer?: Function,
 *          resources?: import("../common/resources.js").Resources, sendText?: (text: string) => void}} opts
 *   `resources`: the URLs the chat allowed to load (built-ins showing model images or
 *   markdown use it); `sendText`: sends a user message as the composer does (a Form's Submit)
 */
export function createComponentContext({
  model,
  send,
  sendText,
  setTimer = setTimeout,
  clearTimer = clearTimeout,
  resources,
}) {
  /** @type {Map<string, any>} tool call id -> latest kernel output */
  const outputs = new Map();
  /** @type {Record<string, any>} component id -> effective props, for components an update changed */
  let componentProps = {};
  /** @type {Map<string, any>} tool call id -> slot */
  const slots = new Map();
  const timers = new Map();
  let specs = new Map();
  // Counts changes of `component_props`: part of a streaming component's render key.
  let propsRevision = 0;

  const readSpecs = () => {
    specs = new Map();
    for (const spec of model?.get?.("component_specs") ?? []) if (spec?.name) specs.set(spec.name, spec);
  };
  const refreshAll = () => {
    for (const slot of slots.values()) slot.refresh();
  };
  const setOutput = (output) => {
    if (!output || typeof output.tool_call_id !== "string") return;
    const old = outputs.get(output.tool_call_id);
    if (old && old.final && !output.final && (old.seq ?? 0) >= (output.seq ?? 0)) return;
    outputs.set(output.tool_call_id, output);
    slots.get(output.tool_call_id)?.refresh();
  };
  const readProps = () => {
    const before = componentProps;
    const next = model?.get?.("component_props");
    componentProps = next && typeof next === "object" && !Array.isArray(next) ? next : {};
    propsRevision++;
    for (const slot of slots.values()) {
      const id = slot.componentId;
      if (id && (id in before || id in componentProps)) slot.refresh();
    }
  };
  const readOutputs = () => {
    for (const output of Object.values(model?.get?.("component_outputs") ?? {})) setOutput(output);
  };
  /** @type {Map<number, {resolve: Function, reject: Function}>} data_window request -> its promise */
  const windows = new Map();
  let nextRequest = 1;
  const onCustom = (raw) => {
    const msg = readServerMessage(raw);
    if (msg?.type === "component_output") setOutput(msg.output);
    if (msg?.type === "data_window") {
      const waiting = windows.get(msg.request);
      windows.delete(msg.request);
      if (waiting && msg.error) waiting.reject(new Error(msg.error));
      else waiting?.resolve(msg);
    }
  };
  const onSpecs = () => {
    readSpecs();
    refreshAll();
  };

  readSpecs();
  readOutputs();
  readProps();
  model?.on?.("msg:custom", onCustom);
  model?.on?.("change:component_specs", onSpecs);
  model?.on?.("change:component_outputs", readOutputs);
  model?.on?.("change:component_props", readProps);

  return {
    resources,
    sendText,
    /** Whether a reply streams now (the `running` trait). */
    isRunning: () => !!model?.get?.("running"),
    spec: (name) => specs.get(name) ?? null,
    output: (toolCallId) => outputs.get(toolCallId) ?? null,
    setOutput,
    /** A number that changes whenever any `propsOf` result may have. */
    get propsRevision() {
      return propsRevision;
    },
    /** The kernel's effective props of a component an update changed, else null. */
    propsOf(componentId) {
      const props = componentId ? componentProps[componentId] : undefined;
      return props && typeof props === "object" ? props : null;
    },
    register(toolCallId, slot) {
      slots.set(toolCallId, slot);
    },
    unregister(toolCallId) {
      slots.delete(toolCallId);
    },
    /**
     * Ask the kernel for rows of the kernel data a call's table shows.
     * @returns {Promise<{offset: number, total_rows: number, columns: string[], rows: any[]}>}
     */
    fetchRows(toolCallId, { offset = 0, limit = 100, sort = null, descending = false, filter = "" } = {}) {
      const request = nextRequest++;
      return new Promise((resolve, reject) => {
        const { maxWindow, maxFilter } = readLimits(model?.get?.("limits"));
        if (filter.length > maxFilter) {
          reject(new Error(`the filter is longer than ${maxFilter.toLocaleString()} characters`));
          return;
        }
        windows.set(request, { resolve, reject });
        send(toKernel.dataWindow(toolCallId, request, offset, Math.min(limit, maxWindow), sort, descending, filter));
      });
    },
    /** A pressed A2UI button: what the user entered goes with it (no debounce to wait for). */
    sendA2UIAction(toolCallId, surfaceId, componentId, data) {
      clearTimer(timers.get(toolCallId));
      timers.delete(toolCallId);
      send(toKernel.a2uiAction(toolCallId, surfaceId, componentId, data));
    },
    /** Send a component's state to the kernel, debounced per call. */
    sendComponentState(toolCallId, state, { flush = false } = {}) {
      clearTimer(timers.get(toolCallId));
      const go = () => {
        timers.delete(toolCallId);
        send(toKernel.componentState(toolCallId, state));
      };
      if (flush) go();
      else timers.set(toolCallId, setTimer(go, STATE_DEBOUNCE_MS));
    },
    destroy() {
      model?.off?.("msg:custom", onCustom);
      model?.off?.("change:component_specs", onSpecs);
      model?.off?.("change:component_outputs", readOutputs);
      model?.off?.("change:component_props", readProps);
      for (const t of timers.values()) clearTimer(t);
      for (const waiting of windows.values()) waiting.reject(new Error("the chat view closed"));
      windows.clear();
      for (const slot of slots.values()) slot.destroy();
      slots.clear();
    },
  };
}

const MAX_NAME = 60;

/**
 * A component's name as words a reader says: "Table" -> "table",
 * "SalesChart" -> "sales chart", "KPICard" -> "KPI card", "my_plot" -> "my plot".
 * @param {any} name
 */
export function readableName(name) {
  const words = String(name ?? "")
    .slice(0, MAX_NAME)
    .replace(/[_\-\s]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([0-9])([A-Z][a-z])/g, "$1 $2") // "A2UI" stays one acronym
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .trim()
    .split(" ")
    .filter(Boolean)
    // an acronym keeps its capitals
    .map((w) => (/^[A-Z0-9]+$/.test(w) && /[A-Z].*[A-Z]/.test(w) ? w : w.toLowerCase()));
  return words.length ? words.join(" ") : "component";
}

/** Whether `props` give the component anything to show yet. */
const hasProps = (props) => !!props && typeof props === "object" && Object.keys(props).length > 0;

/** The skeleton shown until a call's props begin: it names the component and says it is busy. */
function createPlaceholder() {
  const text = h("span.gu-component-placeholder-text");
  const bars = h(
    "span.gu-component-skeleton",
    { "aria-hidden": "true" },
    h("span.gu-skeleton-bar"),
    h("span.gu-skeleton-bar"),
    h("span.gu-skeleton-bar"),
  );
  const el = h("div.gu-component-placeholder", { role: "status", "aria-busy": "true" }, text, bars);
  return {
    el,
    /** @param {any} name */
    setName(name) {
      const words = `Preparing the ${readableName(name)}…`;
      if (text.textContent !== words) text.textContent = words;
    },
  };
}

function errorLine(part) {
  if (!part.has_result || !part.is_error) return "";
  const r = part.result;
  const text = typeof r === "string" ? r : (r?.error ?? JSON.stringify(r));
  return `Not shown: ${text}`;
}

/**
 * A component's place inside its tool-call card.
 * @param {ReturnType<typeof createComponentContext>} cctx
 */
export function createComponentSlot(cctx) {
  const error = h("div.gu-component-error.gu-component-invalid", { role: "alert", hidden: true });
  const mountEl = h("div.gu-component-mount");
  const el = h("div.gu-component", {}, error, mountEl);
  /** @type {ReturnType<typeof createPlaceholder> | null} made on first need */
  let placeholder = null;
  let host = null;
  let mountedSpec = null;
  let last = null;
  let registered = null;
  /** @type {any[] | null} what the last update to the component came from */
  let seen = null;

  const slot = {
    el,
    componentId: /** @type {string | null} */ (null),
    /**
     * @param {any} part @param {any} args the call's parsed (partial) args
     * @param {number} [revision] changes whenever `args` may have (tool-card/streamed-args.js):
     *   while the args stream, the component re-renders when it moves, without
     *   comparing the (growing) props
     * @param {{streaming?: boolean}} [opts] `streaming: false`: the call's message
     *   no longer streams (then no placeholder waits for arguments that cannot come)
     */
    update(part, args, revision, opts = {}) {
      last = { part, args, revision, opts };
      const name = shownComponent(part);
      const id = part.tool_call_id;
      if (registered !== id) {
        if (registered) cctx.unregister(registered);
        cctx.register(id, slot);
        registered = id;
      }
      slot.componentId = componentIdOf(part);
      const spec = cctx.spec(name);
      const out = cctx.output(id);
      const props = { ...(cctx.propsOf(slot.componentId) ?? args), ...(out?.props ?? {}) };
      // Arguments that read as one whole JSON value are all there: shown settled
      // at once, not as a stream for the frame before the kernel says so.
      const status = propsStatus(args, !!part.args_complete || argsWhole(part));
      const state = part.component_state ?? {};
      const invalid = errorLine(part);
      error.textContent = invalid;
      error.hidden = !invalid;
      el.dataset.component = String(name ?? "");
      el.dataset.componentId = slot.componentId ?? "";
      const empty = !hasProps(props) && !out;
      // The call is named but its props have not begun: say what is coming.
      const preparing = empty && opts.streaming !== false && !part.args_complete && !part.has_result;
      el.dataset.status = invalid ? "error" : preparing ? "preparing" : status.streaming ? "streaming" : "complete";
      if (preparing) {
        placeholder ??= createPlaceholder();
        placeholder.setName(name);
        if (placeholder.el.parentNode !== el) el.insertBefore(placeholder.el, mountEl);
        show(mountEl, false);
        return;
      }
      placeholder?.el.remove();
      show(mountEl, true);
      if (empty && invalid) {
        // Nothing to show but why not: the error alone (no empty component under it).
        host?.destroy();
        host = null;
        mountedSpec = null;
        return;
      }
      if (host && mountedSpec !== spec) {
        host.destroy();
        host = null;
      }
      if (!host) {
        mountedSpec = spec;
        host = mountComponent({
          el: mountEl,
          spec: spec ?? { name, kind: "missing" },
          props,
          status,
          state,
          output: out,
          resources: cctx.resources,
          setState: (value, opts) => cctx.sendComponentState(id, value, opts),
          fetchRows: (opts) => cctx.fetchRows(id, opts),
          sendMessage: cctx.sendText,
          sendAction: (surfaceId, componentId, data) => cctx.sendA2UIAction(id, surfaceId, componentId, data),
          isRunning: cctx.isRunning,
        });
        seen = null;
      } else {
        // The same part at the same parse, updates and output: nothing the
        // component sees moved (a later part of the message streams).
        const inputs = [part, revision, cctx.propsRevision, out];
        if (revision !== undefined && seen?.every((v, i) => v === inputs[i])) return;
        seen = inputs;
        // While streaming, what the component sees changes with these alone.
        const key =
          status.streaming && revision !== undefined
            ? `${id}|${revision}|${cctx.propsRevision}|${out ? `${out.seq}|${out.final}|${out.error}` : ""}`
            : undefined;
        host.update(props, status, { output: out, key });
      }
    },
    refresh() {
      if (last) slot.update(last.part, last.args, last.revision, last.opts);
    },
    destroy() {
      if (registered) cctx.unregister(registered);
      host?.destroy();
      host = null;
    },
  };
  return slot;
}

/**
 * The tool-call card's hook: hosts a component slot in the card of a call
 * that shows a component (inserted before `before`). An update call needs
 * nothing here: the kernel sends its target's new props (`component_props`).
 * @param {ReturnType<typeof createComponentContext> | undefined} cctx
 * @param {HTMLElement} card @param {HTMLElement} before
 */
export function componentHook(cctx, card, before) {
  let slot = null;
  return {
    /**
     * @param {any} part @param {any} args @param {number} [revision]
     * @param {{streaming?: boolean}} [opts] see the slot's `update`
     */
    update(part, args, revision, opts) {
      if (!cctx) return;
      if (shownComponent(part)) {
        if (!slot) {
          slot = createComponentSlot(cctx);
          card.classList.add("gu-tool-call-component");
          card.insertBefore(slot.el, before);
        }
        slot.update(part, args, revision, opts);
      }
    },
  };
}
