// The replay viewer: a finished game of a table ("/t/{code}/replay", `?game=N`) or a record file
// the reader drops on the page or chooses ("/replay"), stepped through turn by turn, forwards
// and backwards. Each step's position (rows, reveal, takes, scores, hands) comes from the
// server's rules engine (docs/protocol.md, "Replays"); this page only draws it, with the board
// kit's render.js (kit/), and animates a single step forward with the kit's animate.js. A link can
// open a step (`#r2t5`, `#r2end`, `?round=2&turn=5`). Keys: arrows step, Home/End jump,
// PageUp/PageDown go from round to round.

import { ApiError, api, errorText } from "./api.js";
import { clear, h } from "./dom.js";
import { formatList, has, safeGet, safeSet, t } from "./i18n.js";
import {
  animatesTo,
  beforeTurn,
  coachAt,
  handAt,
  keyTarget,
  parsePosition,
  positionHash,
  positionText,
  stepIndexFor,
  stepLines,
  stepSeats,
  stepStatus,
} from "./replay-model.js";
import { STEP_MS, animateEvent } from "./kit/animate.js";
import { createAnnouncer } from "./kit/announce.js";
import {
  recordLink,
  renderBoard,
  renderCard,
  renderPageMessage,
  renderScoreTable,
  renderSeats,
  renderSpeed,
} from "./kit/render.js";
import { speedFrom } from "./kit/state.js";

export const MAX_RECORD_BYTES = 256 * 1024; // the server's default limit for POST /api/replay

/** Mount the viewer. `code`: a table's finished game; null: a record file the reader brings. */
export function mountReplay(root, { code = null, game = null } = {}) {
  const s = {
    replay: null,
    index: 0,
    loading: Boolean(code),
    error: null, // { title, text } for a page that cannot show the game
    fileError: null,
    fileName: null,
    followed: 0,
    speed: speedFrom(safeGet("nimmt.speed")),
    coachOn: false,
    coach: new Map(), // seat -> analysis, or { error } / { loading: true }
  };
  let destroyed = false;
  const say = createAnnouncer();
  let generation = 0; // bumped by every drawing: an animation of an older one stops

  const nameOf = (seat) => (s.replay ? s.replay.players[seat] : t("seat.empty_name", { number: seat + 1 }));
  const words = () => ({ t, formatList, has, nameOf, me: null });
  const motion = { get speed() { return s.speed; }, nameOf, me: null };

  // ---------------------------------------------------------------- loading

  async function loadTable() {
    const query = game ? `?game=${encodeURIComponent(game)}` : "";
    try {
      const replay = await api("GET", `/api/tables/${code}/replay${query}`);
      if (destroyed) return;
      show(replay);
    } catch (err) {
      if (destroyed) return;
      s.loading = false;
      s.error = tableErrorText(err);
      render();
    }
  }

  function tableErrorText(err) {
    const reason = err && err.code;
    if (reason === "game_not_finished") return { title: t("replay.running_title"), text: t("replay.running"), back: true };
    if (reason === "table_not_found") return { title: t("errors.table_not_found_title"), text: errorText(reason) };
    if (reason === "game_not_found") return { title: t("replay.not_found_title"), text: errorText(reason), back: true };
    return { title: t("replay.failed_title"), text: errorText(reason, err && err.message) };
  }

  function show(replay) {
    s.replay = replay;
    s.loading = false;
    s.fileError = null;
    s.coachOn = false;
    s.coach = new Map();
    s.followed = Math.min(s.followed, replay.players.length - 1);
    s.index = stepIndexFor(replay.steps, parsePosition(location.hash, location.search));
    render({ focus: "replay-next" });
    announcePosition();
  }

  function readFile(file) {
    if (!file) return;
    s.fileName = file.name;
    if (file.size > MAX_RECORD_BYTES) {
      s.fileError = t("replay.file_too_large", { name: file.name, size: Math.round(MAX_RECORD_BYTES / 1024) });
      render({ focus: "replay-choose" });
      return;
    }
    const reader = new FileReader();
    reader.onerror = () => {
      s.fileError = t("replay.file_unreadable", { name: file.name });
      render({ focus: "replay-choose" });
    };
    reader.onload = () => sendRecord(String(reader.result), file.name);
    reader.readAsText(file);
  }

  async function sendRecord(text, name) {
    s.loading = true;
    render();
    let answer;
    try {
      const res = await fetch("/api/replay", { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
      const data = await res.json().catch(() => null);
      if (!res.ok) {
        const error = (data && data.error) || {};
        throw new ApiError(error.code || `http_${res.status}`, error.message || res.statusText, res.status);
      }
      answer = data;
    } catch (err) {
      if (destroyed) return;
      s.loading = false;
      s.fileError = err && err.code === "bad_record"
        ? t("replay.bad_record", { name, reason: err.message })
        : errorText(err && err.code, err && err.message);
      render({ focus: "replay-choose" });
      return;
    }
    if (destroyed) return;
    s.fileName = name;
    show(answer);
  }

  // ---------------------------------------------------------------- moving

  function goTo(index, { animate = false } = {}) {
    if (!s.replay) return;
    const steps = s.replay.steps;
    const target = Math.max(0, Math.min(steps.length - 1, index));
    if (target === s.index) return;
    const from = s.index;
    s.index = target;
    if (code) history.replaceState(null, "", `${location.pathname}${location.search}${positionHash(steps[target])}`);
    if (animate && animatesTo(steps, from, target)) play(steps[from], steps[target]);
    else render();
    announcePosition();
  }

  async function play(previous, step) {
    const mine = render({ picture: beforeTurn(step, previous) });
    const stage = root.querySelector(".replay-page");
    try {
      for (const event of step.events) {
        if (mine !== generation || destroyed) return;
        await animateEvent(stage, event, motion);
      }
    } catch (err) {
      console.error(err); // a drawing hiccup: the step is drawn whole below
    }
    if (mine === generation && !destroyed) render();
  }

  function onKey(event) {
    if (!s.replay || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, [role=dialog]")) return;
    const index = keyTarget(event.key, s.index, s.replay.steps);
    if (index === null) return;
    event.preventDefault();
    goTo(index, { animate: event.key === "ArrowRight" });
  }

  function announcePosition() {
    const step = s.replay && s.replay.steps[s.index];
    if (step) say.announce(`${positionText(step, t)}. ${stepStatus(step, words())}`);
  }

  // ---------------------------------------------------------------- coach

  function toggleCoach() {
    s.coachOn = !s.coachOn;
    render({ focus: "replay-coach" });
    if (s.coachOn) loadCoach(s.followed);
  }

  function follow(seat) {
    s.followed = seat;
    render();
    if (s.coachOn) loadCoach(seat);
  }

  /** The coach's review of `seat`'s decisions, asked once per seat (the server remembers it). */
  async function loadCoach(seat) {
    if (s.coach.has(seat)) return;
    s.coach.set(seat, { loading: true });
    render();
    const gameNumber = s.replay.meta ? s.replay.meta.game : null;
    try {
      const analysis = await api("GET", `/api/tables/${code}/analysis?seat=${seat}${gameNumber ? `&game=${gameNumber}` : ""}`);
      s.coach.set(seat, analysis);
    } catch (err) {
      s.coach.set(seat, { error: errorText(err && err.code, err && err.message) });
    }
    if (!destroyed) render();
  }

  // ---------------------------------------------------------------- drawing

  function focusKeyOf(el) {
    const holder = el && el.closest && el.closest("[data-focus]");
    return holder ? holder.dataset.focus : null;
  }

  /** Draw the page; `picture` replaces the step's own data (the moment before a turn plays). */
  function render({ picture = null, focus = null } = {}) {
    generation += 1;
    if (destroyed) return generation;
    const active = document.activeElement;
    const focusWasHere = !active || active === document.body || root.contains(active);
    const key = focus || (focusWasHere ? focusKeyOf(active) : null);
    clear(root);
    if (s.error) {
      const page = renderPageMessage(s.error.title, s.error.text);
      if (s.error.back && code) {
        page.append(h("p", {}, h("a", { class: "button", href: `/t/${code}`, text: t("replay.back_to_table") })));
      }
      root.append(page);
      return generation;
    }
    if (s.loading) {
      root.append(h("p", { class: "page-message loading", text: t("replay.loading") }));
      return generation;
    }
    root.append(s.replay ? viewer(picture) : dropPage());
    if (key && (focusWasHere || focus)) {
      let target = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      // A step button that the step disabled (the first or last step): focus stays in the bar.
      if (target && target.disabled) target = root.querySelector("#replay-position");
      target?.focus({ preventScroll: true });
    }
    return generation;
  }

  function dropPage() {
    const input = h("input", {
      type: "file", id: "replay-file", class: "visually-hidden", accept: ".json,application/json",
      on: { change: (event) => readFile(event.target.files && event.target.files[0]) },
    });
    let zone = null;
    const dropEvents = {
        dragover: (event) => { event.preventDefault(); zone.classList.add("over"); },
        dragleave: () => zone.classList.remove("over"),
        drop: (event) => {
          event.preventDefault();
          zone.classList.remove("over");
          readFile(event.dataTransfer && event.dataTransfer.files && event.dataTransfer.files[0]);
        },
    };
    zone = h("section", { class: "replay-drop", "aria-labelledby": "replay-drop-title" },
      h("h1", { id: "replay-drop-title", text: t("replay.drop_title") }),
      h("p", { text: t("replay.drop_text") }),
      input,
      h("label", { for: "replay-file", class: "button primary", tabindex: "0", "data-focus": "replay-choose",
        on: { keydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); input.click(); } } },
        text: t("replay.choose_file") }),
      s.fileError ? h("p", { class: "form-error", role: "alert", text: s.fileError }) : null,
      h("p", { class: "muted", text: t("replay.drop_private") }));
    return h("div", { class: "replay-drop-page", on: dropEvents }, zone);
  }

  function viewer(picture) {
    const steps = s.replay.steps;
    const step = steps[s.index];
    const shown = picture || step;
    const coach = s.coachOn ? s.coach.get(s.followed) : null;
    const figures = coach && coach.decisions ? coachAt(coach, step) : { card: null, row: null };
    const board = renderBoard({ rows: shown.rows, revealed: shown.revealed, status: stepStatus(shown, words()), nameOf, me: null });
    // The reveal marks its lowest card as the one below every row: true only where a row was chosen.
    if (shown.row_chosen === null || shown.row_chosen === undefined) {
      board.querySelectorAll(".reveal-item.too-low").forEach((item) => item.classList.remove("too-low"));
    }
    return h("div", { class: "replay-page", style: { "--step": `${STEP_MS / s.speed}ms` } },
      bar(step),
      h("div", { class: "replay-stage" },
        board,
        h("div", { class: "replay-side" },
          renderSeats(stepSeats(shown, s.replay.players)),
          picture ? null : happenings(step, figures.row),
          picture ? null : sheet(step))),
      hand(step, figures.card, coach));
  }

  function bar(step) {
    const steps = s.replay.steps;
    const last = steps.length - 1;
    const button = (focusKey, label, shortcut, target, text, disabled) =>
      h("button", {
        type: "button", class: "chip replay-step", "data-focus": focusKey, "aria-label": label, "aria-keyshortcuts": shortcut,
        title: label, disabled, text, on: { click: () => goTo(target, { animate: focusKey === "replay-next" }) },
      });
    const source = code
      ? t("replay.source_table", { code, game: (s.replay.meta && s.replay.meta.game) || 1 })
      : t("replay.source_file", { name: s.fileName || "" });
    const links = code
      ? [
          h("a", { class: "chip", href: `/t/${code}`, "data-focus": "replay-table", text: t("replay.back_to_table") }),
          recordLink(code, { class: "chip", "data-focus": "replay-download", href: `/api/tables/${code}/record${s.replay.meta ? `?game=${s.replay.meta.game}` : ""}` }),
        ]
      : [h("button", { type: "button", class: "chip", "data-focus": "replay-other", text: t("replay.open_other"),
          on: { click: () => { s.replay = null; s.fileError = null; history.replaceState(null, "", location.pathname); render({ focus: "replay-choose" }); } } })];
    return h("div", { class: "table-bar replay-bar" },
      h("div", { class: "table-id" },
        h("h1", { class: "replay-title", text: t("replay.title") }),
        h("span", { class: "muted", text: source })),
      h("div", { class: "replay-controls", role: "group", "aria-label": t("replay.controls") },
        button("replay-first", t("replay.first"), "Home", 0, "|◀", s.index === 0),
        button("replay-prev", t("replay.previous"), "ArrowLeft", s.index - 1, "◀", s.index === 0),
        h("span", { class: "replay-position table-info", id: "replay-position", tabindex: "-1", "data-focus": "replay-position", text: positionText(step, t) }),
        button("replay-next", t("replay.next"), "ArrowRight", s.index + 1, "▶", s.index === last),
        button("replay-last", t("replay.last"), "End", last, "▶|", s.index === last)),
      h("div", { class: "table-tools" },
        renderSpeed(s.speed, (value) => { s.speed = value; safeSet("nimmt.speed", String(value)); render(); }),
        links),
      h("p", { class: "replay-hint muted", text: t("replay.keys_hint", { step: s.index + 1, count: steps.length }) }));
  }

  function happenings(step, rowCoach) {
    const lines = stepLines(step, words());
    if (rowCoach) {
      const best = Math.min(...rowCoach.expected.values());
      const costs = [...rowCoach.expected.entries()].map(([row, expected]) =>
        t("replay.coach_row_item", { row, extra: (expected - best).toFixed(1) }));
      lines.push(t("replay.coach_rows", { rows: formatList(costs), best: rowCoach.best }));
    }
    if (!lines.length) return null;
    return h("ol", { class: "replay-lines", "aria-label": t("replay.what_happened") }, lines.map((line) => h("li", { text: line })));
  }

  function sheet(step) {
    if (step.kind !== "scored") return null;
    const names = s.replay.players;
    return h("section", { class: "sheet replay-sheet", "aria-labelledby": "replay-sheet-title" },
      h("h2", { id: "replay-sheet-title", text: step.outcome ? t("sheet.game_over") : t("sheet.after_round", { round: step.round }) }),
      step.outcome ? h("p", { class: "winners", text: stepStatus(step, words()) }) : null,
      h("div", { class: "sheet-scroll" }, renderScoreTable({ names, rounds: step.score_sheet, totals: step.totals })));
  }

  function hand(step, cardCoach, coach) {
    const players = s.replay.players;
    const { cards, played } = handAt(step, s.followed);
    const select = h("select", {
      id: "replay-follow", "data-focus": "replay-follow",
      on: { change: (event) => follow(Number(event.target.value)) },
    }, players.map((name, seat) => h("option", { value: String(seat), selected: seat === s.followed, text: name })));
    const best = cardCoach ? Math.min(...cardCoach.expected.values()) : null;
    const cardsEl = cards.map((card) => {
      const expected = cardCoach ? cardCoach.expected.get(card) : undefined;
      const extra = expected === undefined ? null : expected - best;
      const isBest = cardCoach && card === cardCoach.best;
      const face = renderCard(card);
      if (card === played) face.classList.add("lifted");
      return h("div", { class: `replay-hand-card${card === played ? " played-here" : ""}` },
        face,
        extra === null ? null : h("span", {
          class: `coach-figure${isBest ? " best" : ""}`,
          text: isBest ? t("replay.coach_best") : t("replay.coach_extra", { extra: extra.toFixed(1) }),
        }));
    });
    // The coach reviews a finished game of a table (GET /api/tables/{code}/analysis).
    const toggle = code && s.replay.finished
      ? h("button", {
          type: "button", class: "chip", id: "replay-coach", "data-focus": "replay-coach", "aria-pressed": String(s.coachOn),
          text: t("replay.coach_toggle", { name: players[s.followed] }), on: { click: toggleCoach },
        })
      : null;
    let coachNote = null;
    if (s.coachOn && coach && coach.loading) coachNote = t("replay.coach_loading");
    else if (s.coachOn && coach && coach.error) coachNote = coach.error;
    else if (s.coachOn && cardCoach) {
      coachNote = cardCoach.loss > 0
        ? t("replay.coach_loss", { card: cardCoach.chosen, best: cardCoach.best, loss: cardCoach.loss.toFixed(1) })
        : t("replay.coach_good", { card: cardCoach.chosen });
    } else if (s.coachOn && step.kind === "turn") coachNote = t("replay.coach_no_choice");
    return h("section", { class: "hand-area replay-hand-area", "aria-labelledby": "replay-follow-label" },
      h("div", { class: "replay-hand-head" },
        h("label", { for: "replay-follow", id: "replay-follow-label", text: t("replay.hand_of") }), select, toggle),
      cards.length
        ? h("div", { class: "hand idle replay-hand", role: "group", "aria-label": t("replay.hand_label", { name: players[s.followed] }) }, cardsEl)
        : h("p", { class: "muted hand-empty", text: t("replay.hand_none") }),
      played !== null && played !== undefined
        ? h("p", { class: "hint", text: t("replay.played", { name: players[s.followed], card: played }) })
        : null,
      coachNote ? h("p", { class: "coach-note", role: "status", text: coachNote }) : null);
  }

  // ------------------------------------------------------------------ start

  document.addEventListener("keydown", onKey);
  const onHash = () => {
    if (!s.replay) return;
    const index = stepIndexFor(s.replay.steps, parsePosition(location.hash, ""));
    if (index !== s.index) {
      s.index = index;
      render();
    }
  };
  window.addEventListener("hashchange", onHash);
  render();
  if (code) loadTable();

  return {
    rerender: () => render(),
    destroy() {
      destroyed = true;
      generation += 1;
      say.reset();
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("hashchange", onHash);
    },
  };
}
