// Built-in Markdown: the model's text, sanitized like every message.

import { h } from "../common/dom.js";
import { renderMarkdown } from "../markdown/markdown.js";

export function render({ props, el, resources }) {
  el.append(h("div.gu-c-markdown.gu-text-like"));
  update({ props, el, resources });
}

export function update({ props, el, resources }) {
  const box = el.querySelector(".gu-c-markdown");
  const text = typeof props?.text === "string" ? props.text : "";
  if (box && box.dataset.source !== text) {
    box.dataset.source = text;
    box.innerHTML = renderMarkdown(text, { resources });
  }
}
