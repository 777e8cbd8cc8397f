// The profile page (/me): make a profile in one step (or sign in with a passkey), or see and
// change it: rename, the devices it is signed in on (sign one out), "use on another device" (a
// one-time link and QR code), its passkeys, its groups (open one), its history, delete it. The
// device secret lives in localStorage.

import { PROFILE_KEY, api, apiErrorText, failureOf } from "../api.js";
import { clear, h } from "../dom.js";
import { safeGet, safeSet, t } from "../i18n.js";
import { avatarEl } from "./avatar.js";
import { historyEl } from "./history.js";
import { formatDay } from "./people.js";
import { keepSignIn, passkeySignInEl, passkeysEl } from "./passkeys.js";

export function mountProfile(root) {
  const state = { me: null, history: null, avatars: null, link: null, error: null, errorAt: null, choice: null };
  let alive = true;

  async function load() {
    state.avatars = state.avatars || (await api("GET", "/api/profile/avatars"));
    state.choice = state.choice || { emoji: state.avatars.emoji[0], colour: state.avatars.colours[0] };
    if (!safeGet(PROFILE_KEY)) {
      // Signed out (this device, or the profile deleted): the page offers to make one again.
      state.me = null;
      state.history = null;
      state.link = null;
    } else {
      try {
        state.me = await api("GET", "/api/profile");
        state.history = await api("GET", "/api/profile/history");
      } catch (err) {
        if (err.code === "no_profile") safeSet(PROFILE_KEY, null);
        else {
          state.error = apiErrorText(err);
          state.errorAt = null;
        }
        state.me = null;
      }
    }
    if (alive) render();
  }

  /** Run `action`, then load the profile again; what went wrong shows in the section it was
   * asked for from (`at`: its key; null: the top of the page). */
  async function run(action, at = null) {
    state.error = null; // no old error shown while it runs
    state.errorAt = at;
    state.error = await failureOf(action);
    await load();
  }

  const errorLine = (at) => (state.error && state.errorAt === at
    ? h("p", { class: "form-error", role: "alert", text: state.error }) : null);

  // This browser is signed in now (a new profile, or a passkey): keep its secret. Made on the
  // way to joining a group: go on to the invite.
  function keep(made) {
    keepSignIn(made);
    const next = new URLSearchParams(location.search).get("next") || "";
    if (next.startsWith("/g/join?")) location.assign(next);
  }

  function avatarPicker() {
    const pick = (key, value) => () => { state.choice[key] = value; render(); };
    return h("fieldset", { class: "avatar-picker" },
      h("legend", { text: t("profile.avatar") }),
      h("div", { class: "choices", role: "group", "aria-label": t("profile.emoji") },
        state.avatars.emoji.map((emoji) => h("button", {
          type: "button", class: "choice", text: emoji, "aria-pressed": String(state.choice.emoji === emoji),
          on: { click: pick("emoji", emoji) },
        }))),
      h("div", { class: "choices", role: "group", "aria-label": t("profile.colour") },
        state.avatars.colours.map((colour, index) => h("button", {
          type: "button", class: "choice swatch", style: { backgroundColor: colour },
          "aria-label": t("profile.colour_n", { n: index + 1 }), "aria-pressed": String(state.choice.colour === colour),
          on: { click: pick("colour", colour) },
        }))),
      avatarEl(state.choice, "large"));
  }

  function createForm() {
    if (state.draft === undefined) state.draft = safeGet("nimmt.name") || "";
    const name = h("input", { id: "profile-name", maxlength: "24", required: true, autocomplete: "nickname",
      value: state.draft, on: { input: () => { state.draft = name.value; } } });
    return h("form", { class: "panel", id: "profile-create", on: { submit: (event) => {
      event.preventDefault();
      run(async () => {
        keep(await api("POST", "/api/profile", { name: name.value, ...state.choice }));
      });
    } } },
    h("h1", { text: t("profile.create_title") }),
    h("p", { text: t("profile.create_intro") }),
    h("label", { for: "profile-name", text: t("profile.name") }), name,
    avatarPicker(),
    h("button", { type: "submit", class: "button primary", text: t("profile.create") }));
  }

  function identity(me) {
    if (state.rename === undefined) state.rename = me.profile.name;
    const name = h("input", { id: "profile-rename", maxlength: "24", value: state.rename,
      on: { input: () => { state.rename = name.value; } } });
    return h("section", { class: "panel profile-head" },
      h("h1", {}, avatarEl(me.profile, "large"), " ", me.profile.name),
      h("form", { class: "inline-form", on: { submit: (event) => {
        event.preventDefault();
        run(async () => {
          const changed = await api("PATCH", "/api/profile", { name: name.value, ...state.choice });
          safeSet("nimmt.name", changed.profile.name);
        }, "identity");
      } } },
      h("label", { for: "profile-rename", text: t("profile.name") }), name,
      errorLine("identity"),
      avatarPicker(),
      h("button", { type: "submit", class: "button", text: t("profile.save") })));
  }

  function devices(me) {
    return h("section", { class: "panel" },
      h("h2", { text: t("profile.devices") }),
      h("ul", { class: "plain-list" }, me.devices.map((device) => h("li", {},
        h("span", { text: device.current ? t("profile.this_device") : t("profile.device_since", { date: formatDay(device.created_at) }) }),
        " ",
        h("button", { type: "button", class: "button small", text: t("profile.sign_out"), on: { click: () => run(async () => {
          await api("DELETE", `/api/profile/devices/${encodeURIComponent(device.id)}`);
          if (device.current) safeSet(PROFILE_KEY, null);
        }, "devices") } })))),
      h("button", { type: "button", class: "button", id: "device-link", text: t("profile.use_elsewhere"), on: { click: () => run(async () => {
        state.link = await api("POST", "/api/profile/link");
      }, "devices") } }),
      errorLine("devices"),
      state.link && h("div", { class: "device-link" },
        h("img", { src: state.link.qr, alt: t("profile.qr_alt"), width: "180", height: "180" }),
        h("p", { text: t("profile.link_valid", { count: state.link.minutes, minutes: state.link.minutes }) }),
        h("input", { readonly: true, value: state.link.url, "aria-label": t("profile.link"), class: "link-field" })));
  }

  function groups(me) {
    const name = h("input", { id: "group-name", maxlength: "24", required: true });
    return h("section", { class: "panel" },
      h("h2", { text: t("profile.groups") }),
      me.groups.length
        ? h("ul", { class: "plain-list" }, me.groups.map((group) => h("li", {}, h("a", { href: group.url, text: group.name }))))
        : h("p", { text: t("profile.no_groups") }),
      h("form", { class: "inline-form", on: { submit: (event) => {
        event.preventDefault();
        run(async () => {
          const made = await api("POST", "/api/groups", { name: name.value });
          location.assign(made.group.url);
        }, "groups");
      } } },
      h("label", { for: "group-name", text: t("profile.group_name") }), name,
      h("button", { type: "submit", class: "button primary", text: t("profile.open_group") })),
      errorLine("groups"));
  }

  function danger() {
    return h("section", { class: "panel" },
      h("h2", { text: t("profile.delete_title") }),
      h("p", { text: t("profile.delete_intro") }),
      h("button", { type: "button", class: "button danger", text: t("profile.delete"), on: { click: () => {
        if (!window.confirm(t("profile.delete_confirm"))) return;
        run(async () => {
          await api("DELETE", "/api/profile");
          safeSet(PROFILE_KEY, null);
        }, "danger");
      } } }),
      errorLine("danger"));
  }

  function render() {
    clear(root);
    const page = h("div", { class: "profile-page" });
    const topError = errorLine(null);
    if (topError) page.append(topError);
    if (!state.avatars) page.append(h("p", { class: "page-message loading", text: "…" }));
    else if (!state.me) page.append(createForm(), passkeySignInEl((action) => run(action, "signin"), keep, errorLine("signin")));
    else {
      state.choice = state.choice && state.me.profile.emoji === state.choice.emoji ? state.choice : { emoji: state.me.profile.emoji, colour: state.me.profile.colour };
      page.append(identity(state.me), groups(state.me), historyEl(state.history, { colour: state.me.profile.colour, groups: state.me.groups }), devices(state.me),
        passkeysEl(state.me.passkeys || [], (action) => run(action, "passkeys"), state, errorLine("passkeys")), danger());
    }
    root.append(page);
  }

  render();
  load().catch((err) => { state.error = apiErrorText(err); state.errorAt = null; render(); });
  return { rerender: render, destroy() { alive = false; } };
}

/** /me/link?token=…: sign this device in with a device link, then show the profile. */
export function mountRedeem(root) {
  const link = new URLSearchParams(location.search).get("token") || "";
  history.replaceState(null, "", "/me"); // the link is used up: keep it out of the history
  root.append(h("p", { class: "page-message loading", text: t("profile.signing_in") }));
  let view = { rerender() {}, destroy() {} };
  api("POST", "/api/profile/redeem", { link })
    .then(keepSignIn)
    .catch((err) => { root.append(h("p", { class: "form-error", role: "alert", text: apiErrorText(err) })); })
    .finally(() => { const error = root.querySelector(".form-error"); clear(root); view = mountProfile(root); if (error) root.prepend(error); });
  return { rerender: () => view.rerender(), destroy: () => view.destroy() };
}
