// Model text -> safe HTML. Everything the model writes is untrusted: marked
// renders GitHub-flavoured markdown (tables, fenced code), highlight.js colours
// code, and DOMPurify strips scripts, event handlers and javascript: URLs
// before anything reaches the DOM. Links open in a new tab.

import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";

for (const [name, lang] of Object.entries({
  bash,
  javascript,
  json,
  python,
  sql,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["js"], { languageName: "javascript" });
hljs.registerAliases(["ts"], { languageName: "typescript" });
hljs.registerAliases(["sh", "shell", "console"], { languageName: "bash" });
hljs.registerAliases(["html"], { languageName: "xml" });

export function escapeHtml(text) {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang || "").trim().split(/\s+/)[0].toLowerCase();
      let body;
      if (language && hljs.getLanguage(language)) {
        body = hljs.highlight(text, { language, ignoreIllegals: true }).value;
      } else {
        body = escapeHtml(text);
      }
      const cls = language ? ` class="hljs language-${escapeHtml(language)}"` : ' class="hljs"';
      return `<pre class="gu-code"><code${cls}>${body}</code></pre>\n`;
    },
  },
});

let purifier = null;

function getPurifier() {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
  });
  return purifier;
}

const PURIFY_CONFIG = {
  ADD_ATTR: ["target"],
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object"],
  FORBID_ATTR: ["style"],
};

/**
 * Sanitize untrusted HTML.
 * @param {string} html
 * @returns {string}
 */
export function sanitize(html) {
  return getPurifier().sanitize(html, PURIFY_CONFIG);
}

/**
 * Render untrusted markdown to sanitized HTML.
 * @param {string} text
 * @returns {string}
 */
export function renderMarkdown(text) {
  if (!text) return "";
  let html;
  try {
    html = marked.parse(text, { async: false });
  } catch {
    html = `<p>${escapeHtml(text)}</p>`;
  }
  return sanitize(html);
}
