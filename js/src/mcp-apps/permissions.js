// `_meta.ui.permissions` (the spec's McpUiResourcePermissions): what an app's
// resource asks for. Nothing is granted by default: the card asks the user
// before the app first loads, and the iframe is created with an `allow`
// attribute naming only what they allowed (a loaded iframe's `allow` would
// apply only at its next navigation, so it is set once, at creation).

/** The spec's name -> the Permissions Policy feature, and the words the user reads. */
const FEATURES = {
  camera: { policy: "camera", label: "camera" },
  microphone: { policy: "microphone", label: "microphone" },
  geolocation: { policy: "geolocation", label: "location" },
  clipboardWrite: { policy: "clipboard-write", label: "writing to the clipboard" },
};

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The spec's names of what the app asks for, in the spec's order (others ignored). */
export function askedPermissions(app) {
  const asked = isObject(app?.permissions) ? app.permissions : {};
  return Object.keys(FEATURES).filter((name) => isObject(asked[name]));
}

/** The iframe's `allow` for the granted names ("camera; microphone"), "" for none. */
export function allowAttribute(granted) {
  return granted
    .filter((name) => Object.hasOwn(FEATURES, name))
    .map((name) => FEATURES[name].policy)
    .join("; ");
}

/** The granted names as the spec's object (`hostCapabilities.sandbox.permissions`). */
export function permissionsObject(granted) {
  return Object.fromEntries(granted.map((name) => [name, {}]));
}

/** "camera, microphone": what the bar names. */
export function permissionWords(names) {
  return names.map((name) => FEATURES[name]?.label ?? name).join(", ");
}
