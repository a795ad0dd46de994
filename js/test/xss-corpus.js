// Payloads a model might write (or be tricked into writing): the XSS corpus
// the markdown tests run through both renderers.
export const XSS = [
  "<script>window.__pwned = 1</script>",
  '<img src=x onerror="window.__pwned = 1">',
  "[click](javascript:window.__pwned=1)",
  '<a href="javascript:window.__pwned=1">x</a>',
  '<svg onload="window.__pwned = 1"><circle r="1"/></svg>',
  '<iframe src="javascript:window.__pwned=1"></iframe>',
  '<div style="background:url(javascript:window.__pwned=1)" onmouseover="window.__pwned=1">x</div>',
  '<details open ontoggle="window.__pwned=1">x</details>',
  "![x](javascript:window.__pwned=1)",
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=1">',
  '<form action="javascript:window.__pwned=1"><button>go</button></form>',
  "```html\n<script>window.__pwned = 1</script>\n```",
];
