// Built-in A2UI: the surfaces a `show_a2ui` call's messages build, drawn as
// the messages stream (each frame applies what has arrived; a component not
// yet defined shows as a pending box). What the user enters is the
// component's state ({data: {surfaceId: {pointer: value}}}), sent debounced;
// a button with an event sends one `a2ui_action` message naming the button
// (the kernel reads its event and context from the surface it holds) and
// the reply follows as the next turn.

import { h } from "../common/dom.js";
import { renderSurface } from "../a2ui/render.js";
import { applyMessages, pointerSet } from "../a2ui/surfaces.js";

export const BUSY_TEXT = "A reply is still running: press the button again once it ends.";

/** A call that only updates a surface an earlier call drew (its root is not here). */
export const updateText = (id) => `Updated the A2UI surface “${id}” shown earlier.`;

/** A surface a `deleteSurface` removed: its place says so. */
export const removedText = (id) => `Removed the A2UI surface “${id}”.`;

function surfacesOf(messages, edits) {
  const surfaces = applyMessages(new Map(), messages);
  for (const [id, values] of Object.entries(edits ?? {})) {
    const s = surfaces.get(id);
    if (!s || s.deleted || !values || typeof values !== "object") continue;
    for (const [pointer, value] of Object.entries(values)) s.data = pointerSet(s.data, pointer, value);
  }
  return surfaces;
}

export function render({ props, status, el, state, setState, sendAction, isRunning, resources }) {
  const messages = Array.isArray(props?.messages) ? props.messages : [];
  const edits = structuredClone(state?.data ?? {});
  const surfaces = surfacesOf(messages, edits);
  const streaming = !!status?.streaming;
  const wrap = h("div.gu-a2ui");
  const note = h("div.gu-a2ui-note", { role: "status" });
  let shown = 0;
  for (const surface of surfaces.values()) {
    if (surface.deleted) continue;
    shown++;
    if (!streaming && !surface.components.has(surface.root)) {
      wrap.append(h("div.gu-a2ui-note.gu-a2ui-update", { text: updateText(surface.id) }));
      continue;
    }
    const view = renderSurface(surface, {
      data: () => surface.data,
      resources,
      streaming,
      edit(path, value) {
        surface.data = pointerSet(surface.data, path, value);
        edits[surface.id] = { ...(edits[surface.id] ?? {}), [path]: value };
        setState?.({ data: structuredClone(edits) });
        view.refresh();
      },
      press(componentId) {
        if (isRunning?.()) {
          note.textContent = BUSY_TEXT;
          return;
        }
        note.textContent = "";
        sendAction?.(surface.id, componentId, structuredClone(edits));
      },
    });
    wrap.append(view.el);
  }
  const removed = new Set(messages.map((m) => m?.deleteSurface?.surfaceId).filter((id) => typeof id === "string"));
  for (const id of removed) {
    if (surfaces.get(id) && !surfaces.get(id).deleted) continue; // drawn again after its removal
    wrap.append(h("div.gu-a2ui-note.gu-a2ui-removed", { text: removedText(id) }));
    shown++;
  }
  if (!shown) wrap.append(h("div.gu-a2ui-pending", { "aria-busy": String(streaming), text: streaming ? "" : "No A2UI surface to show." }));
  wrap.append(note);
  el.append(wrap);
}
