// Puts the message views in thread order, in chunks of CHUNK_SIZE: when a
// streamed frame grows the last message, the browser lays out its chunk again
// and reuses the layout of the other chunks whole, instead of visiting every
// message. Appending a message moves no other.

import { h } from "../common/dom.js";

const CHUNK_SIZE = 20;

/**
 * @param {HTMLElement} el the thread
 * @param {{observe: (node: Element) => void, unobserve: (node: Element) => void}} growth
 *   told of each chunk (content grows without a render)
 */
export function createChunkedList(el, growth) {
  /** @type {HTMLElement[]} the chunks in `el`, in order */
  const chunks = [];
  return {
    /**
     * Place `views` (by message id) in the order of `ids`.
     * @param {string[]} ids @param {Map<string, {el: HTMLElement}>} views
     */
    arrange(ids, views) {
      const count = Math.ceil(ids.length / CHUNK_SIZE);
      for (let c = 0; c < count; c++) {
        if (!chunks[c]) {
          const chunk = h("div.gu-chunk");
          growth.observe(chunk);
          chunks.push(chunk);
        }
        const chunk = chunks[c];
        const wantedChunk = c === 0 ? el.firstChild : chunks[c - 1].nextSibling;
        if (wantedChunk !== chunk) el.insertBefore(chunk, wantedChunk);
        let previous = null;
        const end = Math.min(ids.length, (c + 1) * CHUNK_SIZE);
        for (let i = c * CHUNK_SIZE; i < end; i++) {
          const view = views.get(ids[i]);
          if (!view) continue; // every visible message got its view before
          const wanted = previous ? previous.nextSibling : chunk.firstChild;
          if (wanted !== view.el) chunk.insertBefore(view.el, wanted);
          previous = view.el;
        }
      }
      while (chunks.length > count) {
        const chunk = chunks.pop();
        if (chunk) growth.unobserve(chunk);
        chunk?.remove();
      }
    },
  };
}
