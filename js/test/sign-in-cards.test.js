// A tool server's sign-in card (the chat's `sign_ins` trait): the whole
// authorization URL with its hidden characters flagged, opened only on a
// click (noopener), a paste field for a browser on another machine, Cancel.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSignInCards, onThisMachine, readSignIns, signInHost } from "../src/sign-in-cards.js";
import { ChatView } from "../src/widget.js";
import { FakeModel } from "./helpers/fake-model.js";

const URL_ = "https://auth.example.org/authorize?client_id=c1&state=s1&code_challenge=x";
const card = (extra = {}) => ({ id: "signin-1", server: "notes.example/mcp", url: URL_, redirect_uri: "http://127.0.0.1:40001/callback", listening: true, error: "", ...extra });

function cards(list, sameMachine = true) {
  const send = vi.fn();
  const view = createSignInCards({ send, sameMachine });
  view.update(readSignIns(list));
  return { send, view, el: view.el };
}

afterEach(() => vi.restoreAllMocks());

describe("sign-in card", () => {
  it("names the server, shows the whole URL and opens it only on a click, without an opener", () => {
    const opened = vi.spyOn(window, "open").mockImplementation(() => null);
    const { el, send } = cards([card()]);
    expect(el.hidden).toBe(false);
    expect(el.querySelector(".gu-request-title").textContent).toBe("notes.example/mcp asks you to sign in");
    expect(el.querySelector(".gu-request-url").textContent).toBe(URL_);
    expect(el.querySelector(".gu-sign-in-host").textContent).toContain("auth.example.org");
    expect(opened).not.toHaveBeenCalled();
    el.querySelector(".gu-approve").click();
    expect(opened).toHaveBeenCalledWith(URL_, "_blank", "noopener,noreferrer");
    expect(send).not.toHaveBeenCalled(); // opening decides nothing: the redirect does
  });

  it("flags invisible characters and a host in another script", () => {
    const hidden = "https://auth.example.org/authorize?x=1\u202Egnp.exe";
    const { el } = cards([card({ url: hidden })]);
    expect(el.textContent).toContain("1 invisible or bidirectional character");
    expect(el.textContent).toContain("RIGHT-TO-LEFT OVERRIDE");
    const idn = cards([card({ url: "https://аuth.example.org/authorize?state=s1" })]).el; // a Cyrillic а
    expect(idn.querySelector(".gu-sign-in-foreign").textContent).toContain("xn--");
    expect(signInHost("https://аuth.example.org/").foreign).toBe(true);
    expect(signInHost(URL_).foreign).toBe(false);
  });

  it("does not open an address that is not a web address", () => {
    const opened = vi.spyOn(window, "open").mockImplementation(() => null);
    const { el } = cards([card({ url: "javascript:alert(1)" })]);
    const button = el.querySelector(".gu-approve");
    expect(button.disabled).toBe(true);
    button.click();
    expect(opened).not.toHaveBeenCalled();
  });

  it("sends the pasted address, clears the field, and shows the kernel's refusal", () => {
    const { el, send, view } = cards([card()], false);
    const details = el.querySelector("details.gu-sign-in-elsewhere");
    expect(details.open).toBe(true); // a browser elsewhere: the field is the way back
    const field = el.querySelector(".gu-sign-in-paste");
    field.value = " http://127.0.0.1:40001/callback?code=abc&state=s1 ";
    el.querySelector(".gu-sign-in-send").click();
    expect(send).toHaveBeenCalledWith({ type: "sign_in", id: "signin-1", action: "paste", url: "http://127.0.0.1:40001/callback?code=abc&state=s1" });
    expect(field.value).toBe(""); // the code is not kept in the page
    view.update(readSignIns([card({ error: "that address belongs to another sign-in" })]));
    expect(el.querySelector(".gu-sign-in-paste")).toBe(field); // the card is not redrawn
    expect(el.querySelector(".gu-sign-in-error").hidden).toBe(false);
    expect(el.querySelector(".gu-sign-in-error").textContent).toContain("another sign-in");
  });

  it("on the kernel's machine it says the browser comes back by itself; Cancel ends it", () => {
    const { el, send, view } = cards([card()], true);
    expect(el.querySelector(".gu-sign-in-wait")).not.toBeNull();
    expect(el.querySelector("details.gu-sign-in-elsewhere").open).toBe(false);
    el.querySelector(".gu-reject").click();
    expect(send).toHaveBeenCalledWith({ type: "sign_in", id: "signin-1", action: "cancel" });
    view.update([]);
    expect(el.hidden).toBe(true);
    expect(el.children.length).toBe(0);
  });

  it("drops malformed cards and knows a loopback page", () => {
    expect(readSignIns([null, { id: 3 }, { id: "a" }, card()]).map((c) => c.id)).toEqual(["signin-1"]);
    expect(readSignIns("x")).toEqual([]);
    expect(onThisMachine("localhost")).toBe(true);
    expect(onThisMachine("hub.example.org")).toBe(false);
  });
});

describe("the chat shows the sign_ins trait", () => {
  it("draws a card when the trait changes and removes it when it ends", async () => {
    const model = new FakeModel({ _chat_key: `chat-${Math.random()}`, messages: [], phase: "idle", running: false, suggestions: [], human_tools: [], sign_ins: [] });
    const el = document.createElement("div");
    const v = new ChatView(model, el);
    await v.start();
    model.set("sign_ins", [card()]);
    await new Promise((r) => setTimeout(r, 30));
    expect(el.querySelector(".gu-sign-in .gu-request-title").textContent).toContain("asks you to sign in");
    el.querySelector(".gu-sign-in .gu-reject").click();
    expect(model.sent).toContainEqual({ type: "sign_in", id: "signin-1", action: "cancel" });
    model.set("sign_ins", []);
    await new Promise((r) => setTimeout(r, 30));
    expect(el.querySelector(".gu-sign-in")).toBeNull();
  });
});
