// Keeps a thread that scrolls (the chat has a greatest height) on its newest content
// while the user has not scrolled up, also when content grows without a
// render (a component mounting, an image loading); "Jump to latest" shows
// while a reply streams and the user scrolled away.

import { show } from "../common/dom.js";

const FOLLOW_SLACK_PX = 48;

/** @param {HTMLElement} el the thread @param {HTMLElement} jump its "Jump to latest" button */
export function createScrollFollow(el, jump) {
  let follow = true;
  let streaming = false;
  let fixedHeight = "";
  /** The height the content had at the last scroll event or stick. */
  let stuckHeight = 0;
  const atBottom = () => el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
  const stick = () => {
    if (!fixedHeight || !follow) return;
    el.scrollTop = el.scrollHeight;
    stuckHeight = el.scrollHeight;
  };
  el.addEventListener("scroll", () => {
    // Content that grew since the last stick is not the user scrolling up.
    if (fixedHeight && el.scrollHeight !== stuckHeight && !atBottom() && follow) {
      stick();
      return;
    }
    follow = atBottom();
    show(jump, streaming && !follow);
  });
  const resizes = typeof ResizeObserver === "function" ? new ResizeObserver(() => stick()) : null;

  return {
    /** Watch a block of the thread for growth. @param {Element} node */
    observe: (node) => resizes?.observe(node),
    /** @param {Element} node */
    unobserve: (node) => resizes?.unobserve(node),
    /** Back to the newest content, following it again. */
    toLatest() {
      follow = true;
      el.scrollTop = el.scrollHeight;
      stuckHeight = el.scrollHeight;
      show(jump, false);
    },
    /**
     * The chat's greatest height (any CSS length: the chat's box takes it and
     * the thread scrolls in what is left under the header, above the
     * composer), or "" to let the thread grow with the page.
     * @param {string} height
     */
    setHeight(height) {
      if (height === fixedHeight) return;
      fixedHeight = height;
      el.classList.toggle("gu-thread-fixed", !!height);
      stick();
    },
    /** After a render: follow the new content; the jump button while a reply streams. @param {boolean} running */
    rendered(running) {
      streaming = running;
      stick();
      show(jump, streaming && !follow);
    },
  };
}
