// Passkeys' JSON in the browser (src/nimmt/web/static/js/profile/webauthn.js), without a
// browser: base64url both ways, the server's options made into what navigator.credentials
// takes, a credential made into the JSON the server verifies, and when passkeys are offered.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  ceremonyErrorCode, creationOptions, credentialJSON, fromB64url, passkeysAvailable, requestOptions, toB64url,
} from "../../src/nimmt/web/static/js/profile/webauthn.js";

const bytes = (...values) => new Uint8Array(values);

describe("base64url", () => {
  test("round trips every byte, without padding or + and /", () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const text = toB64url(all.buffer);
    assert.doesNotMatch(text, /[+/=]/);
    assert.deepEqual(fromB64url(text), all);
  });
  test("known values, padded or not", () => {
    assert.equal(toB64url(bytes(0xfb, 0xff)), "-_8");
    assert.deepEqual(fromB64url("-_8"), bytes(0xfb, 0xff));
    assert.deepEqual(fromB64url("-_8="), bytes(0xfb, 0xff));
    assert.equal(toB64url(new ArrayBuffer(0)), "");
  });
});

describe("options", () => {
  test("registration: the challenge, the user's id and the excluded ids become bytes", () => {
    const made = creationOptions({
      rp: { id: "localhost", name: "6 nimmt!" }, challenge: "AQID", user: { id: "YW5h", name: "Ana", displayName: "Ana" },
      pubKeyCredParams: [{ type: "public-key", alg: -7 }], excludeCredentials: [{ type: "public-key", id: "BAU" }],
    });
    assert.deepEqual(made.publicKey.challenge, bytes(1, 2, 3));
    assert.deepEqual(made.publicKey.user.id, new TextEncoder().encode("ana"));
    assert.equal(made.publicKey.user.name, "Ana");
    assert.deepEqual(made.publicKey.excludeCredentials, [{ type: "public-key", id: bytes(4, 5) }]);
    assert.equal(made.publicKey.rp.id, "localhost");
  });
  test("sign-in: no credentials named means any of this site's", () => {
    const made = requestOptions({ rpId: "localhost", challenge: "AQID", userVerification: "preferred" });
    assert.deepEqual(made.publicKey.challenge, bytes(1, 2, 3));
    assert.deepEqual(made.publicKey.allowCredentials, []);
    assert.equal(made.publicKey.rpId, "localhost");
  });
});

describe("credentialJSON", () => {
  test("a new credential: attestation and transports", () => {
    const json = credentialJSON({
      id: "BAU", rawId: bytes(4, 5).buffer, type: "public-key", authenticatorAttachment: "platform",
      response: { clientDataJSON: bytes(1).buffer, attestationObject: bytes(2).buffer, getTransports: () => ["internal"] },
      getClientExtensionResults: () => ({ credProps: { rk: true } }),
    });
    assert.deepEqual(json, {
      id: "BAU", rawId: "BAU", type: "public-key", authenticatorAttachment: "platform",
      response: { clientDataJSON: "AQ", attestationObject: "Ag", transports: ["internal"] },
      clientExtensionResults: { credProps: { rk: true } },
    });
  });
  test("an assertion: authenticator data, signature, user handle", () => {
    const json = credentialJSON({
      id: "BAU", rawId: bytes(4, 5).buffer, type: "public-key",
      response: { clientDataJSON: bytes(1).buffer, authenticatorData: bytes(2).buffer, signature: bytes(3).buffer, userHandle: bytes(97).buffer },
    });
    assert.deepEqual(json.response, { clientDataJSON: "AQ", authenticatorData: "Ag", signature: "Aw", userHandle: "YQ" });
    assert.deepEqual(json.clientExtensionResults, {});
    assert.equal("authenticatorAttachment" in json, false);
  });
});

describe("passkeysAvailable", () => {
  const credentials = {};
  const page = (hostname, isSecureContext = true) => ({
    isSecureContext, location: { hostname }, PublicKeyCredential: function PublicKeyCredential() {}, navigator: { credentials },
  });
  test("only a secure page of a browser with WebAuthn", () => {
    assert.equal(passkeysAvailable(page("localhost")), true);
    assert.equal(passkeysAvailable(page("nimmt.example.org")), true);
    assert.equal(passkeysAvailable(page("nimmt.example.org", false)), false);
    assert.equal(passkeysAvailable({ ...page("localhost"), PublicKeyCredential: undefined }), false);
    assert.equal(passkeysAvailable(undefined), false);
  });
  test("never under an address, secure as 127.0.0.1 may be", () => {
    for (const host of ["127.0.0.1", "[::1]", "::1", "192.168.1.5"]) assert.equal(passkeysAvailable(page(host)), false, host);
  });
});

describe("ceremonyErrorCode", () => {
  test("the browser's refusals have codes of their own", () => {
    assert.equal(ceremonyErrorCode({ name: "NotAllowedError" }), "passkey_cancelled");
    assert.equal(ceremonyErrorCode({ name: "InvalidStateError" }), "passkey_already_here");
    assert.equal(ceremonyErrorCode({ name: "SecurityError" }), "not_secure_context");
    assert.equal(ceremonyErrorCode(new TypeError("x")), null);
    assert.equal(ceremonyErrorCode(null), null);
  });
});

describe("the passkey sign-in offer (the profile and start pages)", () => {
  test("offered to a browser signed in to no profile, only where passkeys work", async () => {
    const { offersPasskeySignIn } = await import("../../src/nimmt/web/static/js/profile/passkeys.js");
    const page = (hostname, secure = true, webauthn = true) => ({
      location: { hostname }, isSecureContext: secure, navigator: { credentials: {} },
      PublicKeyCredential: webauthn ? function PublicKeyCredential() {} : undefined,
    });
    assert.equal(offersPasskeySignIn(page("nimmt.example.org"), false), true);
    assert.equal(offersPasskeySignIn(page("localhost"), false), true);
    assert.equal(offersPasskeySignIn(page("nimmt.example.org"), true), false, "signed in already");
    assert.equal(offersPasskeySignIn(page("nimmt.example.org", false), false), false, "not a secure page");
    assert.equal(offersPasskeySignIn(page("nimmt.example.org", true, false), false), false, "no WebAuthn");
    assert.equal(offersPasskeySignIn(page("127.0.0.1"), false), false, "an address");
  });
});
