// The header's model picker: a listbox button, keyboard first, sending one
// `choose_model` message per choice and showing what the kernel says is in use.
import { describe, expect, it } from "vitest";
import { createModelPicker, readModelChoices } from "../src/model-picker.js";
import { ChatView } from "../src/widget.js";
import { FakeModel } from "./helpers/fake-model.js";

const CHOICES = [
  { id: "openai:gpt-4o-mini", name: "gpt-4o-mini", provider: "openai" },
  { id: "anthropic:claude-sonnet-4-5", name: "claude-sonnet-4-5", provider: "anthropic" },
  { id: "demo", name: "demo", provider: "offline" },
];

function picker(current = "openai:gpt-4o-mini") {
  const sent = [];
  const p = createModelPicker({ send: (msg) => sent.push(msg) });
  document.body.append(p.el);
  p.update(CHOICES, current, "gpt-4o-mini");
  const button = p.el.querySelector("button");
  const list = p.el.querySelector("[role=listbox]");
  const key = (target, k) => target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
  const active = () => list.querySelector(".gu-active")?.textContent;
  return { p, sent, button, list, key, active };
}

describe("model picker", () => {
  it("is a button naming the model, with a chevron, that opens a listbox", () => {
    const { p, button, list } = picker();
    expect(p.el.hidden).toBe(false);
    expect(button.getAttribute("aria-haspopup")).toBe("listbox");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(button.querySelector(".gu-model-picker-name").textContent).toBe("gpt-4o-mini");
    expect(button.querySelector("svg.gu-model-picker-chevron")).not.toBeNull();
    expect(p.el.querySelector("select")).toBeNull();
    expect(list.hidden).toBe(true);
    const options = [...list.querySelectorAll("[role=option]")];
    expect(options.map((o) => o.getAttribute("aria-selected"))).toEqual(["true", "false", "false"]);
    expect(options[1].textContent).toBe("claude-sonnet-4-5anthropic");
    button.click();
    expect(list.hidden).toBe(false);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(document.activeElement).toBe(list);
  });

  it("opens with ArrowDown on the current model, moves with arrows, chooses with Enter", () => {
    const { sent, button, list, key, active } = picker("anthropic:claude-sonnet-4-5");
    button.focus();
    key(button, "ArrowDown");
    expect(list.hidden).toBe(false);
    expect(active()).toBe("claude-sonnet-4-5anthropic");
    expect(list.getAttribute("aria-activedescendant")).toBe(list.querySelector(".gu-active").id);
    key(list, "ArrowDown");
    expect(active()).toBe("demooffline");
    key(list, "ArrowDown"); // stays on the last
    expect(active()).toBe("demooffline");
    key(list, "Home");
    expect(active()).toBe("gpt-4o-miniopenai");
    key(list, "Enter");
    expect(sent).toEqual([{ type: "choose_model", model: "openai:gpt-4o-mini" }]);
    expect(list.hidden).toBe(true);
    expect(document.activeElement).toBe(button);
  });

  it("Space chooses; Escape closes without sending and gives focus back", () => {
    const { sent, button, list, key } = picker();
    button.click();
    key(list, "End");
    key(list, "Escape");
    expect(list.hidden).toBe(true);
    expect(sent).toEqual([]);
    expect(document.activeElement).toBe(button);
    button.click();
    key(list, "ArrowDown");
    key(list, " ");
    expect(sent).toEqual([{ type: "choose_model", model: "anthropic:claude-sonnet-4-5" }]);
  });

  it("choosing the model in use sends nothing; a click outside closes", () => {
    const { sent, button, list, key } = picker();
    button.click();
    key(list, "Enter");
    expect(sent).toEqual([]);
    button.click();
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(list.hidden).toBe(true);
  });

  it("keys pressed in it never reach the notebook's shortcuts", () => {
    const { button, list, key } = picker();
    let reached = 0;
    document.body.addEventListener("keydown", () => reached++);
    key(button, "ArrowDown");
    key(list, "ArrowDown");
    key(list, "Escape");
    expect(reached).toBe(0);
  });

  it("shows the kernel's model when it is not listed, and hides with no choices", () => {
    const { p, button } = picker();
    p.update(CHOICES, "", "my-own-model");
    expect(button.textContent).toBe("my-own-model");
    expect([...p.el.querySelectorAll("[aria-selected=true]")]).toEqual([]);
    p.update([], "", "x");
    expect(p.el.hidden).toBe(true);
    expect(p.shown).toBe(false);
  });

  it("reads only well-formed choices from the trait, each id once", () => {
    expect(readModelChoices(null)).toEqual([]);
    expect(
      readModelChoices([
        { id: "a", name: "A", provider: "p" },
        { id: "a", name: "again" },
        { id: "", name: "no id" },
        { name: "no id" },
        { id: "b", name: 3 },
        "c",
      ]),
    ).toEqual([
      { id: "a", name: "A", provider: "p" },
      { id: "b", name: "b", provider: "" },
    ]);
  });
});

describe("the chat's header", () => {
  async function chat(state) {
    const model = new FakeModel({ _chat_key: `k-${Math.random()}`, messages: [], model_name: "gpt-4o-mini", ...state });
    const el = document.createElement("div");
    const view = new ChatView(model, el);
    await view.start();
    return { model, el, view };
  }

  it("shows the picker in place of the name when the chat lists models", async () => {
    const { model, el, view } = await chat({ model_choices: CHOICES, model_choice: "openai:gpt-4o-mini" });
    const header = el.querySelector(".gu-header");
    expect(header.querySelector(".gu-model-name").hidden).toBe(true);
    expect(header.querySelector(".gu-model-picker").hidden).toBe(false);
    header.querySelector(".gu-model-picker-button").click();
    header.querySelector("[role=listbox]").dispatchEvent(new KeyboardEvent("keydown", { key: "End" }));
    header.querySelector("[role=listbox]").dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toEqual({ type: "choose_model", model: "demo" });
    model.set("model_choice", "demo"); // the kernel's answer
    model.set("model_name", "offline demo");
    view.renderNow();
    expect(header.querySelector(".gu-model-picker-button").textContent).toBe("demo");
    view.destroy();
  });

  it("keeps the plain name with no models listed", async () => {
    const { el, view } = await chat({});
    expect(el.querySelector(".gu-model-name").hidden).toBe(false);
    expect(el.querySelector(".gu-model-name").textContent).toBe("gpt-4o-mini");
    expect(el.querySelector(".gu-model-picker").hidden).toBe(true);
    view.destroy();
  });
});
