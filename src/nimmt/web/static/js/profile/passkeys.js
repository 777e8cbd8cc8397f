// Passkeys on the profile page: the signed-in profile's list (name, added, last used; remove
// one) and "Add a passkey"; for a browser signed in to no profile, "Sign in with a passkey".
// Both are offered only where passkeys can work (a secure page: HTTPS or localhost); elsewhere
// a note says why they are missing. The ceremonies' routes are in docs/protocol.md.

import { ApiError, api } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { ceremonyErrorCode, creationOptions, credentialJSON, passkeysAvailable, requestOptions } from "./webauthn.js";

async function ceremony(action) {
  try {
    return await action();
  } catch (err) {
    const code = ceremonyErrorCode(err);
    if (code) throw new ApiError(code, String(err.message || err));
    throw err;
  }
}

/** Make a passkey for the signed-in profile; the stored passkey. */
export async function addPasskey(name) {
  const { options } = await api("POST", "/api/profile/passkeys/register/options");
  const credential = await ceremony(() => navigator.credentials.create(creationOptions(options)));
  const made = await api("POST", "/api/profile/passkeys/register", { credential: credentialJSON(credential), name: name || null });
  return made.passkey;
}

/** Sign this browser in with a passkey: `{profile, secret}` (a new device secret). */
export async function signInWithPasskey() {
  const { options } = await api("POST", "/api/profile/passkeys/signin/options");
  const credential = await ceremony(() => navigator.credentials.get(requestOptions(options)));
  return api("POST", "/api/profile/passkeys/signin", { credential: credentialJSON(credential) });
}

const day = (iso) => new Date(iso).toLocaleDateString();

function unavailable() {
  return h("p", { class: "muted", id: "passkeys-unavailable", text: t("profile.passkeys_unavailable") });
}

/** The signed-in profile's passkeys; `run` is the page's way of doing something and reloading. */
export function passkeysEl(passkeys, run, state) {
  const available = passkeysAvailable(window);
  const name = h("input", { id: "passkey-name", maxlength: "24", autocomplete: "off", value: state.passkeyName || "",
    on: { input: () => { state.passkeyName = name.value; } } });
  return h("section", { class: "panel", id: "passkeys", "aria-labelledby": "passkeys-title" },
    h("h2", { id: "passkeys-title", text: t("profile.passkeys") }),
    h("p", { text: t("profile.passkeys_intro") }),
    passkeys.length
      ? h("ul", { class: "plain-list", id: "passkey-list" }, passkeys.map((key) => h("li", {},
        h("strong", { text: key.name || t("profile.passkey_unnamed") }), " · ",
        h("span", { text: t("profile.passkey_added", { date: day(key.created_at) }) }), " · ",
        h("span", { text: key.last_used_at ? t("profile.passkey_used", { date: day(key.last_used_at) }) : t("profile.passkey_never_used") }),
        " ",
        h("button", { type: "button", class: "button small", text: t("profile.passkey_remove"),
          "aria-label": t("profile.passkey_remove_named", { name: key.name || t("profile.passkey_unnamed") }),
          on: { click: () => {
            if (!window.confirm(t("profile.passkey_remove_confirm"))) return;
            run(() => api("DELETE", `/api/profile/passkeys/${encodeURIComponent(key.id)}`));
          } } }))))
      : h("p", { text: t("profile.no_passkeys") }),
    available
      ? h("form", { class: "inline-form", id: "passkey-add", on: { submit: (event) => {
        event.preventDefault();
        run(async () => {
          await addPasskey(name.value.trim());
          state.passkeyName = "";
        });
      } } },
      h("label", { for: "passkey-name", text: t("profile.passkey_name") }), name,
      h("button", { type: "submit", class: "button", text: t("profile.passkey_add") }))
      : unavailable());
}

/** "Sign in with a passkey" for a browser signed in to no profile; `signedIn(made)` keeps
 * the new device secret. */
export function passkeySignInEl(run, signedIn) {
  return h("section", { class: "panel", id: "passkey-signin", "aria-labelledby": "passkey-signin-title" },
    h("h2", { id: "passkey-signin-title", text: t("profile.have_profile") }),
    h("p", { text: t("profile.have_profile_intro") }),
    passkeysAvailable(window)
      ? h("button", { type: "button", class: "button", id: "passkey-signin-button", text: t("profile.passkey_sign_in"),
        on: { click: () => run(async () => signedIn(await signInWithPasskey())) } })
      : unavailable());
}
