// Images a tool returned (an MCP server's image content arrives as
// `result.images[].src` data: URLs), shown in the call's card. Only base64
// data:image URLs pass, as for the Image component: nothing is fetched, and
// an SVG shown as an image runs no script.

import { h } from "../common/dom.js";

const SAFE = /^data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]+$/i;

/** The showable image sources of a tool result (none for anything else). */
export function resultImages(result) {
  const images = (obj) => (obj && typeof obj === "object" && Array.isArray(obj.images) ? obj.images : []);
  // `for_user.images`: content a server meant for the user only (the model never reads it)
  const list = [...images(result), ...images(result?.for_user)];
  return list.map((image) => image?.src).filter((src) => typeof src === "string" && SAFE.test(src));
}

/** `<img>` elements for `sources`, described by the tool that made them. */
export function imageElements(sources, toolName) {
  return sources.map((src, i) =>
    h("img.gu-tool-image", { src, alt: `Image ${i + 1} returned by ${toolName}`, loading: "lazy" }),
  );
}
