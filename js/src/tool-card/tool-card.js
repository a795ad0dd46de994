// A card per tool call: a live status line ("Querying…" then "Queried 3 rows"),
// the arguments and result folded away, and the approval / human-input
// controls while the call waits for the user.

import { createApproval, createHumanInput } from "./approval.js";
import { componentHook } from "../components/slot.js";
import { h, setData, setText, show } from "../common/dom.js";
import { fillMarked } from "./invisible-chars.js";
import { createAppFrame } from "../mcp-apps/app-frame.js";
import { renderMarkdown } from "../markdown/markdown.js";
import { shownComponent, updateOf } from "../protocol.js";
import { createPythonBody } from "./python-result.js";
import { imageElements, resultImages } from "./result-images.js";
import { createServerRequest, ELICITATION, requestKey, requestTitle } from "./server-request.js";
import { argsRevision, parsedArgs } from "./streamed-args.js";
import { createToolProgress } from "./progress.js";

/**
 * The arguments to show: as parsed from the streamed text while it streams
 * (the kernel sends `args_text` appends, not the parsed value, to keep
 * frames small; one parser per part reads each append once, see
 * streamed-args.js), the kernel's parsed `args` once it has them.
 * @param {any} part
 * @param {Iterable<string>} hidden the standard parameters (the kernel's
 *   `standard_params` trait): for the status line, not shown as arguments
 * @returns {Record<string, unknown>}
 */
export function displayArgs(part, hidden = []) {
  const args = parsedArgs(part);
  const skip = new Set(hidden);
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(args ?? {})) if (!skip.has(k)) setOwn(out, k, v);
  return out;
}

/** `obj[key] = value` that keeps a `__proto__` key an own property (as JSON.parse does). */
function setOwn(obj, key, value) {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Who decided a call, as its card says after the decision ("" when unknown: an old thread file). */
export function decisionLine(approval) {
  const by = approval?.decided_by;
  if (approval?.status === "approved") {
    const edited = approval.edited ? ", edited" : "";
    if (by === "user") return `Approved by you${edited}`;
    if (by === "code") return `Approved from code${edited}`;
    if (by === "grant") return "Approved by an always-allow rule";
    if (by === "client") return `Approved by the AG-UI client${edited}`;
    return "";
  }
  if (approval?.status === "rejected") {
    const reason = approval.reason ? `: ${approval.reason}` : "";
    if (by === "user") return `Rejected by you${reason}`;
    if (by === "code") return `Rejected from code${reason}`;
    if (by === "client") return `Rejected by the AG-UI client${reason}`;
    return `Rejected${reason}`;
  }
  return "";
}

/**
 * The one-line status of a call, beside its name: the tool's own status texts
 * when it has them, else how the call stands ("Calling…" while the model
 * writes it, "Running…", "Done", "Failed"), and who decided a gated call.
 * @param {any} part
 * @param {{human?: boolean, args?: Record<string, unknown> | null}} [opts] `args`:
 *   the arguments as shown (the standard parameters left out)
 */
export function statusLine(part, { human = false, args = null } = {}) {
  const decided = decisionLine(part.approval);
  const withDecision = (text) => (decided && part.approval?.status === "approved" ? `${text} · ${decided}` : text);
  // The model's status texts describe the arguments it wrote: after an edit
  // they would name what did not run, so the line names what did.
  const ran = part.approval?.status === "approved" && part.approval.edited ? argsLine(args ?? {}) : null;
  if (part.has_result) {
    if (part.approval?.status === "rejected") return decided;
    if (part.is_error) return withDecision(errorMessage(part.result) || "Failed");
    return withDecision(ran !== null ? `Ran with ${ran}` : part.completion_status_message || "Done");
  }
  if (part.approval?.status === "pending") return "Waiting for your approval";
  if (part.approval?.status === "rejected") return decided;
  if (human && part.args_complete) return "Waiting for your answer";
  if (ran !== null) return withDecision(`Running with ${ran}`);
  return withDecision(part.status_message || (part.args_complete ? "Running…" : "Calling…"));
}

const ARGS_LINE_CHARS = 80;

/** Arguments in a line ("city: Bergen, days: 2"), cut at `ARGS_LINE_CHARS`. */
export function argsLine(args) {
  const entries = Object.entries(args);
  if (!entries.length) return "no arguments";
  const text = entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ");
  return text.length > ARGS_LINE_CHARS ? `${text.slice(0, ARGS_LINE_CHARS - 1)}…` : text;
}

/** The message of an error result (`{error: "..."}` or a plain string). */
export function errorMessage(result) {
  if (typeof result === "string") return result.trim();
  if (result && typeof result === "object" && typeof result.error === "string") return result.error.trim();
  return "";
}

/** The traceback of a failed call, for the user only (the kernel sends it
 * beside the result, which is what the model reads), if any. */
function tracebackOf(part) {
  return part.is_error && typeof part.traceback === "string" ? part.traceback : "";
}

/** Characters a Details block highlights at once: a 1 MB call printed whole
 * would cost the click that opens it seconds. The rest waits behind a button. */
export const PRINT_LIMIT = 40_000;
const wholeText = new WeakMap();
const listening = new WeakSet();

function highlightedJson(text) {
  const fence = "`".repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));
  return renderMarkdown(`${fence}json\n${text}\n${fence}`);
}

const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function sizeLabel(chars) {
  return chars >= 1e6 ? `${(chars / 1e6).toFixed(1)} M characters` : `${Math.round(chars / 1e3)} K characters`;
}

/** JSON text as a highlighted block (sanitized like every message), invisible
 * characters marked; past `PRINT_LIMIT`, its head and a button that prints the
 * whole text plain (the marks kept). */
function fillJson(el, text) {
  if (text.length <= PRINT_LIMIT) {
    wholeText.delete(el);
    fillMarked(el, () => highlightedJson(text));
    return;
  }
  const cut = text.lastIndexOf("\n", PRINT_LIMIT);
  const head = text.slice(0, cut > 0 ? cut : PRINT_LIMIT);
  const more = `<button type="button" class="gu-tool-more">Show all ${sizeLabel(text.length)}</button>`;
  if (!listening.has(el)) {
    listening.add(el);
    el.addEventListener("click", (event) => {
      const whole = wholeText.get(el);
      if (whole === undefined || !event.target?.closest?.(".gu-tool-more")) return;
      wholeText.delete(el);
      fillMarked(el, () => `<pre class="gu-tool-whole"><code>${escapeHtml(whole)}</code></pre>`);
    });
  }
  wholeText.set(el, text);
  fillMarked(el, () => highlightedJson(head) + more);
}

function callStatusOf(part) {
  if (part.has_result) return part.is_error ? "error" : "done";
  if (part.approval?.status === "pending") return "approval";
  return "running";
}

function pretty(value) {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

const FIGURE_URL = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/;

/**
 * Images a result carries as `figures: [{image: "data:image/png;base64,...", themed?: true}]`
 * (run_python's), as `{src, themed}`; `themed`: a default-styled figure on a transparent
 * background, recoloured in a dark theme as a Python component's figure is.
 */
export function resultFigures(result) {
  const list = result && typeof result === "object" && Array.isArray(result.figures) ? result.figures : [];
  return list
    .filter((f) => typeof f?.image === "string" && FIGURE_URL.test(f.image))
    .map((f) => ({ src: f.image, themed: f.themed === true }));
}

/** The result as the details print it: figures and an MCP app's HTML are shown above, not printed. */
function printedResult(result, figures) {
  let out = figures ? { ...result, figures: `${figures} shown above` } : result;
  const app = out?.for_user?.mcp_app;
  if (app && typeof app === "object") out = { ...out, for_user: { ...out.for_user, mcp_app: `${app.uri} shown above` } };
  return out;
}

function figureElement({ src, themed }) {
  return h(themed ? "img.gu-tool-figure.gu-c-themed-figure" : "img.gu-tool-figure", { src, alt: "Figure" });
}

/**
 * @param {{send: (msg:any) => void, notify: (text:string) => void, isHuman: (name:string) => boolean,
 *          apps?: ReturnType<typeof import("../mcp-apps/apps-context.js").createAppsContext>,
 *          components?: ReturnType<typeof import("../components/slot.js").createComponentContext>,
 *          standardParams?: () => string[], afterDecision?: () => void}} ctx
 */
export function createToolCard(ctx) {
  const status = h("span.gu-tool-status", { "aria-live": "polite" });
  const name = h("span.gu-tool-name");
  const argsBlock = h("div.gu-tool-args");
  const resultLabel = h("div.gu-tool-label", { text: "Result", hidden: true });
  const resultBlock = h("div.gu-tool-result", { hidden: true });
  const progress = createToolProgress();
  const tracePre = h("pre.gu-tool-traceback-text");
  // In the DOM only when the kernel sent one.
  const traceback = h("details.gu-tool-traceback", {}, h("summary", {}, "Traceback"), tracePre);
  const details = h(
    "details.gu-tool-details",
    {},
    h("summary", {}, "Details"),
    h("div.gu-tool-label", { text: "Arguments" }),
    argsBlock,
    resultLabel,
    resultBlock,
    ...progress.log,
  );
  const controls = h("div.gu-tool-controls");
  const head = h("div.gu-tool-head", {}, h("span.gu-tool-icon", { "aria-hidden": "true" }), name, status);
  const images = h("div.gu-tool-images", { hidden: true });
  const figures = h("div.gu-tool-figures", { hidden: true });
  // A call that runs code reads as a cell: its code, output and tables (python-result.js).
  const python = createPythonBody();
  // An MCP app the call's result carries: in the card, sandboxed (mcp-apps/).
  const app = ctx.apps ? createAppFrame(ctx.apps) : null;
  const el = h("div.gu-tool-call", {}, head, progress.bar, controls, app?.el, python.el, images, figures, details);
  const component = componentHook(ctx.components, el, controls);
  let pendingKey = null;
  let lastArgs = "";
  let latestArgs = {};
  // Which parse of which part the arguments block was last checked against:
  // a streaming call's arguments are printed only when they changed.
  let checkedPart = null;
  let checkedRevision = -1;
  /** The arguments as the block shows them, re-printed (and re-highlighted) only when changed. */
  const showArgs = (args) => {
    const text = pretty(args);
    if (text !== lastArgs) {
      lastArgs = text;
      fillJson(argsBlock, text);
    }
    return text;
  };
  // The result as the details print it, filled in when they open: a closed
  // card never prints its arguments or result (a 1 MB call would cost the
  // frame that completes it more than half a second).
  let lastResult;
  let printedResultOf;
  const printResult = () => {
    if (!details.open || printedResultOf === lastResult) return;
    printedResultOf = lastResult;
    fillJson(resultBlock, pretty(printedResult(lastResult, resultFigures(lastResult).length)));
  };
  details.addEventListener("toggle", () => {
    if (!details.open) return;
    showArgs(latestArgs);
    printResult();
  });

  return {
    el,
    /**
     * @param {any} part
     * @param {{canAct: boolean, streaming?: boolean}} opts `streaming`: the call's message
     *   still streams (a component named before its props shows a placeholder meanwhile)
     */
    update(part, { canAct, streaming }) {
      // A server's form waits for an answer as a human tool's call does.
      const human = ctx.isHuman(part.tool_name) || (!!part.synthetic && part.tool_name === ELICITATION);
      setData(el, "toolCallId", part.tool_call_id);
      setData(el, "toolName", part.tool_name);
      setData(el, "status", callStatusOf(part));
      const title = part.synthetic ? requestTitle(part, displayArgs(part)) : null;
      setText(name, title ?? (part.component ? part.component : part.tool_name));
      const args = displayArgs(part, ctx.standardParams?.() ?? []);
      setText(status, statusLine(part, { human, args }));
      progress.update(part);
      // A component stands in the thread as itself: no card, no status line
      // (only a waiting approval or a failure still speaks).
      const isComponentCall = !!(shownComponent(part) || updateOf(part));
      el.classList.toggle("gu-tool-call-ui", isComponentCall);
      const callStatus = callStatusOf(part);
      show(head, !isComponentCall || callStatus === "approval" || (callStatus === "error" && !shownComponent(part)));
      const revision = argsRevision(part);
      component.update(part, args, revision, { streaming });
      latestArgs = args;
      // A component's details (the props the model sent): once they are whole, and only if any.
      const argsToShow = !!part.args_complete && (Object.keys(args).length > 0 || !!part.is_error);
      show(details, !isComponentCall || argsToShow);
      python.update(part, args, { approving: canAct && part.approval?.status === "pending" });
      // Printed only when the details are open or the call waits for approval
      // (its box then shows the same text), and only when the parse moved on
      // since the last look.
      const reviewing = canAct && part.approval?.status === "pending" && !!part.args_complete;
      if ((details.open || reviewing) && (part !== checkedPart || revision !== checkedRevision)) {
        checkedPart = part;
        checkedRevision = revision;
        showArgs(args);
      }
      if (part.has_result && part.result !== lastResult) {
        lastResult = part.result;
        setText(resultLabel, part.is_error ? "Error" : "Result");
        const figs = resultFigures(part.result);
        figures.replaceChildren(...figs.map(figureElement));
        show(figures, figs.length > 0);
        printResult();
        const sources = part.is_error ? [] : resultImages(part.result);
        images.replaceChildren(...imageElements(sources, part.tool_name));
        const tb = tracebackOf(part);
        tracePre.textContent = tb;
        if (tb && !traceback.parentNode) el.insertBefore(traceback, details);
        else if (!tb) traceback.remove();
      }
      app?.update(part, args);
      show(images, !!part.has_result && images.childElementCount > 0);
      show(resultLabel, !!part.has_result);
      show(resultBlock, !!part.has_result);

      // Which controls the call needs now; rebuilt only when that changes.
      let key = null;
      if (part.synthetic) key = canAct ? requestKey(part, args) : null; // a server's request: its own controls
      else if (canAct && part.approval?.status === "pending") key = `approval:${part.tool_call_id}`;
      else if (canAct && human && part.args_complete && !part.has_result && part.approval?.status !== "pending" && part.approval?.status !== "rejected") {
        key = `human:${part.tool_call_id}`;
      }
      if (key !== pendingKey) {
        pendingKey = key;
        // The focused button goes with the controls: the chat says where the focus goes next.
        const hadFocus = controls.contains(document.activeElement);
        // answered: the message keeps its height rather than jump (thread/message-view.js)
        if (key === null && controls.childElementCount) el.dispatchEvent(new CustomEvent("gu-hold-height", { bubbles: true }));
        if (key === null) controls.replaceChildren();
        else if (part.synthetic) controls.replaceChildren(createServerRequest({ part, args, send: ctx.send }).el);
        else if (key.startsWith("approval:")) {
          const approval = createApproval({
            toolCallId: part.tool_call_id,
            toolName: part.tool_name,
            args,
            // The text the details block printed: the box shows the same, not a second print.
            argsJson: checkedPart === part && checkedRevision === revision ? lastArgs : undefined,
            send: ctx.send,
            notify: ctx.notify,
          });
          // What a tool server claims about the tool (shown, not obeyed), as plain text.
          const note = part.approval.note ? [h("div.gu-approval-note", { text: String(part.approval.note) })] : [];
          controls.replaceChildren(...note, approval.el);
        } else {
          const prompt = typeof args.question === "string" ? args.question : "";
          const input = createHumanInput({
            toolCallId: part.tool_call_id,
            toolName: part.tool_name,
            prompt,
            send: ctx.send,
          });
          controls.replaceChildren(input.el);
        }
        if (hadFocus && !controls.contains(document.activeElement)) ctx.afterDecision?.();
      }
    },
  };
}
