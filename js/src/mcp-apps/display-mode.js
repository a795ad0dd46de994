// An app's display mode (the spec's McpUiDisplayMode): `inline` in its card,
// `fullscreen` over the whole window, `pip` a small panel floating in a corner
// while the notebook scrolls. The card's element never moves in the page
// (moving an iframe's node reloads its document): it is restyled in place and
// shown in the browser's top layer (a manual popover), so neither JupyterLab's
// panels nor a notebook cell's CSS containment (which would pin a
// `position: fixed` box inside the cell) keep it from covering the window.
// Only one app is full screen at a time; Esc (while the focus is outside the
// app's frame, as it is when full screen opens) returns it inline.

export const DISPLAY_MODES = ["inline", "fullscreen", "pip"];
export const PIP_MAX_HEIGHT = 320;

/** The display mode now full screen (another app asking for it sends this one inline). */
let fullscreenNow = null;

/**
 * @param {HTMLElement} el the app's card
 * @param {{onChange: (mode: string, tell: boolean) => void, focusOnFullscreen: () => HTMLElement | null}} opts
 *   `onChange`: the mode changed (or the window resized around a floating one); `tell`: the app hears it
 */
export function createDisplayMode(el, { onChange, focusOnFullscreen }) {
  let mode = "inline";

  const onKey = (event) => {
    if (event.key !== "Escape" || mode !== "fullscreen") return;
    event.preventDefault();
    event.stopPropagation(); // JupyterLab's own Esc (command mode) stays out of it
    set("inline");
  };
  const onResize = () => onChange(mode, true);

  function place(next) {
    if (el.hasAttribute("popover")) {
      try {
        el.hidePopover();
      } catch {
        // already hidden (the card left the page)
      }
      el.removeAttribute("popover");
    }
    el.dataset.displayMode = next;
    if (next !== "inline" && typeof el.showPopover === "function" && el.isConnected) {
      el.setAttribute("popover", "manual");
      el.showPopover();
    }
  }

  /**
   * Show the app in `next`; the mode actually set comes back (the same one for a mode not known).
   * @param {string} next @param {{quiet?: boolean}} [opts] quiet: the app is not told (it is going)
   */
  function set(next, { quiet = false } = {}) {
    if (!DISPLAY_MODES.includes(next) || next === mode) return mode;
    if (next === "fullscreen" && fullscreenNow && fullscreenNow !== handle) fullscreenNow.set("inline");
    if (mode === "fullscreen") {
      if (fullscreenNow === handle) fullscreenNow = null;
      window.removeEventListener("keydown", onKey, true);
    }
    place(next);
    mode = next;
    if (next === "inline") window.removeEventListener("resize", onResize);
    else window.addEventListener("resize", onResize);
    if (next === "fullscreen") {
      fullscreenNow = handle;
      // before JupyterLab's keyboard shortcuts, which listen on the document
      window.addEventListener("keydown", onKey, true);
    }
    onChange(mode, !quiet);
    // out of the app's frame, so that Esc reaches the host (once the card shows its button)
    if (next === "fullscreen") focusOnFullscreen()?.focus();
    return mode;
  }

  const handle = {
    get mode() {
      return mode;
    },
    set,
    /** Back inline without telling the app (it is being torn down). */
    reset: () => set("inline", { quiet: true }),
  };
  return handle;
}

/**
 * The spec's `containerDimensions` of an app shown in `mode`: inline and pip a
 * width and the height it may grow to, full screen the frame's fixed size.
 * @param {Element} card @param {Element} frameBox where the iframe sits
 * @param {string} mode @param {number} inlineMaxHeight
 */
export function containerDimensions(card, frameBox, mode, inlineMaxHeight) {
  const width = Math.round(card.getBoundingClientRect().width) || undefined;
  if (mode === "fullscreen") {
    const box = frameBox.getBoundingClientRect();
    const height = Math.round(box.height) || Math.round(globalThis.innerHeight ?? 0) || undefined;
    return { ...(width ? { width } : {}), ...(height ? { height } : {}) };
  }
  return { ...(width ? { width } : {}), maxHeight: mode === "pip" ? PIP_MAX_HEIGHT : inlineMaxHeight };
}

/**
 * The user's click (or key) is recent: activation in the app's frame counts,
 * as the browser passes it to the page. A browser that cannot tell lets it through.
 */
export function userJustActed() {
  const activation = globalThis.navigator?.userActivation;
  return activation ? activation.isActive : true;
}
