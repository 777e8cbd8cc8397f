// A group's page (/g/{code}): its members, the standings (with the rating plot and the CSV
// download), its recent games with their replays, the evenings; the owner's invite link; a
// table (online, with bots for the empty seats) or a real-cards game opened for the group.
// /g/join?token=… joins a group by its invite.

import { PROFILE_KEY, api, apiErrorText, failureOf, tokenKey } from "../api.js";
import { clear, h } from "../dom.js";
import { currentLanguage, safeGet, safeSet, t } from "../i18n.js";
import { avatarEl } from "../profile/avatar.js";
import { eveningText, personName } from "../profile/people.js";
import { ratingPlot } from "./rating.js";
import { standingsTable } from "./standings.js";

export function mountGroup(root, code) {
  const state = { page: null, invite: null, error: null, picked: new Set(), guests: "" };
  let alive = true;

  async function load() {
    if (!safeGet(PROFILE_KEY)) {
      state.error = t("group.need_profile");
    } else {
      try {
        state.page = await api("GET", `/api/groups/${encodeURIComponent(code)}`);
      } catch (err) {
        state.error = apiErrorText(err);
      }
    }
    if (alive) render();
  }

  async function run(action) {
    state.error = null; // no old error shown while it runs
    state.error = await failureOf(action);
    if (alive) render();
  }

  async function downloadCsv() {
    const res = await fetch(`/api/groups/${encodeURIComponent(code)}/standings.csv`, {
      headers: { Authorization: `Bearer ${safeGet(PROFILE_KEY)}` },
    });
    if (!res.ok) throw new Error(t("errors.generic"));
    const url = URL.createObjectURL(await res.blob());
    const link = h("a", { href: url, download: `standings-${code}.csv` });
    document.body.append(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
  }

  function standingsEl(page) {
    return h("section", { class: "panel", id: "standings" },
      h("h2", { text: t("group.standings") }),
      h("p", { text: t("group.games_counted", { count: page.games }) }),
      standingsTable(page),
      ratingPlot(page.standings),
      h("p", {},
        h("button", { type: "button", class: "button small", text: t("group.csv"), on: { click: () => run(downloadCsv) } }),));
  }

  function recentEl(page) {
    return h("section", { class: "panel", id: "recent" },
      h("h2", { text: t("group.recent") }),
      page.recent.length
        ? h("ol", { class: "plain-list" }, page.recent.map((game) => h("li", {},
          h("span", { text: new Date(game.finished_at).toLocaleString(currentLanguage()) }), " · ",
          h("span", { text: game.real_cards ? t("group.real_cards") : t("group.online") }), " · ",
          h("span", {}, game.players.map((p, index) => [index ? ", " : "", `${personName(p)} ${p.total}`,
            p.winner ? [h("span", { "aria-hidden": "true", text: " ★" }), h("span", { class: "visually-hidden", text: ` (${t("group.winner")})` })] : null])), " · ",
          h("a", { href: game.replay, text: t("profile.replay") }))))
        : h("p", { text: t("group.no_games") }),
      page.evenings.length > 0 && h("h3", { text: t("group.evenings") }),
      page.evenings.map((evening) => h("p", { class: "evening" },
        h("strong", { text: new Date(`${evening.date}T12:00:00Z`).toLocaleDateString(currentLanguage()) }), " ",
        eveningText(evening))));
  }

  function membersEl(page) {
    return h("section", { class: "panel", id: "members" },
      h("h2", { text: t("group.members") }),
      h("ul", { class: "plain-list members" }, page.members.map((member) => h("li", {},
        avatarEl(member), " ", personName(member), member.owner ? ` (${t("group.owner")})` : ""))),
      page.group.owner && h("p", {},
        h("button", { type: "button", class: "button", id: "new-invite", text: t("group.invite"), on: { click: () => run(async () => {
          state.invite = await api("POST", `/api/groups/${encodeURIComponent(code)}/invite`);
        }) } }), " ",
        h("button", { type: "button", class: "button small", text: t("group.revoke"), on: { click: () => run(async () => {
          await api("DELETE", `/api/groups/${encodeURIComponent(code)}/invite`);
          state.invite = null;
        }) } })),
      state.invite && h("input", { readonly: true, class: "link-field", id: "invite-link", value: state.invite.url, "aria-label": t("group.invite_link") }));
  }

  function playEl(page) {
    const bots = h("input", { type: "number", id: "group-bots", min: "0", max: "8", value: "2" });
    const people = h("input", { type: "number", id: "group-people", min: "1", max: "10", value: String(Math.min(page.members.length, 4)) });
    const guests = h("input", { id: "group-guests", value: state.guests, placeholder: t("group.guests_hint"),
      on: { input: () => { state.guests = guests.value; } } });
    return h("section", { class: "panel", id: "play" },
      h("h2", { text: t("group.play") }),
      h("form", { class: "inline-form", id: "group-table", on: { submit: (event) => {
        event.preventDefault();
        run(async () => {
          const seats = [...Array(Number(people.value)).fill({ kind: "human" }), ...Array(Number(bots.value)).fill({ kind: "bot", bot: "medium" })];
          const made = await api("POST", `/api/groups/${encodeURIComponent(code)}/tables`, { seats });
          safeSet(tokenKey(made.code), made.token);
          location.assign(made.url);
        });
      } } },
      h("label", { for: "group-people", text: t("group.people") }), people,
      h("label", { for: "group-bots", text: t("group.bots") }), bots,
      h("button", { type: "submit", class: "button primary", text: t("group.open_table") })),
      h("form", { class: "inline-form", id: "group-real", on: { submit: (event) => {
        event.preventDefault();
        run(async () => {
          const players = [
            ...page.members.filter((m) => state.picked.has(m.profile)).map((m) => ({ profile: m.profile })),
            ...state.guests.split(",").map((name) => name.trim()).filter(Boolean).map((name) => ({ name })),
          ];
          const made = await api("POST", `/api/groups/${encodeURIComponent(code)}/assisted`, { players });
          safeSet(tokenKey(made.code), made.token);
          location.assign(made.url);
        });
      } } },
      h("fieldset", {}, h("legend", { text: t("group.real_players") }),
        page.members.map((member) => h("label", { class: "check" },
          h("input", { type: "checkbox", checked: state.picked.has(member.profile), on: { change: (event) => {
            if (event.target.checked) state.picked.add(member.profile); else state.picked.delete(member.profile);
          } } }), " ", member.name))),
      h("label", { for: "group-guests", text: t("group.guests") }), guests,
      h("button", { type: "submit", class: "button", text: t("group.open_real") })));
  }

  function render() {
    clear(root);
    const page = h("div", { class: "group-page" });
    if (state.error) page.append(h("p", { class: "form-error", role: "alert", text: state.error }));
    if (!state.page && !state.error) page.append(h("p", { class: "page-message loading", text: "…" }));
    if (!safeGet(PROFILE_KEY)) page.append(h("p", {}, h("a", { class: "button", href: "/me", text: t("group.to_profile") })));
    if (state.page) {
      page.append(h("h1", { text: state.page.group.name }),
        standingsEl(state.page), recentEl(state.page), playEl(state.page), membersEl(state.page));
    }
    root.append(page);
  }

  render();
  load();
  return { rerender: render, destroy() { alive = false; } };
}

/** /g/join?token=…: join the group of an invite (a profile is needed first). */
export function mountJoinGroup(root) {
  const invite = new URLSearchParams(location.search).get("token") || "";
  root.append(h("p", { class: "page-message loading", text: t("group.joining") }));
  if (!safeGet(PROFILE_KEY)) {
    clear(root);
    root.append(h("section", { class: "panel" }, h("p", { text: t("group.need_profile_to_join") }),
      h("a", { class: "button primary", href: `/me?next=${encodeURIComponent(location.pathname + location.search)}`, text: t("group.to_profile") })));
    return { rerender() {}, destroy() {} };
  }
  api("POST", "/api/groups/join", { invite })
    .then((joined) => location.replace(joined.group.url))
    .catch((err) => { clear(root); root.append(h("p", { class: "form-error", role: "alert", text: apiErrorText(err) })); });
  return { rerender() {}, destroy() {} };
}
