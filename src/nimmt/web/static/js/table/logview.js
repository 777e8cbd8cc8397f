// The game log drawn: the panel a player opens at any time (toolbar button or the L key; beside
// the rows on a wide screen, over the table on a phone, closed by its button or Escape), and the
// "last turn" strip near the rows that stays after the animation. The log itself (what happened)
// comes from log.js; sentences from its outcomeText/outcomeShort; nothing here knows the socket.

import { bullheads } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { outcomeShort, outcomeText, outcomeTiny, turnOutcomes } from "./log.js";

/** A card's number as a small chip in its bullhead colour (the sentence beside it says it). */
const miniCard = (card) =>
  h("span", { class: `mini-card bh-${bullheads(card)}${card === 55 ? " c55" : ""}`, "aria-hidden": "true", text: String(card) });

/** One turn: its number and each card, lowest first, with where it went. */
function turnItem(turn, words) {
  const lines = turnOutcomes(turn).map((outcome) =>
    h("li", { class: `log-card${outcome.took ? " took" : ""}${outcome.pending ? " pending" : ""}`, "data-card": outcome.card },
      miniCard(outcome.card),
      h("span", { class: "log-text", text: outcomeText(outcome, words) })));
  return h("li", { class: "log-turn" },
    h("h4", { class: "log-turn-title", text: t("log.turn", { turn: turn.turn }) }),
    h("ol", { class: "log-cards" }, lines));
}

/**
 * The log panel: `log` (log.js), `words` (text.js), `records`: links to earlier games' records
 * (elements), `onClose()`. Newest first, so the latest turn is at hand without scrolling.
 */
export function renderLogPanel({ log, words, records = [], onClose }) {
  const rounds = [...log.rounds].reverse().filter((round) => round.turns.length);
  const body = rounds.length
    ? rounds.map((round) =>
        h("section", { class: "log-round", "data-round": round.round },
          h("h3", { class: "log-round-title", text: t("log.round", { round: round.round }) }),
          h("ol", { class: "log-turns", reversed: true }, [...round.turns].reverse().map((turn) => turnItem(turn, words)))))
    : [h("p", { class: "muted log-empty", text: t("log.empty") })];
  const first = log.rounds.find((round) => round.turns.length);
  const panel = h("aside", {
    class: "game-log", id: "game-log", role: "dialog", "aria-modal": "false", "aria-labelledby": "game-log-title",
    on: { keydown: (event) => { if (event.key === "Escape") { event.stopPropagation(); onClose(); } } },
  },
    h("div", { class: "log-head" },
      h("h2", { id: "game-log-title", tabindex: "-1", "data-focus": "log-title", text: t("log.title") }),
      h("button", { type: "button", class: "chip", id: "close-log", "data-focus": "log-close", text: t("log.close"), on: { click: onClose } })),
    h("p", { class: "muted log-hint", text: t("log.shortcut_hint") }),
    // Focusable (and named): its turns scroll, and a keyboard must be able to scroll them.
    h("div", { class: "log-body", tabindex: "0", role: "region", "aria-labelledby": "game-log-title", "data-focus": "log-body" },
      body,
      first && first.round > 1 ? h("p", { class: "muted log-earlier", text: t("log.earlier_rounds", { round: first.round }) }) : null,
      records.length
        ? h("section", { class: "log-records" },
            h("h3", { text: t("rematch.earlier_games") }),
            h("ul", {}, records.map((link) => h("li", {}, link))))
        : null));
  return h("div", { class: "log-layer" }, h("div", { class: "log-backdrop", "aria-hidden": "true", on: { click: onClose } }), panel);
}

/** The strip near the rows: the last complete turn (log.js lastTurn), compact; null if none. */
export function renderLastTurn(turn, words) {
  if (!turn) return null;
  const items = turnOutcomes(turn).map((outcome) => {
    const mine = outcome.seat === words.me;
    // The name may be cut short (an ellipsis): its tooltip holds the whole name.
    const name = mine ? t("seat.you") : (words.shortOf || words.nameOf)(outcome.seat);
    return h("li", { class: `last-item${outcome.took ? " took" : ""}${mine ? " mine" : ""}`, "data-card": outcome.card, "data-seat": outcome.seat },
      miniCard(outcome.card),
      h("span", { class: "last-name", "aria-hidden": "true", text: name, title: mine ? name : words.nameOf(outcome.seat) }),
      h("span", { class: "last-where", "aria-hidden": "true", text: outcomeShort(outcome, t, mine) }),
      h("span", { class: "last-tiny", "aria-hidden": "true", text: outcomeTiny(outcome, t) }),
      h("span", { class: "visually-hidden", text: outcomeText(outcome, words) }));
  });
  return h("section", { class: "last-turn", id: "last-turn", "aria-labelledby": "last-turn-title" },
    h("h2", { class: "last-turn-title", id: "last-turn-title", text: t("log.last_turn", { round: turn.round, turn: turn.turn }) }),
    h("ol", { class: "last-items" }, items));
}
