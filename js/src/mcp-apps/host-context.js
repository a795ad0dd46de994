// What an MCP app is told about its host (`hostContext` in the answer to
// `ui/initialize`): the theme and the spec's CSS variables, read from
// JupyterLab's theme variables where the chat sits, the display mode, the
// size it may take, the locale and time zone.

import { DISPLAY_MODES } from "./display-mode.js";

/** Spec variable -> the JupyterLab theme variables that give it (the first one set wins). */
const FROM_JUPYTER = {
  "--color-background-primary": ["--jp-layout-color0", "--jp-layout-color1"],
  "--color-background-secondary": ["--jp-layout-color1"],
  "--color-background-tertiary": ["--jp-layout-color2"],
  "--color-background-inverse": ["--jp-inverse-layout-color0"],
  "--color-background-info": ["--jp-info-color3"],
  "--color-background-danger": ["--jp-error-color3"],
  "--color-background-success": ["--jp-success-color3"],
  "--color-background-warning": ["--jp-warn-color3"],
  "--color-background-disabled": ["--jp-layout-color3"],
  "--color-text-primary": ["--jp-ui-font-color0", "--jp-content-font-color1"],
  "--color-text-secondary": ["--jp-ui-font-color1"],
  "--color-text-tertiary": ["--jp-ui-font-color2"],
  "--color-text-inverse": ["--jp-ui-inverse-font-color0"],
  "--color-text-info": ["--jp-info-color0"],
  "--color-text-danger": ["--jp-error-color0"],
  "--color-text-success": ["--jp-success-color0"],
  "--color-text-warning": ["--jp-warn-color0"],
  "--color-text-disabled": ["--jp-ui-font-color3"],
  "--color-border-primary": ["--jp-border-color0"],
  "--color-border-secondary": ["--jp-border-color1"],
  "--color-border-tertiary": ["--jp-border-color2"],
  "--color-border-info": ["--jp-info-color1"],
  "--color-border-danger": ["--jp-error-color1"],
  "--color-border-success": ["--jp-success-color1"],
  "--color-border-warning": ["--jp-warn-color1"],
  "--color-ring-primary": ["--jp-brand-color1"],
  "--font-sans": ["--jp-ui-font-family"],
  "--font-mono": ["--jp-code-font-family"],
  "--font-text-sm-size": ["--jp-ui-font-size1"],
  "--font-text-md-size": ["--jp-content-font-size1"],
  "--border-radius-sm": ["--jp-border-radius"],
  "--border-width-regular": ["--jp-border-width"],
};

/** A CSS value an app may read: no url(), no expression, nothing that ends a rule. */
const SAFE_VALUE = /^[^;{}<>\\]*$/;

/**
 * The spec's variables from the theme around `el` (only those JupyterLab sets).
 * @param {Element} el
 */
export function styleVariables(el) {
  const style = getComputedStyle(el);
  const out = {};
  for (const [name, sources] of Object.entries(FROM_JUPYTER)) {
    for (const source of sources) {
      const value = style.getPropertyValue(source).trim();
      if (value && SAFE_VALUE.test(value) && !/url\(/i.test(value)) {
        out[name] = value;
        break;
      }
    }
  }
  return out;
}

/** "dark" when JupyterLab's theme (or, outside it, the page's colours) is dark. */
export function themeOf(el) {
  const body = el.ownerDocument?.body;
  const light = body?.dataset?.jpThemeLight;
  if (light === "false") return "dark";
  if (light === "true") return "light";
  const background = getComputedStyle(el).getPropertyValue("--jp-layout-color0").trim();
  if (background) return luminance(background) < 0.5 ? "dark" : "light";
  return globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function luminance(color) {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (!hex) return 1;
  const n = parseInt(hex[1], 16);
  return (0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255)) / 255;
}

/**
 * The tool as its server listed it (the kernel's `tool`), else the little the call says.
 * @param {any} part @param {any} listed
 */
function toolOf(part, listed) {
  if (listed && typeof listed === "object" && typeof listed.name === "string") return listed;
  return { name: part.tool_name, inputSchema: { type: "object" } };
}

/**
 * The spec's `toolInfo`: the tool as listed, and `id`, the JSON-RPC id its
 * `tools/call` went under, once the kernel has sent it (`request_id` of the
 * call's app; never the chat's call id).
 * @param {any} part the tool-call part @param {any} [listed] the tool's definition
 * @param {any} [requestId] the kernel's `request_id`
 */
export function toolInfo(part, listed = null, requestId = null) {
  const tool = toolOf(part, listed);
  const known = typeof requestId === "string" || (typeof requestId === "number" && Number.isFinite(requestId));
  return known ? { id: requestId, tool } : { tool };
}

/**
 * The host context for the app of `part` shown in `el`.
 * @param {Element} el @param {any} part the tool-call part
 * @param {{mode: string, dimensions: Record<string, number>}} display how it is shown now
 * @param {any} [listed] the tool's definition, as its server listed it
 * @param {any} [requestId] the JSON-RPC id of its `tools/call`, when known
 */
export function hostContext(el, part, display, listed = null, requestId = null) {
  return {
    toolInfo: toolInfo(part, listed, requestId),
    theme: themeOf(el),
    styles: { variables: styleVariables(el) },
    displayMode: display.mode,
    availableDisplayModes: [...DISPLAY_MODES],
    containerDimensions: display.dimensions,
    locale: globalThis.navigator?.language || "en-US",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    userAgent: "ipygenui",
    platform: "web",
    deviceCapabilities: { touch: globalThis.matchMedia?.("(pointer: coarse)").matches ?? false, hover: true },
  };
}
