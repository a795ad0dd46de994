// Built-in Image. The kernel validates `src` (http, https or data:image);
// the browser checks again and sets it only once the URL finished streaming,
// so a half-written URL never triggers a request. The model chose the URL:
// an http(s) one waits behind a "Load image from …" button until the user
// allows it (common/resources.js); a data: image shows at once (nothing to fetch).

import { h } from "../common/dom.js";
import { addPlaceholders, hold, isInline } from "../common/resources.js";

const SAFE = /^(https?:\/\/\S+|data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]+)$/i;

export function isSafeSrc(src) {
  return typeof src === "string" && SAFE.test(src.trim());
}

export function render({ props, status, el, resources }) {
  const p = props ?? {};
  const figure = h("figure.gu-c-image");
  const img = h("img", { alt: String(p.alt ?? "") });
  if (typeof p.width === "number" && p.width > 0) img.width = Math.min(p.width, 4000);
  const ready = !status?.isStreaming?.("src");
  let held = false;
  if (ready && isSafeSrc(p.src)) {
    const src = p.src.trim();
    if (isInline(src) || resources?.allows(src)) img.src = src;
    else {
      hold(img, src);
      held = true;
    }
  } else if (ready && p.src) {
    figure.append(
      h("div.gu-component-error", { text: "Image not shown: its address is not http(s) or a data:image URI." }),
    );
  } else img.className = "gu-c-image-loading";
  figure.prepend(img);
  if (p.caption) figure.append(h("figcaption", { text: String(p.caption) }));
  if (held) addPlaceholders(figure);
  el.append(figure);
}
