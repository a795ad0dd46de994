// The Content-Security-Policy of an MCP app, from its resource's `_meta.ui.csp`
// (the kernel kept only plain origins; checked again here, since a thread file
// can be edited). No declared domains: the spec's restrictive default. Nothing
// is loosened: only declared origins are added, and `object-src`, `frame-src`
// and `form-action` stay closed unless the spec's fields open them.

const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;

/** The declared origins under `key` that are plain origins. */
function origins(csp, key) {
  const list = csp && typeof csp === "object" && Array.isArray(csp[key]) ? csp[key] : [];
  return list.filter((d) => typeof d === "string" && ORIGIN.test(d)).slice(0, 32);
}

/**
 * The policy text for a `<meta http-equiv="Content-Security-Policy">`.
 * @param {any} csp `{connectDomains?, resourceDomains?, frameDomains?, baseUriDomains?}`
 */
export function appPolicy(csp) {
  const connect = origins(csp, "connectDomains");
  const resources = origins(csp, "resourceDomains");
  const frames = origins(csp, "frameDomains");
  const bases = origins(csp, "baseUriDomains");
  const src = (list) => list.join(" ");
  const withRes = (base) => [base, src(resources)].filter(Boolean).join(" ");
  return [
    "default-src 'none'",
    withRes("script-src 'self' 'unsafe-inline'"),
    withRes("style-src 'self' 'unsafe-inline'"),
    withRes("img-src 'self' data:"),
    withRes("media-src 'self' data:"),
    resources.length ? `font-src ${src(resources)}` : "",
    connect.length ? `connect-src ${src(connect)}` : "connect-src 'none'",
    frames.length ? `frame-src ${src(frames)}` : "frame-src 'none'",
    bases.length ? `base-uri ${src(bases)}` : "base-uri 'self'",
    "object-src 'none'",
    "form-action 'none'",
  ]
    .filter(Boolean)
    .join("; ");
}

const escapeAttr = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/**
 * The app's HTML with the policy as the first thing the parser reads: a
 * `<meta>` placed before any of the app's own markup, so no script of the app
 * runs before it applies (a policy cannot be loosened by a later `<meta>`:
 * several policies all apply).
 * @param {string} html @param {any} csp
 */
export function withPolicy(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(appPolicy(csp))}">`;
  return `<!DOCTYPE html><html><head>${meta}${html}`;
}
