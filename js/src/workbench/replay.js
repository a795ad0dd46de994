// The replay panel: a scrubber over the kernel's partial states of a
// component's props (workbench/_replay.py), each rendered in a chat slot as
// the chat renders a call whose arguments stream.

import { h, setText } from "../common/dom.js";
import { createComponentSlot } from "../components/slot.js";

export const DEFAULT_CHUNK = 8;
export const DEFAULT_INTERVAL_MS = 80;

/** A tool-call part as the chat holds it while its arguments stream (the
 * props' error is the preview's to show: workbench/index.js). */
export function streamingPart(name, state, n) {
  return {
    type: "tool-call",
    tool_call_id: `wb-replay-${name}-${n}`,
    tool_name: `show_component_${name}`,
    component_call: { component: name, component_id: `wb-replay-${name}` },
    args_text: state.text,
    args_complete: state.complete,
    has_result: false,
    is_error: false,
  };
}

/**
 * @param {{cctx: any, request: (chunkChars: number) => void, setTimer?: Function, clearTimer?: Function}} opts
 */
export function createReplay({ cctx, request, setTimer = setInterval, clearTimer = clearInterval }) {
  const chunk = h("input.gu-wb-number", { type: "number", min: "1", max: "10000", value: String(DEFAULT_CHUNK), "aria-label": "Characters per chunk" });
  const whole = h("input", { type: "checkbox", "aria-label": "Whole arguments at once" });
  const interval = h("input.gu-wb-number", { type: "number", min: "10", max: "5000", value: String(DEFAULT_INTERVAL_MS), "aria-label": "Milliseconds per chunk" });
  const play = h("button.gu-wb-button", { type: "button", text: "Play" });
  const scrub = h("input.gu-wb-scrub", { type: "range", min: "0", max: "0", value: "0", "aria-label": "Partial state" });
  const position = h("span.gu-wb-position", { "aria-live": "polite" });
  let slot = createComponentSlot(cctx);
  const stage = h("div.gu-wb-stage", {}, slot.el);
  const text = h("pre.gu-wb-code");
  const props = h("pre.gu-wb-code");
  const el = h(
    "section.gu-wb-replay",
    {},
    h("h4.gu-wb-heading", { text: "Streaming replay" }),
    h(
      "div.gu-wb-controls",
      {},
      h("label.gu-wb-control", {}, "chunk ", chunk, " chars"),
      h("label.gu-wb-control", {}, whole, " whole arguments at once"),
      h("label.gu-wb-control", {}, "every ", interval, " ms"),
      play,
    ),
    h("div.gu-wb-controls", {}, scrub, position),
    stage,
    h("details.gu-wb-details", {}, h("summary", { text: "Text received" }), text),
    h("details.gu-wb-details", { open: true }, h("summary", { text: "Props the component received" }), props),
  );

  let name = "";
  let states = [];
  let error = null;
  let timer = null;

  const stop = () => {
    if (timer !== null) clearTimer(timer);
    timer = null;
    setText(play, "Play");
  };
  /** Nothing to replay (props that are not JSON): no render of earlier props stays. */
  const clear = () => {
    slot.destroy();
    slot = createComponentSlot(cctx);
    stage.replaceChildren(slot.el);
    setText(text, "");
    setText(props, "");
    setText(position, error ? "Nothing to replay: the props above are not shown." : "");
  };
  const showState = (i) => {
    const state = states[i];
    if (!state) return clear();
    scrub.value = String(i);
    const chars = state.text.length;
    const end = state.complete ? (error ? " · complete, not shown: see the preview" : " · complete") : "";
    setText(position, `${i + 1} / ${states.length} · ${chars} chars${end}`);
    setText(text, state.text);
    setText(props, JSON.stringify(state.props, null, 2) ?? "null");
    const args = state.props && typeof state.props === "object" && !Array.isArray(state.props) ? state.props : {};
    slot.update(streamingPart(name, state, i), args, i, { streaming: !state.complete });
  };
  const chunkChars = () => (whole.checked ? 0 : Math.max(1, Math.min(10000, Number(chunk.value) || DEFAULT_CHUNK)));

  scrub.addEventListener("input", () => {
    stop();
    showState(Number(scrub.value));
  });
  const ask = () => {
    stop();
    request(chunkChars());
  };
  chunk.addEventListener("change", ask);
  whole.addEventListener("change", () => {
    chunk.disabled = whole.checked;
    ask();
  });
  play.addEventListener("click", () => {
    if (timer !== null) return stop();
    if (Number(scrub.value) >= states.length - 1) showState(0);
    setText(play, "Pause");
    const ms = Math.max(10, Number(interval.value) || DEFAULT_INTERVAL_MS);
    timer = setTimer(() => {
      const next = Number(scrub.value) + 1;
      if (next >= states.length) stop();
      else showState(next);
    }, ms);
  });

  return {
    el,
    chunkChars,
    /** The kernel's states for `forName`'s props (each one chunk later). */
    setStates(forName, next, nextError) {
      stop();
      name = forName;
      states = next;
      error = nextError;
      scrub.max = String(Math.max(0, states.length - 1));
      showState(states.length - 1);
    },
    destroy() {
      stop();
      slot.destroy();
    },
  };
}
