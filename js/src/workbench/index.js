// Entry point of gu.Workbench (ipygenui/workbench/widget.py): the registry's
// components and tools in a list; for a component, its description, props
// schema, sample props (generated in the kernel), a preview rendered by the
// chat's own component slot, a JSON editor whose text the kernel validates
// as the runtime would, and a streaming replay (replay.js).

import { h } from "../common/dom.js";
import { mountComponent } from "../components/host.js";
import { createComponentContext, createComponentSlot } from "../components/slot.js";
import { listenForLoads, resourcesFor } from "../common/resources.js";
import { FROM_KERNEL, readReply, toKernel } from "./protocol.js";
import { createReplay } from "./replay.js";

/**
 * What the open entry does with a kernel reply, by its type; a reply to an
 * older request (not the `latest` ref) is dropped.
 * @type {Record<string, (entry: any, latest: any, msg: any) => void>}
 */
const ON_REPLY = {
  [FROM_KERNEL.props_checked]: (entry, latest, msg) => {
    if (msg.ref === latest.check) entry.onChecked(msg);
  },
  [FROM_KERNEL.replay_states]: (entry, latest, msg) => {
    if (msg.ref === latest.replay) entry.onStates(msg);
  },
};

const CHECK_DEBOUNCE_MS = 300;

/** A tool-call part whose whole arguments arrived (and were answered, if `error`).
 * An invalid one has an id of its own: no kernel output of an earlier, valid
 * render goes with it, so the preview shows the error alone, not old props under it. */
export function finishedPart(name, props, error) {
  return {
    type: "tool-call",
    tool_call_id: error ? `wb-preview-${name}-invalid` : `wb-preview-${name}`,
    tool_name: `show_component_${name}`,
    component_call: { component: name, component_id: `wb-preview-${name}` },
    args_text: JSON.stringify(props ?? {}),
    args_complete: true,
    has_result: !!error,
    is_error: !!error,
    result: error ?? undefined,
  };
}

const pretty = (value) => JSON.stringify(value, null, 2) ?? "";

/** "~612 tok" (`~`: an estimate, not the model's tokenizer); "" without a count. */
export function tokensLabel(row) {
  if (!row || typeof row.tokens !== "number") return "";
  return `${row.estimated ? "~" : ""}${row.tokens.toLocaleString("en")} tok`;
}

/**
 * @param {{model: any, el: HTMLElement, setTimer?: Function, clearTimer?: Function}} opts
 */
export function createWorkbench({ model, el, setTimer = setTimeout, clearTimer = clearTimeout }) {
  const send = (msg) => model.send(msg);
  const resources = resourcesFor(model);
  const cctx = createComponentContext({ model, send: () => {}, resources });
  const list = h("nav.gu-wb-list", { "aria-label": "Registry" });
  const detail = h("section.gu-wb-detail");
  // "gu-chat": the chat's theme and component styles apply as they do in a chat
  const root = h("div.gu-chat.gu-workbench", {}, list, detail);
  el.replaceChildren(root);
  const stopLoads = listenForLoads(root, resources);

  let ref = 0;
  const latest = { check: -1, replay: -1 };
  let current = null; // the view of the selected entry
  let checkTimer = null;

  const costOf = (name) => model.get("cost")?.entries?.[name] ?? null;
  const costLine = (name) => {
    const row = costOf(name);
    if (!row) return "";
    const how = row.estimated ? "estimated" : `counted with ${row.tokenizer}`;
    return h("p.gu-wb-cost", { text: `Adds ${tokensLabel(row)}ens to every request (its schema as the model sees it, ${how}).` });
  };
  const components = () => (Array.isArray(model.get("components")) ? model.get("components") : []);
  const tools = () => (Array.isArray(model.get("tools")) ? model.get("tools") : []);

  const schemaBlock = (schema) =>
    h("details.gu-wb-details", {}, h("summary", { text: "Props schema" }), h("pre.gu-wb-code", { text: pretty(schema) }));

  const showTool = (tool) => {
    current?.destroy?.();
    current = null;
    detail.replaceChildren(
      h("h3.gu-wb-title", {}, tool.name, " ", h("span.gu-wb-kind", { text: "tool" })),
      h("p.gu-wb-description", { text: tool.description || "(no description)" }),
      costLine(tool.name),
      h("details.gu-wb-details", { open: true }, h("summary", { text: "Parameters schema" }), h("pre.gu-wb-code", { text: pretty(tool.schema) })),
    );
  };

  const showComponent = (entry) => {
    current?.destroy?.();
    const samples = Array.isArray(entry.samples) ? entry.samples : [];
    const slot = createComponentSlot(cctx);
    const editor = h("textarea.gu-wb-editor", { spellcheck: "false", rows: "8", "aria-label": `Props of ${entry.name} (JSON)` });
    const sampleBar = h("div.gu-wb-samples", { role: "group", "aria-label": "Sample props" });
    const replay = createReplay({
      cctx,
      request: (chunkChars) => {
        latest.replay = ++ref;
        send(toKernel.replay(ref, entry.name, editor.value, chunkChars));
      },
    });
    // Invalid props: the preview says why ("Not shown: ...", as the chat does),
    // the one place the error shows, and nothing of the props before.
    const render = (props, problem) => {
      const shown = !problem && props && typeof props === "object" ? props : {};
      slot.update(finishedPart(entry.name, shown, problem), shown, undefined, { streaming: false });
    };
    // A sample stays pressed while the editor holds its props.
    const pressSamples = () => {
      samples.forEach((sample, i) => buttons[i].setAttribute("aria-pressed", String(editor.value === pretty(sample.props))));
    };
    const askCheck = () => {
      latest.check = ++ref;
      send(toKernel.checkProps(ref, entry.name, editor.value));
      latest.replay = ++ref;
      send(toKernel.replay(ref, entry.name, editor.value, replay.chunkChars()));
    };
    const choose = (sample) => {
      editor.value = pretty(sample.props);
      pressSamples();
      render(sample.props, sample.error);
      askCheck(); // a Python component renders in the kernel; the replay's states come from it
    };
    const buttons = samples.map((sample) => {
      const button = h("button.gu-wb-sample", {
        type: "button",
        "aria-pressed": "false",
        "data-invalid": sample.error ? "true" : undefined,
        title: sample.error ?? "valid props",
        text: sample.error ? `${sample.label} ✗` : sample.label,
      });
      button.addEventListener("click", () => choose(sample));
      return button;
    });
    sampleBar.append(...buttons);
    editor.addEventListener("input", () => {
      pressSamples();
      clearTimer(checkTimer);
      checkTimer = setTimer(askCheck, CHECK_DEBOUNCE_MS);
    });
    detail.replaceChildren(
      h("h3.gu-wb-title", {}, entry.name, " ", h("code.gu-wb-kind", { text: entry.tool_name })),
      h("p.gu-wb-description", { text: entry.description || "(no description)" }),
      costLine(entry.name),
      schemaBlock(entry.schema),
      samples.length ? sampleBar : h("p.gu-wb-note", { text: "No sample props: edit them below." }),
      h("div.gu-wb-stage", {}, slot.el),
      h("label.gu-wb-label", {}, "Props (JSON)", editor),
      replay.el,
    );
    current = {
      name: entry.name,
      onChecked: (msg) => render(msg.props, msg.error),
      onStates: (msg) => replay.setStates(entry.name, msg.states, msg.error),
      destroy: () => {
        clearTimer(checkTimer);
        slot.destroy();
        replay.destroy();
      },
    };
    if (buttons.length) choose(samples[0]);
    else editor.value = "{}";
  };

  const select = (button, show) => {
    for (const b of list.querySelectorAll("button")) b.setAttribute("aria-current", String(b === button));
    show();
  };
  const showEvaluation = (view) => {
    current?.destroy?.();
    const hosts = [];
    const mount = (builtin, props) => {
      const el = h("div.gu-component");
      hosts.push(mountComponent({ el, spec: { name: builtin, kind: "builtin", builtin }, props, status: { streaming: false, fields: {} }, resources }));
      return h("div.gu-wb-stage", {}, el);
    };
    const accuracy = typeof view.accuracy === "number" ? `Accuracy ${(view.accuracy * 100).toFixed(0)}% over the prompts with an expected call.` : "No expected calls given.";
    detail.replaceChildren(
      h("h3.gu-wb-title", { text: "Evaluation" }),
      h("p.gu-wb-description", { text: accuracy }),
      mount("chart", view.chart),
      mount("table", view.table),
    );
    current = { name: "", onChecked() {}, onStates() {}, destroy: () => hosts.forEach((host) => host.destroy()) };
  };
  const item = (label, kind, onShow) => {
    const button = h("button.gu-wb-item", { type: "button", "aria-current": "false", "data-kind": kind }, h("span.gu-wb-name", { text: label }));
    const tokens = tokensLabel(costOf(label));
    if (tokens) button.append(h("span.gu-wb-tokens", { text: tokens }));
    button.addEventListener("click", () => select(button, onShow));
    return button;
  };
  const buildList = () => {
    const items = [
      ...components().map((c) => item(c.name, "component", () => showComponent(c))),
      ...tools().map((t) => item(t.name, "tool", () => showTool(t))),
    ];
    const groups = [h("div.gu-wb-group", { text: `Components (${components().length})` }), ...items.slice(0, components().length)];
    if (tools().length) groups.push(h("div.gu-wb-group", { text: `Tools (${tools().length})` }), ...items.slice(components().length));
    const total = model.get("cost")?.total;
    if (total && typeof total.tokens === "number") {
      const note = `${total.tokenizer}${total.note ? `: ${total.note}` : ""}`;
      groups.push(h("div.gu-wb-total", { title: note, text: `${tokensLabel(total)}ens per request` }));
    }
    const view = model.get("evaluation");
    const evaluation = view?.table ? item("Evaluation", "evaluation", () => showEvaluation(view)) : null;
    if (evaluation) groups.push(h("div.gu-wb-group", { text: "Selection eval" }), evaluation);
    list.replaceChildren(...groups);
    if (evaluation && selectEvaluation) evaluation.click();
    else if (items.length) items[0].click();
    else detail.replaceChildren(h("p.gu-wb-note", { text: "The registry is empty." }));
  };

  const onCustom = (raw) => {
    const msg = readReply(raw);
    if (!msg || !current || msg.name !== current.name) return;
    ON_REPLY[msg.type](current, latest, msg);
  };
  let selectEvaluation = false;
  const onEvaluation = () => {
    selectEvaluation = true;
    buildList();
  };
  model.on("msg:custom", onCustom);
  model.on("change:components", buildList);
  model.on("change:tools", buildList);
  model.on("change:cost", buildList);
  model.on("change:evaluation", onEvaluation);
  buildList();

  return () => {
    model.off("msg:custom", onCustom);
    model.off("change:components", buildList);
    model.off("change:tools", buildList);
    model.off("change:cost", buildList);
    model.off("change:evaluation", onEvaluation);
    current?.destroy?.();
    cctx.destroy();
    stopLoads?.();
  };
}

export default {
  render({ model, el }) {
    el.classList.add("gu-widget"); // a size container: the layout follows the widget's width
    return createWorkbench({ model, el });
  },
};
