// gu.Workbench's frontend: the registry list, a preview in the chat's own
// component slot, kernel answers matched by ref, and the replay's scrubber.
import { describe, expect, it } from "vitest";
import { createWorkbench } from "../../src/workbench/index.js";
import { readReply } from "../../src/workbench/protocol.js";
import { FakeModel } from "../helpers/fake-model.js";

const markdown = {
  name: "Note",
  tool_name: "show_component_Note",
  description: "A note",
  schema: { type: "object", properties: { text: { type: "string" } } },
  samples: [
    { label: "example", props: { text: "**hello**" }, error: null },
    { label: "empty", props: {}, error: "invalid props for component Note: text: Field required" },
  ],
};

function mount(extra = {}) {
  const model = new FakeModel({
    ...extra,
    component_specs: [{ name: "Note", kind: "builtin", builtin: "markdown" }],
    components: [markdown],
    tools: [{ name: "forecast", description: "The weather", schema: { type: "object" } }],
    component_outputs: {},
    component_props: {},
  });
  const el = document.createElement("div");
  document.body.append(el);
  const timers = [];
  const destroy = createWorkbench({ model, el, setTimer: (fn) => timers.push(fn), clearTimer: () => {} });
  return { model, el, timers, destroy };
}

const replaySent = (model) => model.sent.filter((m) => m.type === "replay").at(-1);
const stage = (el) => el.querySelector(".gu-wb-detail > .gu-wb-stage .gu-component");
const replayStage = (el) => el.querySelector(".gu-wb-replay .gu-component");

describe("workbench", () => {
  it("lists components and tools and previews the first sample as the chat renders it", async () => {
    const { el, model } = mount();
    await Promise.resolve(); // a built-in module mounts a microtask later
    const items = [...el.querySelectorAll(".gu-wb-item")].map((b) => b.textContent);
    expect(items).toEqual(["Note", "forecast"]);
    expect(stage(el).dataset.status).toBe("complete");
    expect(stage(el).querySelector(".gu-component-body").innerHTML).toContain("<strong>hello</strong>");
    expect(replaySent(model)).toMatchObject({ name: "Note", text: JSON.stringify({ text: "**hello**" }, null, 2), chunk_chars: 8 });
  });

  it("shows an invalid sample's error once, in the preview, without the props before it", async () => {
    const { el, model } = mount();
    await Promise.resolve();
    expect(stage(el).querySelector(".gu-component-body")).not.toBeNull(); // the example rendered
    el.querySelectorAll(".gu-wb-sample")[1].click();
    const { error } = markdown.samples[1];
    expect(stage(el).dataset.status).toBe("error");
    expect(stage(el).querySelector(".gu-component-invalid").textContent).toBe(`Not shown: ${error}`);
    expect(stage(el).querySelector(".gu-component-body")).toBeNull(); // not the example's render under it
    // the kernel's replay of the same props comes with the same error: not said again
    const states = [{ text: "{}", props: {}, fields: { "": "complete" }, complete: true }];
    model.fire("msg:custom", { type: "replay_states", ref: replaySent(model).ref, name: "Note", states, error });
    expect(el.textContent.split(error).length - 1).toBe(1);
    expect(el.querySelector(".gu-wb-position").textContent).toContain("not shown: see the preview");
  });

  it("sends an edit to the kernel and shows only the answer to the latest one", () => {
    const { el, model, timers } = mount();
    const editor = el.querySelector("textarea.gu-wb-editor");
    editor.value = '{"text": 1}';
    editor.dispatchEvent(new Event("input"));
    timers.shift()();
    const check = model.sent.filter((m) => m.type === "check_props").at(-1);
    expect(check).toMatchObject({ name: "Note", text: '{"text": 1}' });
    model.fire("msg:custom", { type: "props_checked", ref: check.ref - 1, name: "Note", props: {}, error: "old" });
    expect(stage(el).dataset.status).not.toBe("error");
    model.fire("msg:custom", { type: "props_checked", ref: check.ref, name: "Note", props: { text: 1 }, error: "text: Input should be a valid string" });
    expect(stage(el).querySelector(".gu-component-invalid").textContent).toBe("Not shown: text: Input should be a valid string");
  });

  it("an edit unpresses the sample it left and clears a replay it cannot make", () => {
    const { el, model, timers } = mount();
    const [example] = el.querySelectorAll(".gu-wb-sample");
    expect(example.getAttribute("aria-pressed")).toBe("true");
    const states = [{ text: '{"text": "hi"}', props: { text: "hi" }, fields: { "": "complete", text: "complete" }, complete: true }];
    model.fire("msg:custom", { type: "replay_states", ref: replaySent(model).ref, name: "Note", states, error: null });
    expect(replayStage(el).dataset.status).toBe("complete");
    const editor = el.querySelector("textarea.gu-wb-editor");
    editor.value = '{"text": ';
    editor.dispatchEvent(new Event("input"));
    expect(example.getAttribute("aria-pressed")).toBe("false");
    timers.shift()();
    const error = "the props are not JSON: Expecting value: line 1 column 10 (char 9)";
    model.fire("msg:custom", { type: "replay_states", ref: replaySent(model).ref, name: "Note", states: [], error });
    expect(replayStage(el).dataset.status).not.toBe("complete"); // the old render is gone
    expect(el.querySelector(".gu-wb-replay pre").textContent).toBe("");
    editor.value = JSON.stringify(markdown.samples[0].props, null, 2); // back to the example's props
    editor.dispatchEvent(new Event("input"));
    expect(example.getAttribute("aria-pressed")).toBe("true");
  });

  it("scrubs the kernel's partial states: a placeholder, then half-formed props, then complete", () => {
    const { el, model } = mount();
    const { ref } = replaySent(model);
    const states = [
      { text: '{"te', props: {}, fields: { "": "streaming" }, complete: false },
      { text: '{"text": "**he', props: { text: "**he" }, fields: { "": "streaming", text: "streaming" }, complete: false },
      { text: '{"text": "**hello**"}', props: { text: "**hello**" }, fields: { "": "complete", text: "complete" }, complete: true },
    ];
    model.fire("msg:custom", { type: "replay_states", ref, name: "Note", states, error: null });
    const scrub = el.querySelector("input.gu-wb-scrub");
    expect(scrub.max).toBe("2");
    const at = (i) => {
      scrub.value = String(i);
      scrub.dispatchEvent(new Event("input"));
      return replayStage(el);
    };
    expect(at(0).dataset.status).toBe("preparing");
    expect(at(0).textContent).toContain("Preparing the note");
    expect(at(1).dataset.status).toBe("streaming");
    expect(JSON.parse(el.querySelectorAll(".gu-wb-replay pre")[1].textContent)).toEqual({ text: "**he" });
    expect(el.querySelector(".gu-wb-position").textContent).toBe("2 / 3 · 14 chars");
    expect(at(2).dataset.status).toBe("complete");
  });

  it("asks for the whole arguments at once", () => {
    const { el, model } = mount();
    const whole = el.querySelector('.gu-wb-replay input[type="checkbox"]');
    whole.checked = true;
    whole.dispatchEvent(new Event("change"));
    expect(replaySent(model).chunk_chars).toBe(0);
  });

  it("shows each entry's tokens, the registry's total and an evaluation's chart and table", async () => {
    const cost = {
      entries: { Note: { kind: "component", tokens: 1234, estimated: true, tokenizer: "estimate" } },
      total: { tokens: 1300, estimated: false, tokenizer: "o200k_base", note: "" },
    };
    const { el, model } = mount({ cost });
    expect(el.querySelector(".gu-wb-tokens").textContent).toBe("~1,234 tok");
    expect(el.querySelector(".gu-wb-total").textContent).toBe("1,300 tokens per request");
    expect(el.querySelector(".gu-wb-cost").textContent).toContain("Adds ~1,234 tokens to every request");
    model.set("evaluation", {
      table: { columns: ["prompt", "called"], rows: [{ prompt: "hi", called: "Note" }] },
      chart: { kind: "bar", x: ["Note"], series: [{ name: "prompts", values: [1] }] },
      accuracy: 0.5,
    });
    await Promise.resolve();
    expect(el.querySelector('.gu-wb-item[data-kind="evaluation"]').getAttribute("aria-current")).toBe("true");
    expect(el.querySelector(".gu-wb-description").textContent).toContain("Accuracy 50%");
    expect(el.querySelectorAll(".gu-wb-detail .gu-component-body").length).toBe(2);
    expect(el.querySelector(".gu-wb-detail table").textContent).toContain("hi");
  });

  it("reads only well-formed replies", () => {
    expect(readReply({ type: "replay_states", ref: 1, name: "a", states: [{ text: "", complete: false }], error: null })).not.toBeNull();
    expect(readReply({ type: "replay_states", ref: 1, name: "a", states: [{ text: 1 }], error: null })).toBeNull();
    expect(readReply({ type: "props_checked", name: "a", error: null })).toBeNull();
    expect(readReply({ type: "other", ref: 1 })).toBeNull();
  });
});
