// The assistant page drawn: the toolbar, the players' line with their points, the board (the
// rows become choices when a player must name one), the entry panel (the number fields, or what
// this device follows) and the score sheet. The board and the sheet show `s.shown`, the view the
// animations have reached; the entry panel shows the newest state's view at once, so typing
// never waits for the animation. Redrawing keeps the focus where it was.
//
// `ctx`: `{ root, code, s (model.js), say (kit/announce.js), enters(), nameOf(seat), words,
// isGone(), on: { copyLink, chooseRow, undo, editTurn, submit, onInput, onFieldKey, onBlur } }`.

import { errorText } from "../api.js";
import { clear, h } from "../dom.js";
import { formatList, has, safeSet, t } from "../i18n.js";
import { STEP_MS } from "../kit/animate.js";
import { rowKeydown } from "../kit/keys.js";
import { recordLink, renderNotReady, renderReveal, renderRows, renderScoreTable, renderSpeed, renderStatus } from "../kit/render.js";
import { sheetScroll } from "../kit/sheetscroll.js";
import { winnersText as winnersSentence } from "../kit/text.js";
import { canUndo, infoText, problemParams } from "./model.js";

export function createAssistView(ctx) {
  const { root, code, s, on } = ctx;
  const enters = () => ctx.enters();
  const nameOf = (seat) => ctx.nameOf(seat);
  const winnersText = (winners, totals) => winnersSentence(winners, totals, ctx.words);
  const fields = () => [...root.querySelectorAll(".assist-field")];

  /** The sentence for a refusal: the assistant's own words when it has them. */
  function problemText(problem) {
    const params = problemParams(problem);
    if (has(`assist.errors.${problem.code}`)) return t(`assist.errors.${problem.code}`, params);
    return errorText(problem.code, problem.message);
  }

  /** Show `problem` (null: none) under the fields and mark its field; `tell`: say it too. */
  function showProblem(problem, tell = true) {
    s.problem = problem;
    const box = root.querySelector("#assist-problem");
    if (box) {
      box.textContent = problem ? problemText(problem) : "";
      box.hidden = !problem;
    }
    fields().forEach((field, index) => {
      const bad = Boolean(problem && problem.index === index);
      field.classList.toggle("invalid", bad);
      field.setAttribute("aria-invalid", String(bad));
    });
    if (problem && tell) ctx.say.announce(problemText(problem));
  }


  function render() {
    if (ctx.isGone()) return;
    clear(root);
    const notReady = renderNotReady({ fatal: s.fatal, hasView: Boolean(s.view), errorText });
    if (notReady) {
      root.append(notReady);
      return;
    }
    root.append(h("div", { class: "assist-page", style: { "--step": `${STEP_MS / s.speed}ms` } },
      h("h1", { class: "visually-hidden", text: t("board.table", { code }) }),
      h("div", { class: "assist-bar-holder" }),
      h("div", { class: "assist-board-holder" }),
      h("div", { class: "assist-entry-holder" }),
      h("div", { class: "assist-sheet-holder" })));
    renderBoard();
    renderEntry();
  }

  function renderBoard() {
    if (ctx.isGone()) return;
    if (!root.querySelector(".assist-page")) {
      render();
      return;
    }
    const holder = root.querySelector(".assist-board-holder");
    const focusKey = focusedKey(holder);
    clear(holder).append(playersSection(), board());
    clear(root.querySelector(".assist-bar-holder")).append(toolbar());
    clear(root.querySelector(".assist-sheet-holder")).append(sheetSection());
    const asked = s.focusRows && root.querySelector('.assist-board [data-focus="row-0"]');
    if (asked) {
      s.focusRows = false;
      asked.focus();
    } else if (focusKey) root.querySelector(`[data-focus="${focusKey}"]`)?.focus({ preventScroll: true });
  }

  function focusedKey(within) {
    const active = document.activeElement;
    if (!active || !root.contains(active)) return null;
    if (within && !within.contains(active) && !root.querySelector(".assist-bar-holder").contains(active) && !root.querySelector(".assist-sheet-holder").contains(active)) return null;
    return active.closest("[data-focus]")?.dataset.focus || null;
  }

  function toolbar() {
    const view = s.shown;
    const info = infoText(view, t);
    return h("div", { class: "table-bar" },
      h("div", { class: "table-id" },
        h("span", { class: "muted", text: t("table.code_label") }),
        h("strong", { class: "code", id: "table-code", text: code }),
        h("button", { type: "button", class: "chip", "data-focus": "copy-link", text: t("table.copy_link"), on: { click: on.copyLink } })),
      h("div", { class: "table-info", text: info }),
      h("div", { class: "table-tools" },
        renderSpeed(s.speed, (value) => { s.speed = value; safeSet("nimmt.speed", String(value)); renderBoard(); }),
        view.score_sheet.length
          ? h("button", { type: "button", class: "chip", id: "open-sheet", "data-focus": "open-sheet", "aria-expanded": String(s.sheetOpen),
              text: t("table.score_sheet"), on: { click: () => { s.sheetOpen = !s.sheetOpen; renderBoard(); } } })
          : null,
        recordLink(code, { class: "chip", "data-focus": "download-bar" })));
  }

  function playersSection() {
    const view = s.shown;
    const best = view.phase === "game_over" && view.outcome ? view.outcome.winners : [];
    const pending = view.pending_row_choice;
    return h("ul", { class: "assist-players", "aria-label": t("table.players") },
      view.names.map((name, seat) => {
        const round = view.penalties[seat] || 0;
        const total = (view.totals[seat] || 0) + (view.phase === "game_over" ? 0 : round);
        return h("li", {
          class: `assist-player${pending && pending.seat === seat ? " asked" : ""}${best.includes(seat) ? " winner" : ""}`,
          "data-seat": seat,
        },
          h("span", { class: "assist-player-name", text: name, title: name }),
          h("span", { class: "visually-hidden", text: t("seat.score_label", { round, total }) }),
          h("span", { class: "pile-part", "aria-hidden": "true" },
            h("span", { class: "head" }), h("span", { class: "assist-round-number", text: String(round) })),
          h("span", { class: "pile-part total", "aria-hidden": "true" },
            h("span", { class: "sigma", text: "Σ" }), h("span", { class: "assist-total-number", text: String(total) })));
      }));
  }

  function statusText(view) {
    switch (view.phase) {
      // The device that enters reads what to type in its entry panel: no need to say it twice.
      case "dealing":
        return enters() ? "" : t("assist.watch_rows", { round: view.round + 1 });
      case "choosing_cards":
        return enters() ? "" : t("assist.watch_cards", { turn: view.turn + 1 });
      case "choosing_row": {
        const pending = view.pending_row_choice;
        return t("assist.row_question", { name: nameOf(pending.seat), card: pending.card });
      }
      case "game_over":
        return view.outcome ? winnersText(view.outcome.winners, view.outcome.totals) : "";
      default:
        return "";
    }
  }

  function board() {
    const view = s.shown;
    // The rows become choices only on the board of the newest state: a board still catching up
    // is redrawn soon, and a tap on it could be lost or answer an older question.
    const asking = view === s.view && view.phase === "choosing_row" && enters() && !s.sending;
    const said = statusText(view);
    const status = renderStatus(said, { urgent: view.phase === "choosing_row" });
    status.hidden = !said;
    return h("section", { class: "board assist-board", "aria-label": t("table.board") },
      status,
      renderReveal(view.revealed, { nameOf }),
      renderRows(view.rows, {
        choosable: asking,
        onChoose: (index) => on.chooseRow(index),
        onKeydown: (event, index) => rowKeydown(event, index, root),
      }));
  }

  function renderEntry() {
    const holder = root.querySelector(".assist-entry-holder");
    if (!holder || !s.view) {
      if (!root.querySelector(".assist-page") && s.view) render();
      return;
    }
    const active = document.activeElement;
    const hadFocus = holder.contains(active) ? active.closest("[data-focus]")?.dataset.focus : null;
    clear(holder).append(entrySection());
    if (s.problem) showProblem(s.problem, false);
    let target = null;
    let selectAll = false;
    if (s.focusEntry) {
      // A new entry (or a refused one): the first empty field, the refused card's field, or
      // the first field of cards put back by an undo.
      s.focusEntry = false;
      const all = fields();
      const refused = s.problem && s.problem.details && s.problem.details.card;
      const at = refused ? all.findIndex((field) => Number(field.value) === refused) : all.findIndex((field) => !field.value);
      target = all[at >= 0 ? at : 0] || holder.querySelector("#assist-edit") || null;
      selectAll = true; // a refused card or one put back is typed over
    } else if (hadFocus) {
      target = holder.querySelector(`[data-focus="${hadFocus}"]`);
    }
    if (target && !target.disabled) {
      target.focus();
      if (selectAll && target.select && target.value) target.select();
    }
  }

  function entrySection() {
    const view = s.view;
    if (!enters()) {
      return h("section", { class: "assist-entry spectator" },
        h("p", { class: "muted", text: view.phase === "game_over" ? t("assist.watch_over") : t("assist.watching") }));
    }
    const undoButton = h("button", {
      type: "button", class: "button small ghost", id: "assist-undo", "data-focus": "undo", "aria-keyshortcuts": "Control+Z",
      disabled: !canUndo(s.view) || s.sending, title: t("assist.undo_hint"), text: t("assist.undo"), on: { click: on.undo },
    });
    const problem = h("p", { class: "form-error", id: "assist-problem", role: "alert", hidden: true });
    if (view.phase === "game_over") {
      return h("section", { class: "assist-entry", "data-entry": s.entryKey },
        h("p", { class: "assist-entry-title", text: t("assist.over") }),
        h("div", { class: "assist-actions" },
          undoButton,
          recordLink(code, { class: "button primary", id: "download-record" }),
          h("a", { class: "button ghost", href: "/", text: t("assist.new_game") })),
        problem);
    }
    if (view.phase === "choosing_row") {
      const pending = view.pending_row_choice;
      return h("section", { class: "assist-entry", "data-entry": s.entryKey },
        h("p", { class: "assist-entry-title", text: t("assist.prompt_row", { name: nameOf(pending.seat) }) }),
        h("div", { class: "assist-actions" },
          h("button", { type: "button", class: "button small", id: "assist-edit", "data-focus": "edit", disabled: s.sending, text: t("assist.edit_turn"), on: { click: on.editTurn } }),
          undoButton),
        problem);
    }
    const rows = view.phase === "dealing";
    const count = rows ? 4 : view.names.length;
    const list = h("ol", { class: `assist-fields${rows ? " rows-entry" : ""}` });
    for (let index = 0; index < count; index += 1) {
      const id = `assist-card-${index}`;
      const label = rows ? t("assist.row_field", { row: index + 1 }) : view.names[index];
      list.append(h("li", { class: "assist-field-line" },
        h("label", { for: id, class: "assist-field-label", text: label, title: label }),
        h("input", {
          id, class: "assist-field", type: "text", inputmode: "numeric", pattern: "[0-9]*", maxlength: 3,
          autocomplete: "off", enterkeyhint: index === count - 1 ? "done" : "next", "data-focus": `field-${index}`,
          value: s.values[index] || "", "aria-invalid": "false", "aria-describedby": "assist-problem assist-hint",
          on: { input: (event) => on.onInput(event, index), keydown: (event) => on.onFieldKey(event, index), blur: () => on.onBlur(index) },
        })));
    }
    return h("form", { class: "assist-entry", id: "assist-form", "data-entry": s.entryKey, novalidate: true, on: { submit: on.submit } },
      h("p", { class: "assist-entry-title", id: "assist-entry-title",
        text: rows ? t("assist.prompt_rows", { round: view.round + 1 }) : t("assist.prompt_cards", { turn: view.turn + 1 }) }),
      list,
      problem,
      h("div", { class: "assist-actions" },
        h("button", { type: "submit", class: "button primary", id: "assist-submit", "data-focus": "submit", disabled: s.sending,
          text: rows ? t("assist.submit_rows") : t("assist.submit_cards") }),
        undoButton),
      h("p", { class: "hint", id: "assist-hint", text: t("assist.typing_hint") }));
  }

  function sheetSection() {
    const view = s.shown;
    const rounds = view.score_sheet;
    if (!rounds.length || !(s.sheetOpen || view.phase === "game_over")) return h("div", { hidden: true });
    const over = view.phase === "game_over" && view.outcome;
    const totals = over ? view.outcome.totals : view.totals;
    const last = rounds[rounds.length - 1];
    return h("section", { class: "sheet assist-sheet", "aria-labelledby": "sheet-title" },
      h("h2", { id: "sheet-title", text: over ? t("sheet.game_over") : t("sheet.after_round", { round: rounds.length }) }),
      over
        ? h("p", { class: "winners", text: winnersText(view.outcome.winners, view.outcome.totals) })
        : h("p", { class: "muted", text: t("assist.round_penalties", { round: rounds.length, list: formatList(last.map((points, seat) => t("assist.penalty_item", { name: nameOf(seat), count: points }))) }) }),
      sheetScroll(renderScoreTable({ names: view.names, rounds, totals })),
      over ? null : h("p", { class: "muted", text: t("sheet.rule_reminder") }));
  }


  return { render, renderBoard, renderEntry, fields, showProblem, problemText };
}
