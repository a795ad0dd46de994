// Built-in Image. The kernel validates `src` (http, https or data:image);
// the browser checks again and sets it only once the URL finished streaming,
// so a half-written URL never triggers a request.

const SAFE = /^(https?:\/\/\S+|data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]+)$/i;

export function isSafeSrc(src) {
  return typeof src === "string" && SAFE.test(src.trim());
}

export function render({ props, status, el }) {
  const p = props ?? {};
  const figure = document.createElement("figure");
  figure.className = "gu-c-image";
  const img = document.createElement("img");
  img.alt = String(p.alt ?? "");
  if (typeof p.width === "number" && p.width > 0) img.width = Math.min(p.width, 4000);
  const ready = !status?.isStreaming?.("src");
  if (ready && isSafeSrc(p.src)) img.src = p.src.trim();
  else if (ready && p.src) {
    const bad = document.createElement("div");
    bad.className = "gu-component-error";
    bad.textContent = "Image not shown: its address is not http(s) or a data:image URI.";
    figure.append(bad);
  } else img.className = "gu-c-image-loading";
  figure.prepend(img);
  if (p.caption) {
    const caption = document.createElement("figcaption");
    caption.textContent = String(p.caption);
    figure.append(caption);
  }
  el.append(figure);
}
