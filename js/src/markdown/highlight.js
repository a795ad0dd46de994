// Code highlighting: its own module (static/highlight.js), not part of the
// widget bundle. highlight.js is a quarter of the bundle and most chats never
// show code, so the browser asks the kernel for this file when a code block
// first appears (see highlighter.js); until then code shows plain.

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

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

/**
 * `text` as highlighted HTML (its characters escaped, spans added), or null
 * for a language this module does not know. The caller sanitizes it.
 * @param {string} text @param {string} language
 * @returns {string | null}
 */
export function highlight(text, language) {
  if (!hljs.getLanguage(language)) return null;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
