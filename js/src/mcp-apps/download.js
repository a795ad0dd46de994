// `ui/download-file`: an app asks the host to save files it holds (its frame
// cannot: no `allow-downloads`, no popups). The host shows each file's name,
// size and type in the card, invisible and bidi characters of the name
// flagged as on the approval card, and saves them only on the user's click
// (a Blob URL and an `<a download>`). Only embedded contents download: a
// `resource_link` would have this page fetch a URL the app chose.

import { h } from "../common/dom.js";
import { findInvisible, invisibleWarning, markInvisibleIn } from "../tool-card/invisible-chars.js";

export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
const MAX_FILES = 8;
const MIME = /^[\w.+-]+\/[\w.+-]+$/;

const refused = (message) => Object.assign(new Error(message), { code: -32602 });

/** A readable size: bytes, KB or MB. @param {number} n */
export function sizeText(n) {
  if (n < 1024) return `${n} byte${n === 1 ? "" : "s"}`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** The file name a resource URI ends with (its last path segment), never a path. @param {string} uri */
export function fileNameOf(uri) {
  let last = String(uri).split(/[/\\]/).pop() ?? "";
  try {
    last = decodeURIComponent(last);
  } catch {
    // kept as written
  }
  // eslint-disable-next-line no-control-regex
  const name = last.replace(/[\u0000-\u001f\u007f/\\]/g, "").slice(0, 200);
  return name && name !== "." && name !== ".." ? name : "download";
}

/** The bytes of base64 text, or null when it is not base64. @param {string} text */
function decodeBase64(text) {
  try {
    const raw = atob(text.replace(/\s+/g, ""));
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/**
 * The files a `ui/download-file` asks to save, checked; throws (a JSON-RPC
 * error for the app) when one is not embedded, not readable, or the whole is
 * over `MAX_DOWNLOAD_BYTES`. The size is checked before anything is decoded.
 * @param {any} params
 * @returns {{name: string, type: string, size: number, blob: Blob}[]}
 */
export function downloadFiles(params) {
  const contents = Array.isArray(params?.contents) ? params.contents : [];
  if (!contents.length) throw refused("ui/download-file needs contents");
  if (contents.length > MAX_FILES) throw refused(`at most ${MAX_FILES} files download at once`);
  const cap = `the download is over ${MAX_DOWNLOAD_BYTES / (1024 * 1024)} MB`;
  let declared = 0; // checked as each arrives, before it is decoded
  const files = contents.map((item) => {
    if (item?.type !== "resource" || typeof item.resource?.uri !== "string") {
      throw refused("only embedded resources download (a resource_link is not fetched)");
    }
    const { uri, mimeType, text, blob } = item.resource;
    const type = typeof mimeType === "string" && MIME.test(mimeType) ? mimeType : "application/octet-stream";
    let data;
    if (typeof text === "string") {
      declared += text.length; // UTF-16 units: never more than its UTF-8 bytes
      if (declared > MAX_DOWNLOAD_BYTES) throw refused(cap);
      data = new TextEncoder().encode(text);
    } else if (typeof blob === "string") {
      declared += Math.floor((blob.length * 3) / 4) - 2; // base64's padding at most
      if (declared > MAX_DOWNLOAD_BYTES) throw refused(cap);
      data = decodeBase64(blob);
      if (!data) throw refused(`${fileNameOf(uri)} is not base64`);
    } else {
      throw refused("an embedded resource needs text or blob");
    }
    return { name: fileNameOf(uri), type, size: data.length, blob: new Blob([data], { type: "application/octet-stream" }) };
  });
  if (files.reduce((sum, f) => sum + f.size, 0) > MAX_DOWNLOAD_BYTES) throw refused(cap);
  return files;
}

/** What the confirmation shows: each file's name (its invisible characters marked), size and type. */
export function downloadDetails(files) {
  const found = files.flatMap((f) => findInvisible(f.name));
  const list = h(
    "ul.gu-app-download",
    {},
    ...files.map((f) =>
      h("li", {}, h("code.gu-app-download-name", { text: f.name }), h("span.gu-app-download-meta", { text: ` ${sizeText(f.size)}, ${f.type}` })),
    ),
  );
  const warning = invisibleWarning(found, ["The file may be named other than it reads: check the name before you save it."], "This file name");
  const el = h("div.gu-app-download-box", {}, list, warning);
  markInvisibleIn(list);
  return el;
}

/** Save each file through a Blob URL and an `<a download>` (on the user's click only). */
export function saveFiles(files, doc = document) {
  for (const file of files) {
    const url = URL.createObjectURL(file.blob);
    const link = h("a", { href: url, download: file.name, hidden: true });
    doc.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}
