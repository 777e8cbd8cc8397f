// Passkeys on the profile page: the signed-in profile's list (name, added, last used; remove
// one) and "Add a passkey"; for a browser signed in to no profile, "Sign in with a passkey"
// (on the profile page, and as a short offer on the start page). They are offered only where
// passkeys can work (a secure page: HTTPS or localhost); elsewhere the profile page says why
// they are missing. The ceremonies' routes are in docs/protocol.md.

import { ApiError, PROFILE_KEY, api } from "../api.js";
import { h } from "../dom.js";
import { safeSet, t } from "../i18n.js";
import { formatDay } from "./people.js";
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

/** Keep what a sign-in made (`{profile, secret}`): this browser's device secret, and the
 * profile's name as the name it plays under. */
export function keepSignIn(made) {
  safeSet(PROFILE_KEY, made.secret);
  safeSet("nimmt.name", made.profile.name);
}

/** Whether a page offers "Sign in with a passkey": to a browser signed in to no profile
 * (`signedIn`: it holds a device secret), where passkeys work (`win`: the page's window). */
export function offersPasskeySignIn(win, signedIn) {
  return !signedIn && passkeysAvailable(win);
}

function unavailable() {
  return h("p", { class: "muted", id: "passkeys-unavailable", text: t("profile.passkeys_unavailable") });
}

/** The signed-in profile's passkeys; `run` is the page's way of doing something and reloading;
 * `error`: what went wrong here, shown in the section (or null). */
export function passkeysEl(passkeys, run, state, error = null) {
  const available = passkeysAvailable(window);
  const name = h("input", { id: "passkey-name", maxlength: "24", autocomplete: "off", value: state.passkeyName || "",
    on: { input: () => { state.passkeyName = name.value; } } });
  return h("section", { class: "panel", id: "passkeys", "aria-labelledby": "passkeys-title" },
    h("h2", { id: "passkeys-title", text: t("profile.passkeys") }),
    h("p", { text: t("profile.passkeys_intro") }),
    error,
    passkeys.length
      ? h("ul", { class: "plain-list", id: "passkey-list" }, passkeys.map((key) => h("li", {},
        h("strong", { text: key.name || t("profile.passkey_unnamed") }), " · ",
        h("span", { text: t("profile.passkey_added", { date: formatDay(key.created_at) }) }), " · ",
        h("span", { text: key.last_used_at ? t("profile.passkey_used", { date: formatDay(key.last_used_at) }) : t("profile.passkey_never_used") }),
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
export function passkeySignInEl(run, signedIn, error = null) {
  return h("section", { class: "panel", id: "passkey-signin", "aria-labelledby": "passkey-signin-title" },
    h("h2", { id: "passkey-signin-title", text: t("profile.have_profile") }),
    h("p", { text: t("profile.have_profile_intro") }),
    error,
    passkeysAvailable(window) ? signInButton(run, signedIn, "passkey-signin-button", "button") : unavailable());
}

function signInButton(run, signedIn, id, classes) {
  return h("button", { type: "button", class: classes, id, text: t("profile.passkey_sign_in"),
    on: { click: () => run(async () => signedIn(await signInWithPasskey())) } });
}

/** The start page's offer to a browser signed in to no profile: "Already have a profile? Sign
 * in with a passkey" (only where passkeys work: see `offersPasskeySignIn`); `run` does the
 * sign-in and shows what went wrong, `signedIn(made)` keeps it. */
export function passkeyOfferEl(run, signedIn) {
  return h("p", { class: "passkey-offer", id: "start-passkey" },
    h("span", { text: t("profile.have_profile") }), " ",
    signInButton(run, signedIn, "start-passkey-button", "button small ghost"));
}
