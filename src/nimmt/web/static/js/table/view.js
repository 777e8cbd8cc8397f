// The table page drawn from its model: the toolbar, the seats (or the score sheet in their
// place), the board with the last turn or the invitation, the hand (or the spectator's form to
// take a seat), and the game log beside them. Every state redraws the page from scratch; the
// focus stays where it was, follows a new decision or a sheet just opened, and never falls on
// nothing. Clicks go to actions.js, or back to main.js through `ctx`.
//
// `ctx`: `{ root, code, s, actions (actions.js), leaveDialog (leave.js), leaveTexts(), words(),
// nameOfSeat(seat), shortOfSeat(seat) (state.js shortNameOf: on the revealed cards and narrow
// seats), seated(), isGone(), brief (brief.js), openLeaveDialog(), toggleLog(open), toggleCoach(),
// coachAllowedHere(), coachAnnotation(kind), coachReview(), talkChip() }`.

import { errorText } from "../api.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { STEP_MS } from "../kit/animate.js";
import { handKeydown, rowKeydown } from "../kit/keys.js";
import {
  recordLink,
  renderBoard,
  renderHand,
  renderInvite,
  renderNotReady,
  renderScoreSheet,
  renderSeats,
  renderSpectator,
  renderSpeed,
} from "../kit/render.js";
import { chosenCard, mayBeLastRound, mySeat, seatSummaries } from "../kit/state.js";
import { emptyHandText, infoText, nextRoundWarning, overText, statusText, unsentText, winnersText } from "../kit/text.js";
import { cardStandsFor } from "./absence.js";
import { coachFailed, coachThinking } from "./coach.js";
import { renderCoachBadge, renderCoachToggle } from "./coachview.js";
import { lastTurn } from "./log.js";
import { renderLastTurn, renderLogPanel } from "./logview.js";
import { rematchStatus, rematchText } from "./rematch.js";

export function createTableView(ctx) {
  const { root, code, s, actions, leaveDialog } = ctx;
  const seated = () => ctx.seated();
  const words = () => ctx.words();
  const nameOfSeat = (seat) => ctx.nameOfSeat(seat);

  function focusKeyOf(el) {
    const holder = el && el.closest && el.closest("[data-focus]");
    return holder ? holder.dataset.focus : null;
  }

  function render() {
    if (ctx.isGone()) return;
    const active = document.activeElement;
    const focusWasHere = !active || active === document.body || root.contains(active);
    const key = focusWasHere ? focusKeyOf(active) : null;
    const mustChoose = Boolean(s.view && s.view.must_choose_row);
    const newDecision = mustChoose && !s.lastMustChoose;
    s.lastMustChoose = mustChoose;
    const sheetShown = Boolean(s.sheetOpen && s.view && (s.view.score_sheet.length || s.view.outcome));
    const sheetOpened = sheetShown && !s.lastSheetShown;
    s.lastSheetShown = sheetShown;
    if (sheetOpened) s.sheetOpenedAt = performance.now();

    clear(root);
    const notReady = renderNotReady({ fatal: s.fatal, hasView: Boolean(s.view), errorText });
    if (notReady) {
      root.append(notReady);
      return;
    }
    if (leaveDialog.isOpen()) {
      if (seated() && !s.leaving) leaveDialog.update(ctx.leaveTexts());
      else leaveDialog.close();
    }
    // The score sheet takes the players' place (the totals are on it), beside the board.
    const page = h("div", { class: `table-page${s.logOpen ? " log-open" : ""}`, style: { "--step": `${STEP_MS / s.speed}ms` } },
      h("h1", { class: "visually-hidden", text: t("board.table", { code }) }),
      toolbar(), ctx.absencePanel ? ctx.absencePanel() : null, sheetShown ? scoreSheet() : renderSeats(seatSummaries(s, nameOfSeat).map((info) => ({ ...info, short: ctx.shortOfSeat(info.seat) }))), board(), handSection());
    // Every state redraws the page: the sheet's entrance goes on from where it was, rather than
    // starting again at each move while the sheet stays open.
    const sheet = page.querySelector(":scope > .sheet");
    if (sheet) sheet.style.animationDelay = `${s.sheetOpenedAt - performance.now()}ms`;
    root.append(page);
    if (s.logOpen) root.append(logPanel());

    // Focus: keep it where it was; follow a new decision or a sheet just opened; never leave it on nothing.
    let target = null;
    if (newDecision) {
      target = root.querySelector('[data-focus="row-0"]');
    } else if (sheetOpened) {
      target = root.querySelector(".sheet [data-focus=sheet-main]");
    } else if (key) {
      target = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (!target && key.startsWith("card-")) target = root.querySelector('.hand [tabindex="0"]');
      if (!target && key.startsWith("row-")) target = root.querySelector('.hand [tabindex="0"]');
      if (!target) target = root.querySelector(".status");
    }
    if (target && focusWasHere) target.focus({ preventScroll: true });
  }

  function toolbar() {
    const view = s.view;
    return h("div", { class: "table-bar" },
      h("div", { class: "table-id" },
        h("span", { class: "muted", text: t("table.code_label") }),
        h("strong", { class: "code", id: "table-code", text: code }),
        h("button", { type: "button", class: "chip", "data-focus": "copy-link", text: t("table.copy_link"), on: { click: actions.copyLink } })),
      h("div", { class: "table-info" },
        h("span", { text: infoText(view, t) }),
        view.phase !== "waiting" && view.phase !== "game_over" && mayBeLastRound(view.totals)
          ? h("span", { class: "last-round", text: t("table.may_be_last") })
          : null,
        s.table && s.table.coach ? renderCoachBadge() : null),
      h("div", { class: "table-tools" },
        ctx.brief.button(() => { ctx.brief.toggle(); render(); }),
        ctx.talkChip ? ctx.talkChip() : null,
        ctx.coachAllowedHere()
          ? renderCoachToggle({ on: s.coach.on, thinking: coachThinking(s.coach, true), failed: coachFailed(s.coach, true), onToggle: ctx.toggleCoach })
          : null,
        renderSpeed(s.speed, actions.setSpeed),
        view.phase !== "waiting"
          ? h("button", { type: "button", class: "chip", id: "open-log", "data-focus": "open-log", "aria-expanded": String(s.logOpen),
              "aria-controls": "game-log", "aria-keyshortcuts": "L", text: t("log.open"), on: { click: () => ctx.toggleLog() } })
          : null,
        view.score_sheet.length && !s.lastSheetShown
          ? h("button", { type: "button", class: "chip", "data-focus": "open-sheet", text: t("table.score_sheet"),
              on: { click: () => { s.sheetOpen = true; render(); } } })
          : null,
        view.phase === "game_over" ? recordLink(code, { class: "chip", "data-focus": "download-bar" }, s.table ? s.table.game : null) : null,
        h("a", { class: "chip", href: `/t/${code}/board`, target: "_blank", rel: "noopener", "data-focus": "board-link", text: t("board.open") }),
        seated()
          ? h("button", {
              type: "button", class: "chip leave", id: "leave-seat", "data-focus": "leave-seat", "aria-haspopup": "dialog",
              disabled: s.leaving, text: s.leaving ? t("table.leaving") : t("table.leave_seat"), on: { click: ctx.openLeaveDialog },
            })
          : null));
  }

  function board() {
    const view = s.view;
    const me = mySeat(s);
    return renderBoard({
      rows: view.rows,
      revealed: view.revealed,
      // An action made while the connection is lost waits (actions.js): the status says so.
      status: s.outbox
        ? unsentText(s.outbox, t)
        : statusText(view, { tableSeats: s.table ? s.table.seats : null, chosen: chosenCard(s), cardStands: cardStandsFor(s.table, me) }, words()),
      mustChoose: Boolean(view.must_choose_row),
      nameOf: ctx.shortOfSeat,
      me,
      onChooseRow: actions.chooseRow,
      onRowKey: (event, index) => rowKeydown(event, index, root),
      annotateRow: ctx.coachAnnotation("row"),
      fit: true,
      extra: view.phase === "waiting"
        ? renderInvite(code, `${location.origin}/t/${code}`, { onCopy: actions.copyLink })
        : renderLastTurn(lastTurn(s.log), words()),
    });
  }

  function logPanel() {
    const game = s.table ? s.table.game : 1;
    const records = Array.from({ length: Math.max(0, game - 1) }, (_, index) =>
      recordLink(code, { class: "log-record", text: t("rematch.record_of", { game: index + 1 }) }, index + 1));
    return renderLogPanel({ log: s.log, words: words(), records, onClose: () => ctx.toggleLog(false) });
  }

  function handSection() {
    const view = s.view;
    if (!seated()) {
      const seats = s.table ? s.table.seats : [];
      const free = seats.some((seat) => seat.kind === "human" && !seat.occupied);
      return renderSpectator({
        canJoin: free && view.phase !== "game_over",
        name: s.joinName,
        joining: s.joining,
        error: s.joinError,
        onName: (name) => { s.joinName = name; },
        onSubmit: actions.takeSeat,
      });
    }
    const chosen = chosenCard(s) ?? s.queuedCard;
    if (!view.hand.includes(s.handFocus)) s.handFocus = chosen ?? view.hand[0] ?? null;
    return renderHand({
      hand: view.hand,
      chosen,
      // Back at the seat: the card the bot chose this turn stands, nothing to change until the next.
      canPlay: view.phase === "choosing_cards" && !cardStandsFor(s.table, mySeat(s)),
      focus: s.handFocus,
      phase: view.phase,
      onPlay: actions.playCard,
      onFocus: (card) => { s.handFocus = card; },
      onKeydown: (event) => handKeydown(event, root, s),
      annotate: ctx.coachAnnotation("card"),
      emptyText: emptyHandText(view.phase, t, {
        sheetOpen: Boolean(s.sheetOpen && view.outcome),
        wantsAgain: Boolean(rematchStatus(s.table, mySeat(s))?.mine),
      }),
    });
  }

  function scoreSheet() {
    const view = s.view;
    const over = Boolean(view.phase === "game_over" && view.outcome);
    const close = () => {
      s.sheetOpen = false;
      render();
      (root.querySelector('.hand [tabindex="0"]') || root.querySelector(".status"))?.focus();
    };
    const game = s.table ? s.table.game : null;
    const agreement = rematchStatus(s.table, mySeat(s));
    let again = null;
    if (seated() && agreement && agreement.mine) {
      again = h("button", { type: "button", class: "button", id: "rematch-withdraw", "data-focus": "sheet-main", text: t("rematch.withdraw"), on: { click: () => actions.rematch(false) } });
    } else if (seated()) {
      again = h("button", { type: "button", class: "button primary", id: "rematch", "data-focus": "sheet-main", text: t("sheet.rematch"), on: { click: () => actions.rematch(true) } });
    }
    const actionsEls = over
      ? [
          agreement && agreement.total > 1
            ? h("p", { class: "rematch-status", id: "rematch-status", "aria-live": "polite", text: rematchText(agreement, words()) })
            : null,
          again,
          recordLink(code, { class: "button", id: "download-record", "data-focus": seated() ? "download" : "sheet-main" }, game),
          h("a", { class: "button", id: "open-replay", href: game ? `/t/${code}/replay?game=${game}` : `/t/${code}/replay`, "data-focus": "open-replay", text: t("replay.open") }),
          h("button", { type: "button", class: "button ghost", "data-focus": "sheet-close", text: t("sheet.show_table"), on: { click: close } }),
        ]
      : [h("button", { type: "button", class: "button primary", id: "sheet-continue", "data-focus": "sheet-main", text: t("sheet.continue"), on: { click: close } })];
    const totals = over ? view.outcome.totals : view.totals;
    return renderScoreSheet({
      names: totals.map((_, seat) => nameOfSeat(seat)),
      rounds: view.score_sheet,
      totals,
      me: mySeat(s),
      over,
      winners: over ? winnersText(view.outcome.winners, view.outcome.totals, words()) : "",
      warning: over ? "" : nextRoundWarning(totals, words()),
      overLine: over ? overText(totals, words()) : "",
      actions: actionsEls,
      onClose: close,
      extra: over && seated() ? ctx.coachReview() : null,
    });
  }

  return { render };
}
