// Entry point of the anywidget frontend for ipygenui.Chat.
//
// Messages arrive three ways and converge in a MessageStore:
// - `messages` trait: references to one child model per message, whose
//   `message` + `rev` traits are the durable snapshot (saved with the
//   notebook, shown by a second view or after a reload);
// - `frame` custom messages: coalesced patch ops while a reply streams;
// - `snapshot` custom messages: the live messages, sent in answer to this
//   view's `hello` so a view opened mid-stream catches up.
// Everything the user does goes to the kernel as a custom message; the
// kernel validates it and answers `error` when it changes nothing. A send
// carries a `ref` (unique to this view) that the kernel's answer echoes:
// `accepted` clears the composer, `error` leaves the text in it.

import { focusAfterDecision, nextDecision } from "./tool-card/approval.js";
import { listenForCodeCopies } from "./common/clipboard.js";
import { createComponentContext, readableName } from "./components/slot.js";
import { createAppsContext } from "./mcp-apps/apps-context.js";
import { loadModule } from "./components/host.js";
import { createComposer } from "./composer/composer.js";
import { h, setData, setText, show } from "./common/dom.js";
import { createAlwaysAllowed, readAlwaysAllowed } from "./tool-card/always-allowed.js";
import { createSignInCards, readSignIns } from "./sign-in-cards.js";
import { addHighlighterLoader, onHighlighterReady } from "./markdown/highlighter.js";
import { highlightCodeIn } from "./markdown/markdown.js";
import { createModelPicker, readModelChoices } from "./model-picker.js";
import { FROM_KERNEL, readLimits, readServerMessage, shownComponent, toKernel } from "./protocol.js";
import { listenForLoads, resourcesFor } from "./common/resources.js";
import { createSuggestions } from "./thread/suggestions.js";
import { MessageStore } from "./sync.js";
import { createThreadMenu, downloadText, readThreads } from "./thread/menu.js";
import { createAnnouncer } from "./thread/announcer.js";
import { createThreadView } from "./thread/view.js";
import { listenForWidgetKeys } from "./widget-keys.js";

const PHASE_TEXT = {
  idle: "",
  thinking: "Thinking…",
  writing: "Writing…",
  "running-tool": "Running a tool…",
  calling: "Calling a tool…",
  drawing: "Preparing a component…",
  waiting: "Waiting for you",
  approval: "Waiting for your approval",
  answer: "Waiting for your answer",
  client: "Waiting for the AG-UI client",
};

// Components the user sees drawn rather than filled in.
const DRAWN = /chart|plot|figure|graph|image/i;

/** The header's status line: the tools running, the call or component that streams
 * (`detail`: its readable name), or what a thinking model waits for
 * ("Rate limited by …: retrying in 118 s", "No answer from … for 30 s"). */
export function phaseText(phase, detail) {
  if (detail && phase === "running-tool") {
    return `Running ${String(detail).split(", ").map(readableName).join(", ")}…`;
  }
  if (detail && phase === "calling") return `Calling ${readableName(detail)}…`;
  if (detail && phase === "drawing") {
    const name = readableName(detail);
    return DRAWN.test(name) ? `Drawing a ${name}…` : `Preparing the ${name}…`;
  }
  if (detail && phase === "thinking") return detail;
  return PHASE_TEXT[phase] ?? "";
}

/** The last part of a reply that still streams, if it is a call whose arguments stream. */
function streamingCall(messages) {
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant" || last.status?.type !== "running") return null;
  const parts = last.parts ?? [];
  const part = parts[parts.length - 1];
  return part?.type === "tool-call" && !part.args_complete && !part.has_result ? part : null;
}

/**
 * What the run is doing, for the header: the kernel's phase, except that a
 * "thinking" model whose reply already streams text is "writing", one that
 * streams a call's arguments is "calling" it (or "drawing" the component it
 * shows: `activityName` names either), and a wait says what it waits for.
 * @param {string} phase the kernel's phase @param {any[]} messages live messages in order
 * @param {(name: string) => boolean} [isHuman] whether a tool is one of the chat's human tools
 */
export function liveActivity(phase, messages, isHuman = () => true) {
  if (phase === "waiting") return waitingFor(messages, isHuman);
  if (phase !== "thinking") return phase;
  const call = streamingCall(messages);
  if (call) return shownComponent(call) ? "drawing" : "calling";
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant" || last.status?.type !== "running") return phase;
  const parts = last.parts ?? [];
  const part = parts[parts.length - 1];
  return part?.type === "text" && part.text ? "writing" : phase;
}

/** The component or tool whose call streams now ("" when none). */
export function activityName(messages) {
  const call = streamingCall(messages);
  if (!call) return "";
  return String(shownComponent(call) ?? call.tool_name ?? "");
}

/** What a waiting run waits for: an approval, an answer, an AG-UI client's
 * answer (calls of tools the client declared: none of the chat's human tools),
 * or (unknown) the user. */
function waitingFor(messages, isHuman) {
  const last = messages[messages.length - 1];
  if (last?.status?.type !== "requires-action") return "waiting";
  const open = (last.parts ?? []).filter((p) => p?.type === "tool-call" && !p.has_result);
  if (open.some((p) => p.approval?.status === "pending")) return "approval";
  if (open.length && !open.some((p) => isHuman(p.tool_name))) return "client";
  return open.length ? "answer" : "waiting";
}

// The offline demo's name (models/demo.py): its badge names it.
const DEMO_NAME = "offline demo";

/** Whether the chat answers from the offline demo (not another offline model: a replay). */
export function isOfflineDemo(name, offline) {
  return offline && (!name || name === DEMO_NAME);
}

/** The model name the header shows: none for the offline demo (its badge says it). */
export function headerModelName(name, offline) {
  return isOfflineDemo(name, offline) ? "" : name || "";
}

/** The calls of the last message that wait for the user (approval or an answer). */
function waitingCalls(messages) {
  const last = messages[messages.length - 1];
  if (last?.status?.type !== "requires-action") return [];
  return (last.parts ?? []).filter((p) => p?.type === "tool-call" && !p.has_result).map((p) => p.tool_name);
}

/**
 * The chat's greatest height from the `height` trait: a CSS length, or ""
 * for none ("auto", and "" as older notebooks saved it: the chat grows).
 * @param {unknown} value
 */
export function chatHeight(value) {
  return typeof value === "string" && value !== "auto" ? value : "";
}

/** Extract a widget model id from an ipywidgets reference. */
export function modelRef(value) {
  if (typeof value === "string" && value.startsWith("IPY_MODEL_")) return value.slice(10);
  if (value && typeof value === "object" && typeof value.model_id === "string") return value;
  return null;
}

// Traits that change the header, suggestions and composer, not the messages.
const META_KEYS = [
  "phase",
  "phase_detail",
  "running",
  "suggestions",
  "model_name",
  "offline",
  "model_choices",
  "model_choice",
  "save_error",
  "height",
  "always_allowed",
  "sign_ins",
];
// Traits of the conversation controls (threads, starters).
const THREAD_KEYS = ["thread_list", "thread_id", "persist_kind", "starters", "starter_forms"];
// (`data_names`, `data_details` are read when the `@` menu opens: no render needed when they change.)

// Tries to resolve message models the page does not know yet: 50 ms doubling, ~25 s in all.
const SYNC_RETRIES = 9;

const nextFrame =
  typeof requestAnimationFrame === "function"
    ? (fn) => requestAnimationFrame(fn)
    : (fn) => setTimeout(fn, 0);

/** A file's bytes (FileReader where Blob.arrayBuffer is missing: older browsers, jsdom). */
function readBytes(blob) {
  if (typeof blob.arrayBuffer === "function") return blob.arrayBuffer();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(/** @type {ArrayBuffer} */ (reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(blob);
  });
}

/**
 * What the chat view does with a kernel message, by its type (read and
 * checked by `readServerMessage` first).
 * @type {Record<string, (view: ChatView, msg: any) => void>}
 */
const ON_KERNEL_MESSAGE = {
  [FROM_KERNEL.frame]: (view, msg) => view.store.applyFrame(msg),
  [FROM_KERNEL.snapshot]: (view, msg) => {
    for (const item of msg.messages) view.store.setSnapshot(item.message, item.rev);
  },
  [FROM_KERNEL.accepted]: (view, msg) => view.accepted(msg),
  [FROM_KERNEL.error]: (view, msg) => view.refused(msg),
  [FROM_KERNEL.transcript]: (_view, msg) => downloadText(msg.markdown, msg.filename),
  [FROM_KERNEL.module]: (view, msg) => view.moduleArrived(msg),
  [FROM_KERNEL.completion]: (view, msg) => view.thread.forms.completion(msg),
};

export class ChatView {
  /** @param {any} model anywidget model @param {HTMLElement} el */
  constructor(model, el) {
    this.model = model;
    this.el = el;
    this.store = new MessageStore();
    /** @type {Map<string, {child: any, off: () => void}>} */
    this.children = new Map();
    this.generation = 0;
    this.syncRetries = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.syncTimer = null;
    this.scheduled = false;
    /** @type {Set<string> | null} messages changed since the last render; null: all */
    this.dirty = null;
    this.destroyed = false;
    this.noticeTimer = null;

    // URLs the user chose to load in this chat: shared by its views.
    this.resources = resourcesFor(model);
    this.components = createComponentContext({
      model,
      send: (msg) => this.send(msg),
      sendText: (text) => this.sendText(text),
      resources: this.resources,
    });
    // Once the render is done (a next call's controls may be new in it).
    const afterDecision = () =>
      queueMicrotask(() => {
        if (this.root.contains(document.activeElement)) return;
        focusAfterDecision(this.root, () => {
          this.composer.input.focus();
          this.focusParked = true; // a decision that comes next takes the focus (renderNow)
        });
      });
    /** The focus went to the composer only because no decision waited yet. */
    this.focusParked = false;
    this.apps = createAppsContext({
      model,
      send: (msg) => this.send(msg),
      sendText: (text) => this.sendText(text),
      afterDecision,
    });
    /** Whether a tool is one of the chat's human tools (its calls wait for the user's answer). */
    this.isHuman = (name) => (this.model.get("human_tools") ?? []).includes(name);
    const ctx = {
      apps: this.apps,
      components: this.components,
      resources: this.resources,
      send: (msg) => this.send(msg),
      notify: (text) => this.notice(text),
      isHuman: this.isHuman,
      standardParams: () => this.model.get("standard_params") ?? [],
      sendEdit: (messageId, text) => this.sendEdit(messageId, text),
      sendStarter: (text) => this.sendText(text),
      toKernel,
      tag: () => `${this.viewTag}-${++this.sends}`,
      maxFieldChars: () => readLimits(this.model.get("limits")).maxFieldChars,
      afterDecision,
    };
    this.thread = createThreadView(ctx);
    /** Whether a kernel has answered this view (a saved or exported copy has none). */
    this.kernelSeen = false;
    /** Whether the notice says that no kernel answered yet. */
    this.noKernelNotice = false;
    /** Tags this view's sends, so only its own answers touch its composer. */
    this.viewTag = Math.random().toString(36).slice(2, 10);
    this.sends = 0;
    /** @type {{ref: string, text: string, attachments?: any[]} | null} the send waiting for the kernel's answer */
    this.pendingSend = null;
    this.composer = createComposer({
      onSend: (text, attachments) => this.sendText(text, attachments),
      onStop: () => this.send(toKernel.cancel()),
      onEditLast: () => this.thread.editLastUser(),
      warnBeforeSend: () => this.sendWarning(),
      notify: (text) => this.notice(text),
      dataNames: () => this.model.get("data_names") ?? [],
      dataDetails: () => this.model.get("data_details") ?? {},
      limits: () => readLimits(this.model.get("limits")),
    });
    /** @type {{ref: string, messageId: string} | null} the edit waiting for the kernel's answer */
    this.pendingEdit = null;
    this.threadMenu = createThreadMenu({ send: (msg) => this.send(msg) });
    this.suggestions = createSuggestions((text) => this.send(toKernel.suggestion(text)));
    this.alwaysAllowed = createAlwaysAllowed((name) => this.send(toKernel.revokeAlways(name)));
    this.modelName = h("span.gu-model-name");
    this.modelPicker = createModelPicker({ send: (msg) => this.send(msg) });
    this.badge = h(
      "span.gu-offline-badge",
      { hidden: true, title: "No API key: replies come from an offline demo model" },
      "Offline demo model",
    );
    // Shown, not spoken: the announcer is the chat's one voice for a reply.
    this.phase = h("span.gu-phase");
    this.announcer = createAnnouncer();
    this.noticeEl = h("div.gu-notice", { role: "alert", hidden: true });
    // A failed save of the persisted thread: a trait, so it survives a reload,
    // and it stays until a save succeeds (the kernel clears it).
    this.saveErrorEl = h("div.gu-save-error", { role: "alert", hidden: true });
    this.signIns = createSignInCards({ send: (msg) => this.send(msg) });
    this.root = h(
      "div.gu-chat",
      { "data-phase": "idle" },
      h("div.gu-header", {}, this.modelName, this.modelPicker.el, this.badge, this.phase, this.threadMenu.el),
      this.thread.el,
      this.announcer.el,
      this.suggestions.el,
      this.alwaysAllowed.el,
      this.saveErrorEl,
      this.signIns.el,
      this.noticeEl,
      this.composer.el,
    );
    this.stopLoads = listenForLoads(this.root, this.resources);
    this.stopCopies = listenForCodeCopies(this.root);
    this.stopKeys = listenForWidgetKeys(this.root, {
      running: () => !!this.model.get("running"),
      stop: () => this.send(toKernel.cancel()),
      focusComposer: () => this.composer.input.focus(),
    });
    /** @type {Map<string, {resolve: (source: string) => void, reject: (err: Error) => void}[]>} */
    this.moduleWaiters = new Map();
    this.stopHighlighterLoader = addHighlighterLoader(() => this.fetchModule("highlight"));
    this.stopColouring = onHighlighterReady(() => highlightCodeIn(this.root));
    el.classList.add("gu-widget");
    el.replaceChildren(this.root);
  }

  async start() {
    const m = this.model;
    this.onCustom = (msg) => this.handleCustom(msg);
    this.onMessages = () => this.syncChildren();
    this.onMeta = () => this.schedule();
    // Tool cards show human-input controls by tool name: all may change.
    this.onHumanTools = () => {
      this.dirty = null;
      this.schedule();
    };
    m.on("msg:custom", this.onCustom);
    m.on("change:messages", this.onMessages);
    for (const key of [...META_KEYS, ...THREAD_KEYS]) m.on(`change:${key}`, this.onMeta);
    m.on("change:human_tools", this.onHumanTools);
    this.unsubscribe = this.store.subscribe((ids) => {
      if (this.dirty) for (const id of ids) this.dirty.add(id);
      this.schedule();
    });
    await this.syncChildren();
    // Ask for the live messages: the traits may be behind a reply that streams now.
    this.send(toKernel.hello());
    this.renderNow();
  }

  destroy() {
    this.destroyed = true;
    if (this.syncTimer !== null) clearTimeout(this.syncTimer);
    const m = this.model;
    m.off("msg:custom", this.onCustom);
    m.off("change:messages", this.onMessages);
    for (const key of [...META_KEYS, ...THREAD_KEYS]) m.off(`change:${key}`, this.onMeta);
    m.off("change:human_tools", this.onHumanTools);
    for (const { off } of this.children.values()) off();
    this.children.clear();
    this.unsubscribe?.();
    this.stopLoads();
    this.stopCopies();
    this.stopKeys();
    this.stopHighlighterLoader();
    this.stopColouring();
    this.modelPicker.destroy();
    this.threadMenu.destroy();
    // A module this view asked for can no longer arrive here: another view may ask.
    for (const waiters of this.moduleWaiters.values()) {
      for (const { reject } of waiters) reject(new Error("the view closed"));
    }
    this.moduleWaiters.clear();
    this.components.destroy();
    this.apps.destroy();
  }

  /**
   * A frontend module the kernel keeps beside the bundle, imported
   * (`highlight`: the code highlighter). Never answered without a kernel.
   * @param {string} name
   */
  async fetchModule(name) {
    const source = await new Promise((resolve, reject) => {
      const waiters = this.moduleWaiters.get(name) ?? [];
      waiters.push({ resolve, reject });
      this.moduleWaiters.set(name, waiters);
      if (waiters.length === 1) this.send(toKernel.loadModule(name));
    });
    return this.importSource(source);
  }

  /** Import ES module source (through a Blob URL, as registered components are). @param {string} source */
  importSource(source) {
    return loadModule(source);
  }

  /** The kernel's answer to `fetchModule`. @param {{name: string, source?: string, error?: string}} msg */
  moduleArrived(msg) {
    const waiters = this.moduleWaiters.get(msg.name) ?? [];
    this.moduleWaiters.delete(msg.name);
    for (const { resolve, reject } of waiters) {
      if (typeof msg.source === "string") resolve(msg.source);
      else reject(new Error(msg.error || `the kernel has no module ${msg.name}`));
    }
  }

  send(msg, buffers) {
    // Only what the user did clears a notice they may not have read yet.
    if (msg.type !== "hello" && msg.type !== "load_module") this.notice("");
    if (buffers?.length) this.model.send(msg, undefined, buffers);
    else this.model.send(msg);
  }

  notice(text) {
    this.noKernelNotice = false;
    setText(this.noticeEl, text);
    show(this.noticeEl, !!text);
  }

  /** What a send would do to a call that waits for the user, or null. */
  sendWarning() {
    if (this.model.get("phase") !== "waiting") return null;
    const names = [...new Set(waitingCalls(this.store.messages()))];
    const what = names.length ? names.join(", ") : "A tool call";
    const verb = names.length > 1 ? "wait" : "waits";
    return (
      `${what} ${verb} for your decision. Sending a new message rejects ` +
      `${names.length > 1 ? "them" : "it"} (the model is told you sent a new message) and starts a new reply.`
    );
  }

  /**
   * The composer's text (and attachments: files travel as binary buffers)
   * goes to the kernel; the box keeps both until taken.
   * @param {string} text @param {import("./composer/composer.js").Pending[]} [attachments]
   */
  async sendText(text, attachments = []) {
    if (this.pendingSend?.text === text && !attachments.length) return; // a second Enter
    const ref = `${this.viewTag}-${++this.sends}`;
    this.pendingSend = { ref, text, attachments };
    const meta = [];
    const buffers = [];
    try {
      for (const item of attachments) {
        if (item.kind === "data") {
          meta.push({ kind: "data", name: item.name });
          continue;
        }
        meta.push({ kind: "file", name: item.name, mime: item.mime, size: item.size, buffer: buffers.length });
        buffers.push(await readBytes(item.file));
      }
    } catch (error) {
      this.pendingSend = null;
      this.notice(`Could not read an attachment (${error}). Your text is still in the box.`);
      return;
    }
    if (this.pendingSend?.ref !== ref) return; // a newer send went out meanwhile
    this.send(toKernel.send(text, ref, meta), buffers);
    if (this.kernelSeen) return;
    // No kernel yet: a saved copy, or a busy kernel that will read it later.
    this.notice(
      "No kernel has answered this chat yet (a saved copy, or a busy kernel): " +
        "your text stays here until one does.",
    );
    this.noKernelNotice = true;
  }

  /** A user message's new text goes to the kernel; its editor stays open until taken. */
  sendEdit(messageId, text) {
    const ref = `${this.viewTag}-${++this.sends}`;
    this.pendingEdit = { ref, messageId };
    this.send(toKernel.edit(messageId, text, ref));
  }

  /** A message from the kernel arrived: sends from now on are read. */
  kernelAnswered() {
    if (this.kernelSeen) return;
    this.kernelSeen = true;
    if (this.noKernelNotice) this.notice("");
  }

  handleCustom(raw) {
    if (!raw || typeof raw !== "object") return;
    this.kernelAnswered();
    const msg = readServerMessage(raw);
    if (msg === null) return;
    // the other kernel messages are the component slots' and the MCP apps' (they listen too)
    if (Object.hasOwn(ON_KERNEL_MESSAGE, msg.type)) ON_KERNEL_MESSAGE[msg.type](this, msg);
  }

  /** `accepted`: the view that tagged the send (or the edit) clears its box (closes its editor). */
  accepted(msg) {
    if (msg.request === "starter_form") return void this.thread.forms.accepted(msg);
    const pending = this.pendingSend;
    const edit = this.pendingEdit;
    if (pending !== null && msg.ref === pending.ref) {
      this.composer.clear(pending.text, pending.attachments);
      this.pendingSend = null;
    } else if (edit !== null && edit.ref === msg.ref) {
      this.thread.closeEditor(edit.messageId);
      this.pendingEdit = null;
    }
  }

  /** `error`: a message that changed nothing; a refused send keeps its text in the box. */
  refused(msg) {
    if (msg.request === "starter_form" && this.thread.forms.refused(msg)) return; // said in its form
    const mine = this.pendingSend !== null && msg.ref === this.pendingSend.ref;
    const text = msg.message || "Something went wrong.";
    this.notice(mine ? `${text.replace(/[.\s]+$/, "")}. Your text is still in the box.` : text);
    if (mine) this.pendingSend = null;
    // A refused edit: its editor stays open with the text.
    if (this.pendingEdit !== null && msg.ref === this.pendingEdit.ref) this.pendingEdit = null;
  }

  /** Resolve the child message models and listen to their changes. */
  async syncChildren() {
    const generation = ++this.generation;
    const refs = (this.model.get("messages") ?? []).map(modelRef).filter(Boolean);
    const resolved = await Promise.all(refs.map((ref) => this.resolveChild(ref)));
    if (generation !== this.generation || this.destroyed) return;
    // A message model the page does not know yet (its widget manager still
    // restoring, a slow comm): show the rest now and ask again shortly, so
    // the thread never stays behind the trait.
    if (resolved.includes(null)) this.retrySync();
    else this.syncRetries = 0;
    const ids = [];
    const seen = new Set();
    for (const child of resolved) {
      if (!child) continue;
      const key = child.model_id;
      seen.add(key);
      if (!this.children.has(key)) {
        const onChange = () => this.readChild(child);
        child.on("change", onChange);
        this.children.set(key, { child, off: () => child.off("change", onChange) });
      }
      const id = this.readChild(child);
      if (id) ids.push(id);
    }
    for (const [key, { off }] of this.children) {
      if (!seen.has(key)) {
        off();
        this.children.delete(key);
      }
    }
    this.store.setOrder(ids);
  }

  /** @param {any} ref @returns {Promise<any>} the child model, or null if the page has none */
  resolveChild(ref) {
    if (typeof ref !== "string") return Promise.resolve(ref);
    return Promise.resolve()
      .then(() => this.model.widget_manager.get_model(ref))
      .then((child) => child ?? null)
      .catch(() => null);
  }

  retrySync() {
    if (this.syncTimer !== null || this.syncRetries >= SYNC_RETRIES) return;
    const delay = 50 * 2 ** this.syncRetries++;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      if (!this.destroyed) this.syncChildren();
    }, delay);
  }

  /** Feed one child model's durable snapshot into the store. */
  readChild(child) {
    const message = child.get("message");
    if (!message || typeof message.id !== "string") return null;
    this.store.setSnapshot(message, child.get("rev") ?? -1);
    this.schedule();
    return message.id;
  }

  schedule() {
    if (this.scheduled || this.destroyed) return;
    this.scheduled = true;
    nextFrame(() => {
      this.scheduled = false;
      if (!this.destroyed) this.renderNow();
    });
  }

  renderNow() {
    const m = this.model;
    const phase = m.get("phase") || "idle";
    const running = !!m.get("running");
    const messages = this.store.messages();
    this.root.dataset.phase = phase;
    const activity = liveActivity(phase, messages, this.isHuman);
    const detail = activity === "calling" || activity === "drawing" ? activityName(messages) : "";
    setData(this.root, "activity", activity);
    const offline = !!m.get("offline");
    setText(this.modelName, headerModelName(m.get("model_name"), offline));
    // With models to choose from, the picker shows the name instead.
    const choices = readModelChoices(m.get("model_choices"));
    this.modelPicker.update(choices, m.get("model_choice") || "", m.get("model_name") || "");
    show(this.modelName, !this.modelPicker.shown);
    // The demo's badge names it; another offline model (a replay) keeps its name beside "Offline".
    const demo = isOfflineDemo(m.get("model_name"), offline);
    setText(this.badge, demo ? "Offline demo model" : "Offline");
    const title = demo
      ? "No API key: replies come from an offline demo model"
      : "Replies come from this kernel (a recording): no model server is asked";
    if (this.badge.title !== title) this.badge.title = title;
    show(this.badge, offline);
    // A model's wait (rate limit, no answer) outranks what its reply streams.
    const waitText = phase === "thinking" ? m.get("phase_detail") : "";
    setText(this.phase, waitText ? waitText : phaseText(activity, detail || m.get("phase_detail")));
    const height = chatHeight(m.get("height"));
    this.root.style.maxHeight = height;
    this.root.classList.toggle("gu-chat-bounded", !!height);
    this.thread.setHeight(height);
    const saveError = m.get("save_error") || "";
    setText(this.saveErrorEl, saveError);
    show(this.saveErrorEl, !!saveError);
    // Frames that arrived since the last render change only their messages.
    const dirty = this.dirty;
    this.dirty = new Set();
    const starters = (m.get("starters") ?? []).filter((t) => typeof t === "string");
    this.thread.render(messages, { running, dirty, starters, starterForms: m.get("starter_forms") });
    this.announcer.update(messages, running);
    this.threadMenu.update(readThreads(m.get("thread_list")), m.get("thread_id") || "", m.get("persist_kind") || "");
    // Screen readers wait for the finished reply instead of reading every token.
    const busy = running ? "true" : "false";
    if (this.thread.el.getAttribute("aria-busy") !== busy) this.thread.el.setAttribute("aria-busy", busy);
    this.suggestions.update(m.get("suggestions") ?? [], !running);
    this.alwaysAllowed.update(readAlwaysAllowed(m.get("always_allowed")));
    this.signIns.update(readSignIns(m.get("sign_ins")));
    this.composer.update(running);
    this.takeParkedFocus(running);
  }

  /**
   * The focus waits in the (empty) composer after a decision because nothing
   * else waited: a decision that comes with this render takes it (Ask the
   * model, then its answer's Send to the server). Typing, or the focus moving
   * elsewhere, or the run ending, lets it be.
   * @param {boolean} running
   */
  takeParkedFocus(running) {
    if (!this.focusParked) return;
    const input = this.composer.input;
    if (document.activeElement !== input || input.value) {
      this.focusParked = false;
      return;
    }
    const next = nextDecision(this.root);
    if (next) {
      this.focusParked = false;
      next.focus();
    } else if (!running) this.focusParked = false;
  }
}

export default {
  async render({ model, el }) {
    const view = new ChatView(model, el);
    await view.start();
    return () => view.destroy();
  },
};
