// Starters with a form: the server's prompts that need arguments, a chip that
// opens a small form, completions while typing, Send through the kernel, and
// a refusal that keeps what was typed.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toKernel } from "../../src/protocol.js";
import {
  DEBOUNCE_MS,
  MAX_IN_FLIGHT,
  MAX_SHOWN,
  createStarterForms,
  readStarterForms,
} from "../../src/thread/starter-form.js";
import { createThreadView } from "../../src/thread/view.js";

const PLAN = {
  id: "0/plan_trip",
  title: "Plan a trip",
  description: "Where and how long.",
  arguments: [
    { name: "city", description: "The city to visit", required: true },
    { name: "days", description: "", required: false },
  ],
};

function setup(forms = [PLAN]) {
  const send = vi.fn();
  let n = 0;
  const sf = createStarterForms({ send, toKernel, tag: () => `v-${++n}` });
  document.body.replaceChildren(sf.el);
  sf.update(forms, true);
  return { sf, send, sent: (type) => send.mock.calls.map(([m]) => m).filter((m) => m.type === type) };
}

const chip = (sf, title = "Plan a trip…") =>
  [...sf.el.querySelectorAll("button.gu-starter-form-chip")].find((b) => b.textContent === title);
const field = (sf, name) =>
  [...sf.el.querySelectorAll(".gu-starter-field")].find(
    (f) => f.querySelector(".gu-starter-field-name").textContent === name,
  );
const input = (sf, name) => field(sf, name).querySelector("input");

function type(el, value) {
  el.focus();
  el.value = value;
  el.dispatchEvent(new Event("input"));
}

function submit(sf) {
  sf.el.querySelector("form").dispatchEvent(new Event("submit", { cancelable: true }));
}

describe("starter forms", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("reads only well-formed forms from the trait", () => {
    const bad = [
      null,
      { id: "", arguments: [] },
      { id: "x", arguments: "city" },
      { id: "y", arguments: [{ name: 3 }] },
      { id: "z", arguments: Array.from({ length: 11 }, (_, i) => ({ name: `a${i}` })) },
    ];
    const read = readStarterForms([...bad, { ...PLAN, title: "" }, "nope"]);
    expect(read.map((f) => f.id)).toEqual(["0/plan_trip"]);
    expect(read[0].title).toBe("0/plan_trip"); // no title: its id names it
    expect(readStarterForms({ forms: [] })).toEqual([]);
  });

  it("a chip opens a form with one field per argument, required marked, as text", () => {
    const hostile = { ...PLAN, title: "<img src=x onerror=alert(1)>", description: "<b>bold</b>" };
    const { sf } = setup([hostile]);
    chip(sf, "<img src=x onerror=alert(1)>…").click();
    const form = sf.el.querySelector("form.gu-starter-form");
    expect(form.querySelector(".gu-starter-form-title").textContent).toBe("<img src=x onerror=alert(1)>");
    expect(form.querySelector("img, b")).toBeNull();
    const city = field(sf, "city");
    expect(city.querySelector(".gu-required")).not.toBeNull();
    expect(city.querySelector(".gu-sr-only").textContent).toBe(" (required)");
    expect(city.querySelector(".gu-starter-field-hint").textContent).toBe("The city to visit");
    expect(input(sf, "city").getAttribute("aria-required")).toBe("true");
    expect(input(sf, "city").getAttribute("aria-describedby")).toBe(
      city.querySelector(".gu-starter-field-hint").id,
    );
    expect(field(sf, "days").querySelector(".gu-required")).toBeNull();
    expect(document.activeElement).toBe(input(sf, "city"));
  });

  it("asks completions debounced, with the other fields as context, and lists the answer as text", () => {
    const { sf, sent } = setup();
    chip(sf).click();
    type(input(sf, "days"), "2");
    vi.advanceTimersByTime(DEBOUNCE_MS);
    type(input(sf, "city"), "p");
    type(input(sf, "city"), "pa");
    vi.advanceTimersByTime(DEBOUNCE_MS - 1);
    expect(sent("complete").map((m) => m.argument)).toEqual(["days"]);
    vi.advanceTimersByTime(1);
    const asks = sent("complete");
    expect(asks).toHaveLength(2); // one per pause, not per key
    const ask = asks[1];
    expect(ask).toMatchObject({ prompt: "0/plan_trip", argument: "city", value: "pa", context: { days: "2" } });
    sf.completion({ type: "completion", request: asks[0].request, prompt: ask.prompt, argument: "days", values: ["9"] });
    const many = ["Paris", "<b>Padua</b>", "x".repeat(201), ...Array.from({ length: 20 }, (_, i) => `C${i}`)];
    sf.completion({ type: "completion", request: ask.request, prompt: ask.prompt, argument: "city", values: many });
    const options = field(sf, "city").querySelectorAll("[role=option]");
    expect(options).toHaveLength(MAX_SHOWN);
    expect(options[0].textContent).toBe("Paris");
    expect(options[1].textContent).toBe("<b>Padua</b>");
    expect(field(sf, "city").querySelector("b")).toBeNull();
    expect([...options].some((o) => o.textContent.length > 200)).toBe(false);
    // the days answer came while the city field had the focus: not shown
    expect(field(sf, "days").querySelectorAll("[role=option]")).toHaveLength(0);
  });

  it("picks a suggestion with the keyboard or the pointer; an older answer is dropped", () => {
    const { sf, sent } = setup();
    chip(sf).click();
    const city = input(sf, "city");
    type(city, "p");
    vi.advanceTimersByTime(DEBOUNCE_MS);
    type(city, "pa");
    vi.advanceTimersByTime(DEBOUNCE_MS);
    const [older, newer] = sent("complete");
    const answer = (req, values) => sf.completion({ type: "completion", request: req.request, prompt: "0/plan_trip", argument: "city", values });
    answer(older, ["Porto"]);
    expect(field(sf, "city").querySelectorAll("[role=option]")).toHaveLength(0);
    answer(newer, ["Paris", "Padua"]);
    city.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    city.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    expect(city.getAttribute("aria-activedescendant")).toBe(field(sf, "city").querySelectorAll("[role=option]")[1].id);
    city.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", cancelable: true }));
    expect(city.value).toBe("Padua");
    type(city, "P");
    vi.advanceTimersByTime(DEBOUNCE_MS);
    answer(sent("complete").at(-1), ["Paris"]);
    field(sf, "city").querySelector("[role=option]").dispatchEvent(new MouseEvent("mousedown", { cancelable: true }));
    expect(city.value).toBe("Paris");
  });

  it("keeps at most a few completions in flight; an answer lets the next go", () => {
    const { sf, sent } = setup();
    chip(sf).click();
    for (const [name, value] of [["city", "a"], ["days", "1"], ["city", "b"]]) {
      type(input(sf, name), value);
      vi.advanceTimersByTime(DEBOUNCE_MS);
    }
    expect(sent("complete")).toHaveLength(MAX_IN_FLIGHT);
    const first = sent("complete")[0];
    sf.completion({ type: "completion", request: first.request, prompt: first.prompt, argument: first.argument, values: [] });
    sf.completion({ type: "completion", request: 12345, prompt: first.prompt, argument: "city", values: [] }); // another view's
    vi.advanceTimersByTime(DEBOUNCE_MS);
    expect(sent("complete")).toHaveLength(MAX_IN_FLIGHT + 1);
    expect(sent("complete").at(-1)).toMatchObject({ argument: "city", value: "b" });
  });

  it("Send goes to the kernel; only its accepted closes the form", () => {
    const { sf, sent } = setup();
    chip(sf).click();
    submit(sf);
    expect(sf.el.querySelector(".gu-starter-form-error").textContent).toBe("Fill in city first.");
    expect(sent("starter_form")).toEqual([]);
    type(input(sf, "city"), "Oslo");
    type(input(sf, "days"), "2");
    submit(sf);
    submit(sf); // a second click while the first is out
    const [msg] = sent("starter_form");
    expect(sent("starter_form")).toHaveLength(1);
    expect(msg).toEqual({ type: "starter_form", prompt: "0/plan_trip", fields: { city: "Oslo", days: "2" }, ref: "v-1" });
    expect(sf.el.querySelector(".gu-starter-form-error").hidden).toBe(true);
    expect(sf.accepted({ type: "accepted", request: "starter_form", ref: "v-9" })).toBe(false);
    expect(sf.el.querySelector("form")).not.toBeNull();
    expect(sf.accepted({ type: "accepted", request: "starter_form", ref: "v-1" })).toBe(true);
    expect(sf.el.querySelector("form")).toBeNull();
  });

  it("a refusal shows in the form and keeps every value", () => {
    const { sf, sent } = setup();
    chip(sf).click();
    type(input(sf, "city"), "Atlantis");
    submit(sf);
    const { ref, fields } = sent("starter_form")[0];
    expect(fields).toEqual({ city: "Atlantis" }); // days left blank: its default stands
    const said = "Plan a trip could not be filled: no such city";
    expect(sf.refused({ type: "error", request: "starter_form", ref, message: said })).toBe(true);
    const error = sf.el.querySelector(".gu-starter-form-error");
    expect(error.textContent).toBe(said);
    expect(error.getAttribute("role")).toBe("alert");
    expect(input(sf, "city").value).toBe("Atlantis");
    const send = sf.el.querySelector("button.gu-starter-form-send");
    expect(send.disabled).toBe(false);
    submit(sf); // the user may try again
    expect(sent("starter_form")).toHaveLength(2);
  });

  it("follows the trait: a form the server took back goes, one still offered keeps its values", () => {
    const other = { id: "0/welcome", title: "Welcome", description: "", arguments: [{ name: "who", description: "", required: true }] };
    const { sf } = setup([PLAN]);
    chip(sf).click();
    type(input(sf, "city"), "Oslo");
    sf.update([PLAN, other], true);
    expect([...sf.el.querySelectorAll(".gu-starter-form-chip")].map((c) => c.textContent)).toEqual(["Plan a trip…", "Welcome…"]);
    expect(input(sf, "city").value).toBe("Oslo");
    sf.update([other], true);
    expect(sf.el.querySelector("form")).toBeNull();
    expect(sf.el.querySelectorAll(".gu-starter-form-chip")).toHaveLength(1);
    sf.update([other], false); // a run, or a thread with messages: none shown
    expect(sf.el.querySelector(".gu-starter-forms").hidden).toBe(true);
  });

  it("the empty thread draws the forms of the trait beside its starters", () => {
    const send = vi.fn();
    const view = createThreadView({ send, notify: () => {}, isHuman: () => false, toKernel, tag: () => "t-1" });
    view.render([], { running: false, starters: ["Say hi"], starterForms: [PLAN] });
    expect(view.el.querySelector(".gu-starter-form-chip").textContent).toBe("Plan a trip…");
    view.render([], { running: false, starters: ["Say hi"], starterForms: [] });
    expect(view.el.querySelector(".gu-starter-form-chip")).toBeNull();
  });
});
