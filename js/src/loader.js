// Each Chat's own ES module (its anywidget `_esm`, static/loader.js): the
// widget's code is not here but in one model per kernel that every Chat
// names in its `_bundle` trait (a plain @jupyter-widgets/base WidgetModel
// whose `esm` and `css` are static/widget.js and widget.css), so a
// notebook's saved widget state holds the bundle once, not once per chat.
// This module resolves that model through the widget manager, imports its
// script (once per page for the same source: anywidget evaluates each
// chat's `_esm` apart, so the cache lives on globalThis), adds its
// stylesheet, and hands the chat over to the bundle's widget.

const REF = "IPY_MODEL_";
const STYLE_ID = "ipygenui-widget-css";

/** @typedef {{initialize?: (ctx: any) => any, render?: (ctx: any) => any}} WidgetDef */

/** Bundle source -> its widget, shared by every chat on the page. */
const KEY = Symbol.for("ipygenui.bundles");
/** @type {Map<string, Promise<WidgetDef>>} */
const bundles = /** @type {any} */ (globalThis)[KEY] ?? new Map();
/** @type {any} */ (globalThis)[KEY] = bundles;

/**
 * The shared bundle model a chat names ("IPY_MODEL_<id>").
 * @param {any} model
 */
async function bundleModel(model) {
  const ref = model.get("_bundle");
  if (typeof ref !== "string" || !ref.startsWith(REF)) {
    throw new Error("this chat names no ipygenui bundle model");
  }
  const missing = new Error("the ipygenui bundle model this chat names is not in the page");
  let bundle;
  try {
    bundle = await model.widget_manager.get_model(ref.slice(REF.length));
  } catch {
    throw missing;
  }
  if (!bundle) throw missing; // older managers resolve undefined instead of throwing
  return bundle;
}

/** @param {string} css */
function addStyle(css) {
  let style = document.getElementById(STYLE_ID);
  if (!style) {
    style = document.createElement("style");
    style.id = STYLE_ID;
    document.head.append(style);
  }
  // the newest bundle's rules win (a page may show chats of two kernels)
  if (style.textContent !== css) style.textContent = css;
}

/** @param {string} esm @returns {Promise<WidgetDef>} */
async function importBundle(esm) {
  const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
  try {
    const mod = await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
    const def = mod.default;
    return typeof def === "function" ? await def() : def;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * The bundle's widget for a chat's model; throws what the chat should show.
 * @param {any} model
 * @returns {Promise<WidgetDef>}
 */
export async function widgetFor(model) {
  const bundle = await bundleModel(model);
  const error = bundle.get("error");
  if (error) throw new Error(String(error));
  const esm = bundle.get("esm");
  if (typeof esm !== "string" || !esm) throw new Error("the ipygenui bundle model has no code");
  const css = bundle.get("css");
  if (typeof css === "string") addStyle(css);
  // Keyed by the source itself, not a name a saved notebook could reuse.
  let widget = bundles.get(esm);
  if (!widget) {
    widget = importBundle(esm);
    bundles.set(esm, widget);
    widget.catch(() => bundles.delete(esm)); // a failed import is tried again
  }
  return widget;
}

/** @param {HTMLElement} el @param {unknown} error */
function showError(el, error) {
  const note = document.createElement("div");
  note.className = "gu-bundle-error";
  note.setAttribute("role", "alert");
  note.textContent =
    `This chat cannot show: ${error instanceof Error ? error.message : String(error)}. ` +
    "Run its cell again to bring the widget back.";
  el.replaceChildren(note);
}

export default {
  /** @param {any} ctx */
  async initialize(ctx) {
    let widget;
    try {
      widget = await widgetFor(ctx.model);
    } catch {
      return undefined; // its views say why (render)
    }
    return widget.initialize?.(ctx);
  },
  /** @param {any} ctx */
  async render(ctx) {
    let widget;
    try {
      widget = await widgetFor(ctx.model);
    } catch (error) {
      showError(ctx.el, error);
      return undefined;
    }
    return widget.render?.(ctx);
  },
};
