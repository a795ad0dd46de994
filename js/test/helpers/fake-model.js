/** A minimal stand-in for an anywidget / ipywidgets model. */
export class FakeModel {
  constructor(state = {}, manager = null) {
    this.state = { ...state };
    this.handlers = new Map();
    this.sent = [];
    /** the binary buffers of each sent message, in step with `sent` */
    this.buffers = [];
    this.widget_manager = manager;
    this.model_id = state.__id ?? "root";
  }
  get(key) {
    return this.state[key];
  }
  set(key, value) {
    this.state[key] = value;
    this.fire(`change:${key}`);
    this.fire("change");
  }
  on(name, fn) {
    if (!this.handlers.has(name)) this.handlers.set(name, new Set());
    this.handlers.get(name).add(fn);
  }
  off(name, fn) {
    this.handlers.get(name)?.delete(fn);
  }
  fire(name, ...args) {
    for (const fn of this.handlers.get(name) ?? []) fn(...args);
  }
  send(msg, _callbacks, buffers) {
    this.sent.push(msg);
    this.buffers.push(buffers);
  }
}
