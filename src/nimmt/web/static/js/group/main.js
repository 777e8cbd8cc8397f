// A group's page (/g/{code}): the group's tables open now (to join or watch), its members, the
// standings (with the rating plot and the CSV download), its recent games with their replays,
// the evenings; the owner's invite link; a table (online, with bots for the empty seats) or a
// real-cards game opened for the group.
// /g/join?token=… joins a group by its invite.

import { PROFILE_KEY, api, apiErrorText, failureOf, tokenKey } from "../api.js";
import { clear, h } from "../dom.js";
import { currentLanguage, formatList, has, safeGet, safeSet, t } from "../i18n.js";
import { botLabel } from "../kit/text.js";
import { avatarEl } from "../profile/avatar.js";
import { setPageTitle } from "../title.js";
import { eveningText, formatDay, formatWhen, personName } from "../profile/people.js";
import { ratingPlot } from "./rating.js";
import { standingsTable } from "./standings.js";

/** When a table was opened: the time of day, and the day too when it was not today (two tables
 * of the same people are told apart by it). */
function openedAt(iso) {
  const when = new Date(iso);
  const today = when.toDateString() === new Date().toDateString();
  return today ? when.toLocaleTimeString(currentLanguage(), { timeStyle: "short" }) : formatWhen(iso);
}

/** How often the group's page reads its open tables again (the start page's lobby: 10 s). */
const OPEN_REFRESH_MS = 15000;

export function mountGroup(root, code) {
  const state = { page: null, invite: null, error: null, errorAt: null, picked: new Set(), guests: "", bots: [], table: null };
  let alive = true;

  async function load() {
    if (!safeGet(PROFILE_KEY)) {
      state.error = t("group.need_profile");
    } else {
      try {
        state.page = await api("GET", `/api/groups/${encodeURIComponent(code)}`);
        state.table = state.table || { people: Math.min(state.page.members.length, 4), bots: 2, level: "medium", coach: false, away: 120 };
        if (!state.bots.length) state.bots = (await api("GET", "/api/bots")).bots.map((bot) => bot.name);
      } catch (err) {
        state.error = apiErrorText(err);
        state.errorAt = null;
      }
    }
    if (alive) render();
  }

  /** Run `action`; what went wrong shows where it was asked for (`at`: a section's key). */
  async function run(action, at = null) {
    state.error = null; // no old error shown while it runs
    state.errorAt = at;
    state.error = await failureOf(action);
    if (alive) render();
  }

  /** The error of the action asked for in section `at`, shown in that section. */
  const errorLine = (at) => (state.error && state.errorAt === at
    ? h("p", { class: "form-error", role: "alert", text: state.error }) : null);

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

  /** The group's tables open now: who sits there, the free seats, in play or waiting, and a
   * link to join (a free seat), to go back (this browser holds a seat there) or to watch. */
  function openEl(page) {
    const line = (table) => {
      const link = safeGet(tokenKey(table.code)) ? t("group.open_back")
        : table.free_seats > 0 ? t("start.join") : t("start.watch");
      const seats = table.real_cards ? t("group.real_cards")
        : table.free_seats > 0 ? t("group.open_free", { count: table.free_seats }) : t("group.open_full");
      return h("li", { class: "table-item", "data-code": table.code },
        h("div", { class: "table-item-text" },
          h("span", { text: table.players.length ? formatList(table.players) : t("group.open_nobody") }),
          h("span", { class: "muted", text: seats }),
          h("span", { class: "muted", text: table.state === "waiting" ? t("group.open_waiting") : t("group.open_playing") }),
          h("span", { class: "muted", text: t("group.open_since", { time: openedAt(table.created_at) }) })),
        h("div", { class: "table-item-actions" }, h("a", { class: "button small", href: table.url, text: link })));
    };
    return h("section", { class: "panel", id: "open-now", "aria-labelledby": "open-now-title" },
      h("div", { class: "panel-head" },
        h("h2", { id: "open-now-title", text: t("group.open_now") }),
        h("button", { type: "button", class: "button small ghost", id: "refresh-open", text: t("start.refresh"), on: { click: refreshOpen } })),
      page.open.length
        ? h("ul", { class: "table-list" }, page.open.map(line))
        : h("p", { class: "muted", text: t("group.open_none") }));
  }

  /** The open tables read again (every OPEN_REFRESH_MS while the page is in view, and on
   * Refresh): only their section is drawn anew, so nothing typed elsewhere on the page is lost. */
  async function refreshOpen() {
    if (!state.page || document.hidden) return;
    try {
      const fresh = await api("GET", `/api/groups/${encodeURIComponent(code)}/open`);
      if (!alive || !state.page) return;
      state.page.open = fresh.open;
      root.querySelector("#open-now")?.replaceWith(openEl(state.page));
    } catch {
      // The page keeps what it showed; the next turn tries again.
    }
  }

  function standingsEl(page) {
    return h("section", { class: "panel", id: "standings" },
      h("h2", { text: t("group.standings") }),
      h("p", { text: t("group.games_counted", { count: page.games }) }),
      standingsTable(page),
      ratingPlot(page.standings),
      errorLine("standings"),
      h("p", {},
        h("button", { type: "button", class: "button small", text: t("group.csv"), on: { click: () => run(downloadCsv, "standings") } }),));
  }

  function recentEl(page) {
    return h("section", { class: "panel", id: "recent" },
      h("h2", { text: t("group.recent") }),
      page.recent.length
        ? h("ol", { class: "plain-list" }, page.recent.map((game) => h("li", {},
          h("span", { text: formatWhen(game.finished_at) }), " · ",
          h("span", { text: game.real_cards ? t("group.real_cards") : t("group.online") }), " · ",
          h("span", {}, game.players.map((p, index) => [index ? ", " : "", `${personName(p)} ${p.total}`,
            p.winner ? [h("span", { "aria-hidden": "true", text: " ★" }), h("span", { class: "visually-hidden", text: ` (${t("group.winner")})` })] : null])), " · ",
          h("a", { href: game.replay, text: t("profile.replay") }))))
        : h("p", { text: t("group.no_games") }),
      page.evenings.length > 0 && h("h3", { text: t("group.evenings") }),
      page.evenings.map((evening) => h("p", { class: "evening" },
        // The day it began where the reader is (an evening past midnight is one evening).
        h("strong", { text: formatDay(evening.first_game_at || `${evening.date}T12:00:00Z`) }), " ",
        eveningText(evening))));
  }

  function membersEl(page) {
    return h("section", { class: "panel", id: "members" },
      h("h2", { text: t("group.members") }),
      h("ul", { class: "plain-list members" }, page.members.map((member) => h("li", {},
        avatarEl(member), " ", personName(member), member.owner ? ` (${t("group.owner")})` : ""))),
      page.group.owner && h("p", { class: "button-row" },
        h("button", { type: "button", class: "button", id: "new-invite", text: t("group.invite"), on: { click: () => run(async () => {
          state.invite = await api("POST", `/api/groups/${encodeURIComponent(code)}/invite`);
          page.group.invite_open = true;
        }, "members") } }),
        // Only an invite that works can be revoked.
        page.group.invite_open && h("button", { type: "button", class: "button", id: "revoke-invite", text: t("group.revoke"), on: { click: () => run(async () => {
          await api("DELETE", `/api/groups/${encodeURIComponent(code)}/invite`);
          state.invite = null;
          page.group.invite_open = false;
        }, "members") } })),
      errorLine("members"),
      state.invite && h("input", { readonly: true, class: "link-field", id: "invite-link", value: state.invite.url, "aria-label": t("group.invite_link") }),
      h("p", {}, h("button", { type: "button", class: "button", id: "leave-group", text: t("group.leave"), on: { click: () => {
        if (!window.confirm(t("group.leave_confirm", { name: page.group.name }))) return;
        run(async () => {
          await api("POST", `/api/groups/${encodeURIComponent(code)}/leave`);
          location.assign("/me");
        }, "members");
      } } })));
  }

  function playEl(page) {
    const opts = state.table;
    const keep = (key, read = (el) => el.value) => (event) => { opts[key] = read(event.target); };
    const number = (id, key, min, max) => h("input", { type: "number", id, class: "count-input", min, max, value: String(opts[key]),
      on: { input: keep(key) } });
    const levels = state.bots.length ? state.bots : ["medium"];
    const guests = h("input", { id: "group-guests", value: state.guests, placeholder: t("group.guests_hint"),
      on: { input: () => { state.guests = guests.value; } } });
    return h("section", { class: "panel", id: "play" },
      h("h2", { text: t("group.play") }),
      errorLine("play"),
      h("form", { class: "group-form", id: "group-table", on: { submit: (event) => {
        event.preventDefault();
        const count = Number(opts.people) + Number(opts.bots);
        if (!(Number(opts.people) >= 1 && count >= 2 && count <= 10)) {
          state.error = t("group.seat_count");
          state.errorAt = "play";
          render();
          return;
        }
        run(async () => {
          const bot = { kind: "bot", bot: opts.level };
          const seats = [...Array(Number(opts.people)).fill({ kind: "human" }), ...Array(Number(opts.bots)).fill(bot)];
          const made = await api("POST", `/api/groups/${encodeURIComponent(code)}/tables`,
            { seats, coach: opts.coach, away_seconds: Number(opts.away) });
          safeSet(tokenKey(made.code), made.token);
          location.assign(made.url);
        }, "play");
      } } },
      h("h3", { text: t("group.online_heading") }),
      h("div", { class: "inline-form" },
        h("span", { class: "pair" }, h("label", { for: "group-people", text: t("group.people") }), number("group-people", "people", "1", "10")),
        h("span", { class: "pair" }, h("label", { for: "group-bots", text: t("group.bots") }), number("group-bots", "bots", "0", "9")),
        h("span", { class: "pair" }, h("label", { for: "group-level", text: t("group.bot_level") }),
          h("select", { id: "group-level", on: { change: keep("level") } },
            levels.map((bot) => h("option", { value: bot, selected: bot === opts.level, text: botLabel(bot, { t, has }) }))))),
      h("label", { class: "check", for: "group-coach" },
        h("input", { type: "checkbox", id: "group-coach", checked: opts.coach, on: { change: keep("coach", (el) => el.checked) } }),
        " ", t("start.allow_coach")),
      h("div", { class: "inline-form" },
        h("label", { for: "group-away", text: t("start.away_label") }),
        h("select", { id: "group-away", on: { change: keep("away") } },
          [1, 2, 5, 10].map((minutes) => h("option", { value: String(minutes * 60), selected: Number(opts.away) === minutes * 60,
            text: t("start.away_minutes", { count: minutes }) })))),
      h("p", {}, h("button", { type: "submit", class: "button primary", text: t("group.open_table") }))),
      h("form", { class: "group-form", id: "group-real", on: { submit: (event) => {
        event.preventDefault();
        run(async () => {
          const players = [
            ...page.members.filter((m) => state.picked.has(m.profile)).map((m) => ({ profile: m.profile })),
            ...state.guests.split(",").map((name) => name.trim()).filter(Boolean).map((name) => ({ name })),
          ];
          const made = await api("POST", `/api/groups/${encodeURIComponent(code)}/assisted`, { players });
          safeSet(tokenKey(made.code), made.token);
          location.assign(made.url);
        }, "play");
      } } },
      h("h3", { text: t("group.real_players") }),
      h("fieldset", {}, h("legend", { text: t("group.real_who") }),
        page.members.map((member) => h("label", { class: "check" },
          h("input", { type: "checkbox", checked: state.picked.has(member.profile), on: { change: (event) => {
            if (event.target.checked) state.picked.add(member.profile); else state.picked.delete(member.profile);
          } } }), " ", member.name))),
      h("div", { class: "inline-form" }, h("label", { for: "group-guests", text: t("group.guests") }), guests),
      h("p", {}, h("button", { type: "submit", class: "button", text: t("group.open_real") }))));
  }

  function render() {
    clear(root);
    const page = h("div", { class: "group-page" });
    const topError = errorLine(null);
    if (topError) page.append(topError);
    if (!state.page && !state.error) page.append(h("p", { class: "page-message loading", text: "…" }));
    if (!safeGet(PROFILE_KEY)) page.append(h("p", {}, h("a", { class: "button", href: "/me", text: t("group.to_profile") })));
    if (state.page) {
      setPageTitle(state.page.group.name);
      page.append(h("h1", { text: state.page.group.name }),
        openEl(state.page), standingsEl(state.page), recentEl(state.page), playEl(state.page), membersEl(state.page));
    }
    root.append(page);
  }

  render();
  load();
  const openTimer = setInterval(refreshOpen, OPEN_REFRESH_MS);
  return { rerender: render, destroy() { alive = false; clearInterval(openTimer); } };
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
