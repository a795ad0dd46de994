// A chat view's starters with a form: drawn from the `starter_forms` trait on
// an empty thread, following it when it changes, and the kernel's answers
// (`completion`, `accepted`, `error` for a form) reaching the form, not the
// chat's notice.
import { describe, expect, it } from "vitest";
import { ChatView } from "../src/widget.js";
import { FakeModel } from "./helpers/fake-model.js";

const PLAN = {
  id: "0/plan_trip",
  title: "Plan a trip",
  description: "",
  arguments: [{ name: "city", description: "", required: true }],
};

async function view(forms) {
  const model = new FakeModel(
    { _chat_key: `chat-${Math.random()}`, messages: [], phase: "idle", running: false, suggestions: [], human_tools: [], starters: ["Say hi"], starter_forms: forms },
    { get_model: async () => null },
  );
  const el = document.createElement("div");
  document.body.replaceChildren(el);
  const v = new ChatView(model, el);
  await v.start();
  return { model, v, el };
}

const chips = (el) => [...el.querySelectorAll(".gu-starter-form-chip")].map((c) => c.textContent);

describe("starters with a form in the chat view", () => {
  it("follow the trait, and the kernel's answers reach the open form", async () => {
    const { model, v, el } = await view([]);
    expect(chips(el)).toEqual([]);
    model.set("starter_forms", [PLAN]); // the server's list changed
    v.renderNow();
    expect(chips(el)).toEqual(["Plan a trip…"]);
    el.querySelector(".gu-starter-form-chip").click();
    const city = el.querySelector(".gu-starter-field-input");
    city.value = "Oslo";
    el.querySelector("form.gu-starter-form").dispatchEvent(new Event("submit", { cancelable: true }));
    const sent = model.sent.find((m) => m.type === "starter_form");
    expect(sent).toMatchObject({ prompt: "0/plan_trip", fields: { city: "Oslo" } });
    const said = "Plan a trip could not be filled: the server is down";
    model.fire("msg:custom", { type: "error", request: "starter_form", ref: sent.ref, message: said });
    expect(el.querySelector(".gu-starter-form-error").textContent).toBe(said);
    expect(el.querySelector(".gu-notice").hidden).toBe(true); // said in the form only
    expect(city.value).toBe("Oslo");
    el.querySelector("form.gu-starter-form").dispatchEvent(new Event("submit", { cancelable: true }));
    const again = model.sent.filter((m) => m.type === "starter_form").at(-1);
    model.fire("msg:custom", { type: "accepted", request: "starter_form", ref: again.ref });
    expect(el.querySelector("form.gu-starter-form")).toBeNull();
    model.set("starter_forms", []);
    v.renderNow();
    expect(chips(el)).toEqual([]);
    v.destroy();
  });

  it("a completion from the kernel lists its suggestions in the field typed in", async () => {
    const { model, v, el } = await view([PLAN]);
    el.querySelector(".gu-starter-form-chip").click();
    const city = el.querySelector(".gu-starter-field-input");
    city.value = "pa";
    city.dispatchEvent(new Event("input"));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the debounce
    const ask = model.sent.find((m) => m.type === "complete");
    expect(ask).toMatchObject({ prompt: "0/plan_trip", argument: "city", value: "pa", context: {} });
    model.fire("msg:custom", { type: "completion", request: ask.request, prompt: ask.prompt, argument: "city", values: ["Paris"] });
    expect([...el.querySelectorAll(".gu-starter-suggestion")].map((o) => o.textContent)).toEqual(["Paris"]);
    model.fire("msg:custom", { type: "completion", request: ask.request, prompt: ask.prompt, argument: "city", values: [7] }); // malformed: dropped
    expect([...el.querySelectorAll(".gu-starter-suggestion")].map((o) => o.textContent)).toEqual(["Paris"]);
    v.destroy();
  });
});
