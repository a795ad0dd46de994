// A tool server asking the user to sign in (an MCP server's OAuth), from the
// chat's `sign_ins` trait: one card each, above the composer.
// - The whole authorization URL is shown, its invisible and bidi characters
//   flagged as on the approval card, and a host in another script (an IDN,
//   shown as the browser reads it: xn--...) named as a possible look-alike.
// - "Open sign-in page" opens it in a new tab on that click only (noopener).
// - A browser on the kernel's machine comes back to the kernel's loopback
//   listener by itself; from elsewhere, the user pastes the address the
//   browser landed on (the kernel checks it: this sign-in's redirect, its
//   state). Cancel ends the sign-in.
// The card never holds a code or a token: what the user pastes goes to the
// kernel and the field is cleared.

import { h, show } from "./common/dom.js";
import { toKernel } from "./protocol.js";
import { findInvisible, invisibleWarning, markInvisibleIn } from "./tool-card/invisible-chars.js";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether this page runs on the kernel's machine (as a notebook on localhost does). */
export function onThisMachine(hostname = globalThis.location?.hostname ?? "") {
  return LOOPBACK_HOSTS.has(hostname);
}

const text = (v) => (typeof v === "string" ? v : "");

/** The cards of the `sign_ins` trait (anything malformed dropped). */
export function readSignIns(value) {
  if (!Array.isArray(value)) return [];
  return value
    .filter((c) => c && typeof c === "object" && text(c.id) && text(c.url))
    .map((c) => ({
      id: c.id,
      server: text(c.server) || "A tool server",
      url: c.url,
      redirect_uri: text(c.redirect_uri),
      listening: c.listening === true,
      error: text(c.error),
    }));
}

/** The URL's host as the browser will read it, and whether it is an http(s) address. */
export function signInHost(url) {
  try {
    const parsed = new URL(url);
    const web = parsed.protocol === "https:" || parsed.protocol === "http:";
    return { host: parsed.host, web, foreign: parsed.hostname.split(".").some((l) => l.startsWith("xn--")) };
  } catch {
    return { host: "", web: false, foreign: false };
  }
}

function card(signIn, send, sameMachine) {
  const { host, web, foreign } = signInHost(signIn.url);
  const found = findInvisible(signIn.url);
  const notes = ["The address may go somewhere other than it reads: check it before you open it."];
  const open = h(
    "button.gu-approve",
    {
      type: "button",
      disabled: !web,
      title: web ? "Opens in a new tab" : "Not a web address: it cannot be opened",
      onclick: () => {
        if (web) window.open(signIn.url, "_blank", "noopener,noreferrer");
      },
    },
    "Open sign-in page",
  );
  const cancel = h("button.gu-reject", { type: "button", onclick: () => send(toKernel.signIn(signIn.id, "cancel")) }, "Cancel");
  const field = h("input.gu-sign-in-paste", {
    type: "url",
    placeholder: signIn.redirect_uri ? `${signIn.redirect_uri}?code=…` : "http://127.0.0.1:…/callback?code=…",
    "aria-label": "The address the browser landed on after signing in",
    autocomplete: "off",
    spellcheck: "false",
  });
  const paste = () => {
    const value = field.value.trim();
    if (!value) return;
    field.value = ""; // the code goes to the kernel, not kept in the page
    send(toKernel.signIn(signIn.id, "paste", value));
  };
  field.addEventListener("keydown", (e) => {
    e.stopPropagation(); // the notebook's shortcuts stay out of the field
    if (e.key === "Enter") paste();
  });
  const error = h("div.gu-sign-in-error", { role: "alert", hidden: true });
  const waiting = signIn.listening && sameMachine;
  const pasteBox = h(
    "details.gu-sign-in-elsewhere",
    { open: !waiting },
    h("summary", {
      text: waiting ? "Browser on another machine? Paste the address it landed on" : "After signing in, paste the address the browser landed on",
    }),
    h("div.gu-sign-in-paste-row", {}, field, h("button.gu-sign-in-send", { type: "button", onclick: paste }, "Finish sign-in")),
  );
  const el = h(
    "div.gu-sign-in",
    { role: "group", "aria-label": `${signIn.server} asks you to sign in` },
    h("div.gu-request-title", {}, h("span.gu-request-server", { text: signIn.server }), " asks you to sign in"),
    h("div.gu-sign-in-host", { text: host ? `The sign-in page is at ${host}:` : "The sign-in page's address:" }),
    h("code.gu-request-url", { text: signIn.url }),
    invisibleWarning(found, notes, "This address"),
    foreign
      ? h("div.gu-sign-in-foreign", {
          role: "note",
          text: `The host ${host} is written in another script: it may imitate a name you know. Check it before you sign in.`,
        })
      : false,
    h("div.gu-request-buttons", {}, open, cancel),
    waiting ? h("div.gu-sign-in-wait", { text: "After you sign in, the browser comes back to this notebook by itself." }) : false,
    pasteBox,
    error,
  );
  markInvisibleIn(el);
  return {
    el,
    /** @param {string} message why the kernel refused the last pasted address */
    setError(message) {
      error.textContent = message;
      show(error, !!message);
    },
  };
}

/**
 * The chat's sign-in cards.
 * @param {{ send: (msg: any) => void, sameMachine?: boolean }} options
 */
export function createSignInCards({ send, sameMachine = onThisMachine() }) {
  const el = h("div.gu-sign-ins", { hidden: true });
  /** @type {Map<string, {key: string, el: HTMLElement, setError: (m: string) => void}>} */
  const shown = new Map();
  return {
    el,
    /** @param {ReturnType<typeof readSignIns>} signIns */
    update(signIns) {
      const next = new Map();
      for (const signIn of signIns) {
        const key = JSON.stringify([signIn.server, signIn.url, signIn.redirect_uri, signIn.listening]);
        let item = shown.get(signIn.id);
        if (!item || item.key !== key) item = { key, ...card(signIn, send, sameMachine) };
        item.setError(signIn.error); // a refused paste: said without redrawing the card
        next.set(signIn.id, item);
      }
      const els = [...next.values()].map((item) => item.el);
      if (els.length !== el.children.length || els.some((child, i) => el.children[i] !== child)) el.replaceChildren(...els);
      shown.clear();
      for (const [id, item] of next) shown.set(id, item);
      show(el, els.length > 0);
    },
  };
}
