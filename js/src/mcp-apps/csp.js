// The Content-Security-Policy of an MCP app, from its resource's `_meta.ui.csp`
// (the kernel kept only plain origins an app may name; checked again here,
// since a thread file can be edited, and against this page's own origin). No declared domains: the spec's restrictive default. Nothing
// is loosened: only declared origins are added, and `object-src`, `frame-src`
// and `form-action` stay closed unless the spec's fields open them.

const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;
const KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];

// Which origins an app may name: the kernel's rule (src/ipygenui/mcp/_app_origins.py,
// whose test checks this list is its own), and this page's own origin.
const PUBLIC_SUFFIXES = new Set([
  "ac.uk", "co.uk", "gov.uk", "ltd.uk", "me.uk", "net.uk", "nhs.uk", "org.uk",
  "plc.uk", "sch.uk", "com.au", "edu.au", "gov.au", "net.au", "org.au", "co.nz",
  "net.nz", "org.nz", "ac.jp", "co.jp", "go.jp", "ne.jp", "or.jp", "co.kr",
  "or.kr", "com.br", "net.br", "org.br", "com.cn", "net.cn", "org.cn", "gov.cn",
  "co.in", "net.in", "org.in", "co.za", "org.za", "com.mx", "com.ar", "com.tr",
  "com.sg", "com.hk", "com.tw", "co.il", "com.pl", "co.id", "com.my", "com.ph",
  "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "vercel.app",
  "netlify.app", "pages.dev", "workers.dev", "appspot.com", "web.app",
  "firebaseapp.com", "azurewebsites.net", "cloudfront.net", "amazonaws.com",
  "blogspot.com", "ngrok.io", "ngrok-free.app", "glitch.me", "repl.co",
]);
const PRIVATE_NAMES = ["localhost", "local", "internal", "home.arpa", "lan"];
const NUMERIC = /^(0[xX][0-9A-Fa-f]*|\d+)$/;
/** @type {[number, number, string][]} (first address, prefix length, what it is) */
const BLOCKS = [
  [0x7f000000, 8, "a loopback address"],
  [0x00000000, 8, "an unspecified address"],
  [0x0a000000, 8, "a private address"],
  [0xac100000, 12, "a private address"],
  [0xc0a80000, 16, "a private address"],
  [0x64400000, 10, "a private address"],
  [0xa9fe0000, 16, "a link-local address"],
  [0xe0000000, 3, "a multicast or reserved address"],
];

/** `host` as the URL parser reads an IPv4 host; null for a name, -1 for no valid address. */
function ipv4(host) {
  const parts = host.split(".");
  if (!NUMERIC.test(parts[parts.length - 1])) return null;
  if (parts.length > 4 || !parts.every((p) => NUMERIC.test(p))) return -1;
  const numbers = [];
  for (const part of parts) {
    if (/^0x/i.test(part)) numbers.push(parseInt(part.slice(2) || "0", 16));
    else if (part.length > 1 && part.startsWith("0")) {
      if (!/^[0-7]+$/.test(part)) return -1;
      numbers.push(parseInt(part, 8));
    } else numbers.push(Number(part));
  }
  const last = numbers[numbers.length - 1];
  const head = numbers.slice(0, -1);
  if (head.some((n) => n > 255) || last >= 256 ** (5 - numbers.length)) return -1;
  return head.reduce((value, n, i) => value + n * 2 ** (8 * (3 - i)), last);
}

/**
 * Why an app may not name `origin` (a plain origin), or null when it may.
 * @param {string} origin @param {string} [pageOrigin] this page's (`location.origin`)
 */
export function originRefusal(origin, pageOrigin = globalThis.location?.origin ?? "") {
  const host = origin.split("://")[1].replace(/:\d{1,5}$/, "").toLowerCase();
  const wildcard = host.startsWith("*.");
  const name = wildcard ? host.slice(2) : host;
  for (const priv of PRIVATE_NAMES) {
    if (name === priv || name.endsWith(`.${priv}`)) return priv === "localhost" ? "a loopback name" : "a private network name";
  }
  const address = ipv4(name);
  if (address === -1) return "not a valid address";
  if (address !== null) {
    if (wildcard) return "a wildcard over an address";
    for (const [first, bits, what] of BLOCKS) if (Math.floor(address / 2 ** (32 - bits)) === Math.floor(first / 2 ** (32 - bits))) return what;
  } else if (wildcard && (!name.includes(".") || PUBLIC_SUFFIXES.has(name))) return "a wildcard wider than one registrable domain";
  if (pageOrigin && pageOrigin !== "null") {
    const page = new URL(pageOrigin);
    const pageHost = page.hostname.toLowerCase();
    if (wildcard ? pageHost === name || pageHost.endsWith(`.${name}`) : new URL(origin.replace(/^ws/, "http")).origin === page.origin) {
      return "this page's own origin";
    }
  }
  return null;
}

/** The declared entries under `key`: `kept` (plain origins an app may name), `dropped` (each other one, and why). */
function sortOut(csp, key, pageOrigin) {
  const list = csp && typeof csp === "object" && Array.isArray(csp[key]) ? csp[key] : [];
  const kept = [];
  const dropped = [];
  for (const d of list.slice(0, 32)) {
    const why = typeof d !== "string" || !ORIGIN.test(d) ? "not a plain origin" : originRefusal(d, pageOrigin);
    if (why) dropped.push({ key, origin: String(d).slice(0, 120), reason: why });
    else kept.push(d);
  }
  return { kept, dropped };
}

function origins(csp, key, pageOrigin) {
  return sortOut(csp, key, pageOrigin).kept;
}

/**
 * The declared domains an app may name (what a proxy and the app are told),
 * and what was dropped: the kernel's `csp_dropped` of the app, then this page's own.
 * @param {any} app `{csp?, csp_dropped?}` @param {string} [pageOrigin]
 */
export function checkedCsp(app, pageOrigin = globalThis.location?.origin ?? "") {
  /** @type {Record<string, string[]>} */
  const csp = {};
  const fromKernel = Array.isArray(app?.csp_dropped) ? app.csp_dropped.filter((d) => d && typeof d.origin === "string") : [];
  const dropped = fromKernel.slice(0, 32).map((d) => ({ key: String(d.key ?? ""), origin: d.origin.slice(0, 120), reason: String(d.reason ?? "") }));
  for (const key of KEYS) {
    const sorted = sortOut(app?.csp, key, pageOrigin);
    if (sorted.kept.length) csp[key] = sorted.kept;
    dropped.push(...sorted.dropped);
  }
  return { csp, dropped };
}

/**
 * The policy text for a `<meta http-equiv="Content-Security-Policy">`.
 * @param {any} csp `{connectDomains?, resourceDomains?, frameDomains?, baseUriDomains?}`
 */
export function appPolicy(csp, pageOrigin = globalThis.location?.origin ?? "") {
  const connect = origins(csp, "connectDomains", pageOrigin);
  const resources = origins(csp, "resourceDomains", pageOrigin);
  const frames = origins(csp, "frameDomains", pageOrigin);
  const bases = origins(csp, "baseUriDomains", pageOrigin);
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
