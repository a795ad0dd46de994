// A Python-rendered component (the kernel's components/python_component.py):
// the MIME bundle the kernel made from the function's return value. PNG and
// SVG become images (an <img> runs no script), HTML and markdown are
// sanitized like model text.

import { h } from "../common/dom.js";
import { renderMarkdown, sanitize } from "../markdown/markdown.js";

function utf8Base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The element showing a MIME bundle (richest type first), or null. Images
 * the kernel rendered (PNG, JPEG, SVG) are data: URLs and show directly;
 * HTML and markdown name URLs the props (model output) may have chosen, so
 * theirs wait for the user like a message's.
 */
export function bundleElement(bundle, resources) {
  if (!bundle || typeof bundle !== "object") return null;
  const png = bundle["image/png"];
  const jpeg = bundle["image/jpeg"];
  const svg = bundle["image/svg+xml"];
  if (typeof png === "string" || typeof jpeg === "string" || typeof svg === "string") {
    const img = h("img.gu-c-output-image");
    if (typeof png === "string") img.src = `data:image/png;base64,${png}`;
    else if (typeof jpeg === "string") img.src = `data:image/jpeg;base64,${jpeg}`;
    else img.src = `data:image/svg+xml;base64,${utf8Base64(svg)}`;
    img.alt = typeof bundle["text/plain"] === "string" ? bundle["text/plain"] : "output";
    // a default-styled figure on a transparent background: recoloured in a dark theme
    if (bundle["application/vnd.ipygenui.themed-figure"] === true) img.classList.add("gu-c-themed-figure");
    return img;
  }
  if (typeof bundle["text/html"] === "string") {
    const div = h("div.gu-c-output-html");
    div.innerHTML = sanitize(bundle["text/html"], { resources });
    return div;
  }
  if (typeof bundle["text/markdown"] === "string") {
    const div = h("div.gu-c-output-markdown");
    div.innerHTML = renderMarkdown(bundle["text/markdown"], { resources });
    return div;
  }
  if (typeof bundle["text/plain"] === "string") {
    return h("pre.gu-c-output-text", { text: bundle["text/plain"] });
  }
  return null;
}

export function render({ output, el, resources }) {
  update({ output, el, resources });
}

export function update({ output, el, resources }) {
  if (!output) {
    if (!el.firstChild) el.append(h("div.gu-c-output-pending", { text: "Rendering…" }));
    return;
  }
  if (el.dataset.seq === String(output.seq) && el.dataset.final === String(!!output.final)) return;
  el.dataset.seq = String(output.seq);
  el.dataset.final = String(!!output.final);
  if (output.error) {
    el.replaceChildren(h("div.gu-component-error", { role: "alert", text: output.error }));
    return;
  }
  const shown = bundleElement(output.bundle, resources);
  if (shown) el.replaceChildren(shown);
}
