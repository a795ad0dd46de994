// A <div> with a class and (optional) text: the one element every built-in
// makes many of. Text goes in as text, never as markup.

export function div(className, text) {
  const el = document.createElement("div");
  el.className = className;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}
