// The widget's real view code (js/src, unbundled) in jsdom, playing the
// frames of a tool call whose arguments stream: each frame is applied and
// rendered at once, and timed. Driven by bench_frontend_args.py, which makes
// the frames with the kernel's own Accumulator and FrameCoalescer.
//
// Usage: node benchmarks/bench_frontend_args.mjs <scenario.json> [<js/src folder>]
// The scenario: {chat: <traits>, children: [{id, message, rev}], frames: [...], message_id}.
// Prints JSON: {times: [ms per frame], load_ms, args_chars_closed, args_chars_shown, open_ms, table_rows}.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const [scenarioFile, srcArg] = process.argv.slice(2);
const src = path.resolve(srcArg ?? path.join(root, "js", "src"));
const require = createRequire(path.join(root, "js", "package.json"));
const { JSDOM } = require("jsdom");

const dom = new JSDOM("<!doctype html><html><body><div id='out'></div></body></html>", { url: "http://localhost/" });
const { window } = dom;
// The globals a browser module expects (as vitest's jsdom environment sets them).
for (const key of Object.getOwnPropertyNames(window)) {
  if (key in globalThis) continue;
  try {
    globalThis[key] = window[key];
  } catch {
    // a read-only global of node's: keep node's
  }
}
globalThis.window = window;
globalThis.document = window.document;
// Animation frames run by hand (renderNow below), never on their own.
globalThis.requestAnimationFrame = window.requestAnimationFrame = () => 0;

// The tests' stand-in for an anywidget model; send() records and is never read here.
const { FakeModel } = await import(pathToFileURL(path.join(root, "js", "test", "helpers", "fake-model.js")).href);

const scenario = JSON.parse(readFileSync(scenarioFile, "utf8"));
const { ChatView } = await import(pathToFileURL(path.join(src, "widget.js")).href);
const children = new Map();
for (const c of scenario.children) children.set(c.id, new FakeModel({ __id: c.id, message: c.message, rev: c.rev }));
const manager = { get_model: async (id) => children.get(id) };
const chat = new FakeModel({ _chat_key: "bench", ...scenario.chat }, manager);
const el = document.getElementById("out");

let start = performance.now();
const view = new ChatView(chat, el);
await view.start();
view.renderNow();
const loadMs = performance.now() - start;

const times = [];
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
for (const frame of scenario.frames) {
  await tick(); // what the page does between two frames (a component's module resolves)
  start = performance.now();
  chat.fire("msg:custom", frame);
  view.renderNow();
  times.push(performance.now() - start);
}
await tick();
const card = el.querySelector(`[data-message-id="${scenario.message_id}"] .gu-tool-call`);
const rows = el.querySelectorAll(`[data-message-id="${scenario.message_id}"] .gu-c-table tbody tr`).length;
const closedChars = card?.querySelector(".gu-tool-args")?.textContent.length ?? 0;
// The user opens Details: the arguments are printed then (timed apart).
const details = card?.querySelector("details.gu-tool-details");
start = performance.now();
if (details) {
  details.open = true;
  details.dispatchEvent(new window.Event("toggle"));
}
const openMs = performance.now() - start;
const argsText = card?.querySelector(".gu-tool-args")?.textContent ?? "";
process.stdout.write(
  JSON.stringify({
    times,
    load_ms: loadMs,
    args_chars_closed: closedChars,
    args_chars_shown: argsText.length,
    open_ms: openMs,
    table_rows: rows,
  }),
);
