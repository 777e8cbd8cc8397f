// Passkeys in the browser, without the DOM: whether this page may use them, and the JSON of
// docs/protocol.md ("Passkeys", base64url for every binary field) to and from what
// navigator.credentials speaks (ArrayBuffers). Written out here rather than relying on
// PublicKeyCredential.parseCreationOptionsFromJSON and toJSON, which older browsers lack.

/** Passkeys work only on a secure page (HTTPS, or localhost) of a browser that has WebAuthn,
 * and under a host name: never an address (127.0.0.1 is a secure context, but WebAuthn takes
 * no address for the site). */
export function passkeysAvailable(win = globalThis) {
  const host = (win && win.location && win.location.hostname) || "";
  const address = /^[\d.]+$/.test(host) || host.includes(":") || host.startsWith("[");
  return Boolean(win && win.isSecureContext === true && typeof win.PublicKeyCredential === "function"
    && win.navigator && win.navigator.credentials && host && !address);
}

/** The bytes of a base64url string (with or without padding). */
export function fromB64url(text) {
  const base64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A base64url string without padding, of an ArrayBuffer or a typed array. */
export function toB64url(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(ArrayBuffer.isView(buffer) ? buffer.buffer : buffer);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const descriptors = (list) => (list || []).map((item) => ({ ...item, id: fromB64url(item.id) }));

/** The argument of navigator.credentials.create for the server's registration options. */
export function creationOptions(options) {
  return { publicKey: {
    ...options,
    challenge: fromB64url(options.challenge),
    user: { ...options.user, id: fromB64url(options.user.id) },
    excludeCredentials: descriptors(options.excludeCredentials),
  } };
}

/** The argument of navigator.credentials.get for the server's sign-in options. */
export function requestOptions(options) {
  return { publicKey: {
    ...options,
    challenge: fromB64url(options.challenge),
    allowCredentials: descriptors(options.allowCredentials),
  } };
}

/** A PublicKeyCredential (from create or get) as the JSON the server verifies. */
export function credentialJSON(credential) {
  const response = credential.response;
  const json = { clientDataJSON: toB64url(response.clientDataJSON) };
  if (response.attestationObject) {
    json.attestationObject = toB64url(response.attestationObject);
    if (typeof response.getTransports === "function") json.transports = response.getTransports();
  } else {
    json.authenticatorData = toB64url(response.authenticatorData);
    json.signature = toB64url(response.signature);
    if (response.userHandle) json.userHandle = toB64url(response.userHandle);
  }
  const out = { id: credential.id, rawId: toB64url(credential.rawId), type: credential.type, response: json,
    clientExtensionResults: typeof credential.getClientExtensionResults === "function" ? credential.getClientExtensionResults() : {} };
  if (credential.authenticatorAttachment) out.authenticatorAttachment = credential.authenticatorAttachment;
  return out;
}

/** The protocol's code for a browser's refusal of a ceremony (a DOMException), or null. */
export function ceremonyErrorCode(error) {
  if (!error || typeof error.name !== "string") return null;
  if (error.name === "NotAllowedError" || error.name === "AbortError") return "passkey_cancelled";
  if (error.name === "InvalidStateError") return "passkey_already_here";
  if (error.name === "SecurityError" || error.name === "NotSupportedError") return "not_secure_context";
  return null;
}
