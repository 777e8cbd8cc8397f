// The start page: create a table (2 to 10 seats, each a person or a bot level from
// GET /api/bots), join one by its short code, start the assistant for a game with real cards
// (assist/start.js), or pick one from the list of open tables to join or watch. The display name is remembered in localStorage ("nimmt.name").
// A browser signed in to no profile is offered "Sign in with a passkey" where passkeys work
// (profile/passkeys.js); signed in, the name is the profile's.

import { ApiError, PROFILE_KEY, api, apiErrorText, failureOf, tokenKey } from "./api.js";
import { realCardsForm } from "./assist/start.js";
import { cardEl } from "./cards.js";
import { clear, h } from "./dom.js";
import { safeGet, safeSet, t } from "./i18n.js";
import { NAME_MAX, cleanName, nameProblem } from "./names.js";
import { keepSignIn, offersPasskeySignIn, passkeyOfferEl } from "./profile/passkeys.js";
import { CODE_INPUT_MAX, CODE_PATTERN, tableCodeOf } from "./tablecode.js";

const MIN_SEATS = 2;
const MAX_SEATS = 10;

export function mountStart(root) {
  const state = {
    name: safeGet("nimmt.name") || "",
    code: "",
    seats: null, // filled once the bot levels are known
    bots: [],
    tables: null,
    tablesError: null,
    createError: null,
    joinError: null,
    fullCode: null, // the table a join found full: the page offers to watch it instead
    busy: false,
    coach: false, // the new table allows the coach for everyone at it
    awaySeconds: 120, // how long a person must be away before a bot may be proposed for them
    signedInAs: null, // the profile's name, once a passkey signed this browser in here
    passkeyError: null,
  };
  let refreshTimer = null;
  const realCards = realCardsForm({ firstName: () => state.name, rerender: () => render() });

  const botLabel = (name) => {
    const key = `bots.${name}`;
    const text = t(key);
    return text === key ? name : text;
  };

  function defaultSeats() {
    const bot = ["medium", "greedy"].find((name) => state.bots.includes(name)) || state.bots[0];
    // Two people and two bots: share the link with one friend and the table is complete.
    return bot
      ? [{ kind: "human" }, { kind: "human" }, { kind: "bot", bot }, { kind: "bot", bot }]
      : [{ kind: "human" }, { kind: "human" }, { kind: "human" }, { kind: "human" }];
  }

  function rememberName(value) {
    state.name = value;
    safeSet("nimmt.name", value.trim() || null);
  }

  function checkName() {
    const problem = nameProblem(state.name);
    if (problem === "missing") return t("start.name_missing");
    if (problem === "too_long") return t("seating.too_long", { max: NAME_MAX });
    return null;
  }

  async function create(event) {
    event.preventDefault();
    const problem = checkName();
    if (problem) return showError("create", problem, "#player-name");
    if (!state.seats.some((seat) => seat.kind === "human")) {
      return showError("create", t("start.need_human"));
    }
    state.busy = true;
    render();
    try {
      const made = await api("POST", "/api/tables", { seats: state.seats, name: cleanName(state.name), coach: state.coach, away_seconds: state.awaySeconds });
      if (made.token) safeSet(tokenKey(made.code), made.token);
      location.assign(made.url || `/t/${made.code}`);
    } catch (err) {
      state.busy = false;
      showError("create", apiErrorText(err));
    }
  }

  async function join(code, event) {
    if (event) event.preventDefault();
    code = tableCodeOf(code); // a pasted " K7QX2M" or the table's whole link too
    if (!CODE_PATTERN.test(code)) return showError("join", t("start.code_invalid"), "#join-code");
    if (safeGet(tokenKey(code))) {
      location.assign(`/t/${code}`); // this browser already holds a seat there
      return;
    }
    const problem = checkName();
    if (problem) return showError("join", problem, "#player-name");
    state.busy = true;
    render();
    try {
      const seat = await api("POST", `/api/tables/${code}/join`, { name: cleanName(state.name) });
      safeSet(tokenKey(code), seat.token);
      location.assign(`/t/${code}`);
    } catch (err) {
      state.busy = false;
      showError("join", apiErrorText(err));
      if (err && err.code === "table_full") {
        state.fullCode = code;
        render();
        root.querySelector("#watch-instead")?.focus();
      }
    }
  }

  /** A pasted link (or a code with spaces around it) shows as the code it holds. */
  function showCodeOf(field) {
    const code = tableCodeOf(field.value);
    if (CODE_PATTERN.test(code) && code !== field.value.toUpperCase()) field.value = code;
  }

  function showError(where, message, focusSelector = null) {
    state.createError = where === "create" ? message : null;
    state.joinError = where === "join" ? message : null;
    state.fullCode = null;
    render();
    const target = focusSelector ? root.querySelector(focusSelector) : null;
    if (target) target.focus();
  }

  async function loadTables() {
    try {
      const data = await api("GET", "/api/tables");
      state.tables = data.tables || [];
      state.tablesError = null;
    } catch (err) {
      state.tablesError = apiErrorText(err);
    }
    renderTables();
  }

  function seatEditor() {
    const list = h("ol", { class: "seat-list" });
    state.seats.forEach((seat, index) => {
      const select = h(
        "select",
        {
          id: `seat-${index}`,
          "aria-label": t("start.seat_label", { number: index + 1 }),
          on: {
            change: (event) => {
              const value = event.target.value;
              state.seats[index] = value === "human" ? { kind: "human" } : { kind: "bot", bot: value };
            },
          },
        },
        h("option", { value: "human", text: t("start.seat_human") }),
        state.bots.map((bot) => h("option", { value: bot, text: t("start.seat_bot", { level: botLabel(bot) }) })),
      );
      select.value = seat.kind === "human" ? "human" : seat.bot;
      list.append(
        h("li", { class: "seat-line" },
          h("span", { class: "seat-number", "aria-hidden": "true", text: String(index + 1) }),
          select,
          index === 0 ? h("span", { class: "seat-you", text: t("start.seat_you") }) : null),
      );
    });
    return list;
  }

  function changeSeats(delta) {
    const count = state.seats.length + delta;
    if (count < MIN_SEATS || count > MAX_SEATS) return;
    if (delta > 0) state.seats.push(state.bots.length ? { kind: "bot", bot: state.seats.at(-1).bot || state.bots[0] } : { kind: "human" });
    else state.seats.pop();
    render();
    root.querySelector(delta > 0 ? "#add-seat" : "#remove-seat")?.focus();
  }

  function renderTables() {
    const box = root.querySelector("#open-tables");
    if (!box) return;
    clear(box);
    if (state.tablesError) {
      box.append(h("p", { class: "form-error", role: "alert", text: state.tablesError }));
      return;
    }
    if (state.tables === null) {
      box.append(h("p", { class: "muted", text: t("start.tables_loading") }));
      return;
    }
    if (state.tables.length === 0) {
      box.append(h("p", { class: "muted", text: t("start.tables_none") }));
      return;
    }
    const list = h("ul", { class: "table-list" });
    for (const table of state.tables) {
      const status =
        table.phase === "waiting"
          ? t("start.table_waiting", { count: table.free_seats })
          : t("start.table_playing", { round: table.round });
      const people = table.humans.length
        ? t("start.table_people", { names: table.humans.join(", ") })
        : t("start.table_nobody");
      list.append(
        h("li", { class: "table-item", "data-code": table.code },
          h("div", { class: "table-item-text" },
            h("strong", { class: "code", text: table.code }),
            h("span", { text: t("start.table_seats", { count: table.seats }) }),
            h("span", { class: "muted", text: people }),
            h("span", { class: "muted", text: status })),
          h("div", { class: "table-item-actions" },
            table.free_seats > 0
              ? h("button", { class: "button small", type: "button", text: t("start.join"), on: { click: () => join(table.code) } })
              : null,
            h("a", { class: "button small ghost", href: `/t/${table.code}`, text: t("start.watch") }),
            h("a", { class: "button small ghost", href: `/t/${table.code}/board`, text: t("board.open") }))),
      );
    }
    box.append(list);
  }

  async function signIn(action) {
    state.passkeyError = null; // no old error shown while it runs
    state.passkeyError = await failureOf(action);
    render();
  }

  function signedIn(made) {
    keepSignIn(made);
    state.name = made.profile.name;
    state.signedInAs = made.profile.name;
  }

  function passkeyPart() {
    if (state.signedInAs) {
      return h("p", { class: "passkey-offer", id: "start-signed-in", role: "status" },
        h("a", { href: "/me", text: t("start.signed_in_as", { name: state.signedInAs }) }));
    }
    if (!offersPasskeySignIn(window, Boolean(safeGet(PROFILE_KEY)))) return null;
    return h("div", {}, passkeyOfferEl(signIn, signedIn),
      state.passkeyError ? h("p", { class: "form-error", role: "alert", text: state.passkeyError }) : null);
  }

  function render() {
    const focusedId = document.activeElement && document.activeElement.id;
    clear(root);
    const hero = h("section", { class: "hero" },
      h("div", { class: "hero-text" },
        h("h1", { text: t("start.title") }),
        h("p", { class: "lead", text: t("start.tagline") }),
        h("p", {}, h("a", { href: `/rules/${document.documentElement.lang}`, text: t("start.read_rules") })),
        h("p", {}, h("a", { href: "/replay", id: "replay-link", text: t("replay.lobby_link") }))),
      h("div", { class: "hero-cards", "aria-hidden": "true" }, [7, 15, 30, 44, 55].map((card) => cardEl(card))));

    const nameField = h("div", { class: "field name-field" },
      h("label", { for: "player-name", text: t("start.your_name") }),
      h("input", {
        id: "player-name", type: "text", autocomplete: "nickname",
        placeholder: t("start.name_placeholder"), value: state.name,
        on: { input: (event) => rememberName(event.target.value) },
      }));

    const createPanel = h("form", { class: "panel", id: "create-form", on: { submit: create } },
      h("h2", { text: t("start.new_table") }),
      h("p", { class: "muted", text: t("start.new_table_help") }),
      state.seats ? seatEditor() : h("p", { class: "muted", text: t("start.tables_loading") }),
      h("div", { class: "seat-buttons" },
        h("button", { type: "button", class: "button small ghost", id: "remove-seat",
          disabled: !state.seats || state.seats.length <= MIN_SEATS, text: t("start.remove_seat"),
          on: { click: () => changeSeats(-1) } }),
        h("button", { type: "button", class: "button small ghost", id: "add-seat",
          disabled: !state.seats || state.seats.length >= MAX_SEATS, text: t("start.add_seat"),
          on: { click: () => changeSeats(1) } })),
      h("div", { class: "field check allow-coach" },
        h("input", { id: "allow-coach", type: "checkbox", checked: state.coach, "aria-describedby": "allow-coach-help",
          on: { change: (event) => { state.coach = event.target.checked; } } }),
        h("label", { for: "allow-coach", text: t("start.allow_coach") }),
        h("p", { class: "muted field-help", id: "allow-coach-help", text: t("start.allow_coach_help") })),
      h("div", { class: "field" },
        h("label", { for: "away-minutes", text: t("start.away_label") }),
        h("select", { id: "away-minutes", "aria-describedby": "away-minutes-help",
          on: { change: (event) => { state.awaySeconds = Number(event.target.value); } } },
          ...[1, 2, 5, 10].map((minutes) => h("option", { value: String(minutes * 60), selected: state.awaySeconds === minutes * 60,
            text: t("start.away_minutes", { count: minutes }) }))),
        h("p", { class: "muted field-help", id: "away-minutes-help", text: t("start.away_help") })),
      state.createError ? h("p", { class: "form-error", role: "alert", text: state.createError }) : null,
      h("button", { type: "submit", class: "button primary", id: "create-table", disabled: state.busy || !state.seats, text: t("start.create") }));

    const joinPanel = h("form", { class: "panel", id: "join-form", on: { submit: (event) => join(state.code, event) } },
      h("h2", { text: t("start.join_table") }),
      h("p", { class: "muted", text: t("start.join_help") }),
      h("div", { class: "field" },
        h("label", { for: "join-code", text: t("start.code") }),
        h("input", {
          id: "join-code", type: "text", maxlength: CODE_INPUT_MAX, autocomplete: "off", spellcheck: "false",
          autocapitalize: "characters", class: "code-input", placeholder: "K7QX2M", value: state.code,
          on: { input: (event) => { state.code = event.target.value; showCodeOf(event.target); } },
        })),
      state.joinError ? h("p", { class: "form-error", role: "alert", text: state.joinError }) : null,
      state.fullCode
        ? h("p", { class: "watch-instead" },
            h("a", { class: "button", id: "watch-instead", href: `/t/${state.fullCode}`, text: t("seating.watch_instead") }))
        : null,
      h("button", { type: "submit", class: "button primary", id: "join-table", disabled: state.busy, text: t("start.join") }));

    const listPanel = h("section", { class: "panel wide", "aria-labelledby": "open-tables-title" },
      h("div", { class: "panel-head" },
        h("h2", { id: "open-tables-title", text: t("start.open_tables") }),
        h("button", { type: "button", class: "button small ghost", id: "refresh-tables", text: t("start.refresh"), on: { click: loadTables } })),
      h("div", { id: "open-tables" }));

    root.append(h("div", { class: "start-page" }, hero, nameField, passkeyPart(), h("div", { class: "panels" }, createPanel, joinPanel), realCards.render(), listPanel));
    renderTables();
    if (focusedId) root.querySelector(`#${CSS.escape(focusedId)}`)?.focus();
    realCards.placeFocus(root);
  }

  render();
  api("GET", "/api/bots")
    .then((data) => {
      state.bots = (data.bots || []).map((bot) => bot.name);
    })
    .catch(() => {
      state.bots = [];
    })
    .finally(() => {
      state.seats = defaultSeats();
      render();
    });
  loadTables();
  refreshTimer = setInterval(loadTables, 10000);

  return {
    rerender: render,
    destroy() {
      clearInterval(refreshTimer);
    },
  };
}

export { ApiError };
