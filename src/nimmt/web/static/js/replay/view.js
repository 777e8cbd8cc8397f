// The replay viewer drawn, from its model (`s`, see main.js) and the step shown: the bar (where
// in the game, the step buttons, the speed, the links), the board (kit/render.js), the seats,
// what happened in the step, the score sheet after a round, and the hand of the player followed
// with the coach's figures; or, without a game, the page a record file is dropped on. Nothing
// here changes the model: the buttons call `on`.
//
// `ctx`: `{ code, s, nameOf(seat), words(), on: { readFile, goTo, openOther, setSpeed, follow,
// toggleCoach } }`.

import { h } from "../dom.js";
import { formatList, t } from "../i18n.js";
import { STEP_MS } from "../kit/animate.js";
import { recordLink, renderBoard, renderCard, renderScoreTable, renderSeats, renderSpeed } from "../kit/render.js";
import { sheetScroll } from "../kit/sheetscroll.js";
import { coachAt, handAt, playerNames, positionText, stepLines, stepSeats, stepStatus } from "./model.js";

export function createReplayView(ctx) {
  const { code, s, nameOf, words, on } = ctx;

  function dropPage() {
    const input = h("input", {
      type: "file", id: "replay-file", class: "visually-hidden", accept: ".json,application/json",
      on: { change: (event) => on.readFile(event.target.files && event.target.files[0]) },
    });
    let zone = null;
    const dropEvents = {
        dragover: (event) => { event.preventDefault(); zone.classList.add("over"); },
        dragleave: () => zone.classList.remove("over"),
        drop: (event) => {
          event.preventDefault();
          zone.classList.remove("over");
          on.readFile(event.dataTransfer && event.dataTransfer.files && event.dataTransfer.files[0]);
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
          renderSeats(stepSeats(shown, playerNames(s.replay.players, t))),
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
        title: label, disabled, text, on: { click: () => on.goTo(target, { animate: focusKey === "replay-next" }) },
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
          on: { click: on.openOther } })];
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
        renderSpeed(s.speed, on.setSpeed),
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
    const names = playerNames(s.replay.players, t);
    return h("section", { class: "sheet replay-sheet", "aria-labelledby": "replay-sheet-title" },
      h("h2", { id: "replay-sheet-title", text: step.outcome ? t("sheet.game_over") : t("sheet.after_round", { round: step.round }) }),
      step.outcome ? h("p", { class: "winners", text: stepStatus(step, words()) }) : null,
      sheetScroll(renderScoreTable({ names, rounds: step.score_sheet, totals: step.totals })));
  }

  function hand(step, cardCoach, coach) {
    const players = playerNames(s.replay.players, t);
    const { cards, played } = handAt(step, s.followed);
    const select = h("select", {
      id: "replay-follow", "data-focus": "replay-follow",
      on: { change: (event) => on.follow(Number(event.target.value)) },
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
          text: t("replay.coach_toggle", { name: players[s.followed] }), on: { click: on.toggleCoach },
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


  return { dropPage, viewer };
}
