// Loads the code highlighter (highlight.js, shipped as
// static/highlight.js) the first time a code block with a language shows.
// The widget bundle travels with every Chat's comm_open and is saved with
// the notebook; the highlighter is a quarter of it and needed by few chats,
// so the kernel sends it when a view asks. Until it arrives, and for good
// when no kernel answers (a saved notebook), code shows plain;
// `highlightCodeIn` (markdown.js) then colours the blocks already shown.

/** @typedef {{highlight: (text: string, language: string) => string | null}} Highlighter */
/** @typedef {() => Promise<Highlighter>} HighlighterLoader */

/** @type {Highlighter | null} */
let ready = null;
/** @type {Promise<Highlighter | null> | null} */
let pending = null;
/** @type {HighlighterLoader[]} one per live view that can ask its kernel */
const loaders = [];
/** Loaders that failed once: not asked again (one answer per view, not per frame). */
const failed = new WeakSet();
/** @type {Set<() => void>} */
const listeners = new Set();

/** The highlighter, or null while it is not loaded. */
export function highlighter() {
  return ready;
}

/**
 * A way to fetch the highlighter (a view asks its kernel); returns its removal.
 * @param {HighlighterLoader} load
 */
export function addHighlighterLoader(load) {
  loaders.push(load);
  return () => {
    const i = loaders.indexOf(load);
    if (i >= 0) loaders.splice(i, 1);
  };
}

/**
 * Call `fn` once the highlighter has loaded; returns the unsubscription.
 * @param {() => void} fn
 */
export function onHighlighterReady(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * Start loading the highlighter unless it is loaded or on its way; resolves
 * to it, or to null when no loader could bring it. Cheap to call per render.
 * @returns {Promise<Highlighter | null>}
 */
export function wantHighlighter() {
  if (ready) return Promise.resolve(ready);
  if (pending) return pending;
  const load = loaders.find((fn) => !failed.has(fn));
  if (!load) return Promise.resolve(null);
  pending = Promise.resolve()
    .then(load)
    .then((mod) => {
      if (typeof mod?.highlight !== "function") throw new Error("not a highlighter module");
      ready = mod;
      for (const fn of [...listeners]) fn();
      return mod;
    })
    .catch(() => {
      failed.add(load);
      return null;
    })
    .finally(() => {
      pending = null;
    });
  return pending;
}
