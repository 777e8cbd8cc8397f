// The replay viewer's model: where a link points in a game, which step a key moves to, and what
// a step shows (seats, sentences, a hand, the coach's figures). No DOM: it runs under
// `node --test` as in the page.
//
// A replay is the server's answer of `GET /api/tables/{code}/replay` or `POST /api/replay`
// (docs/protocol.md, "Replays"): `{players, finished, winners, steps}`, where each step is
// `{kind: "deal"|"turn"|"scored", round, turn, rows, rows_before, hands, revealed, row_chosen,
// events, penalties, totals, score_sheet, outcome}`, computed by the rules engine.

import { botSeatName, lowestFirst } from "../kit/state.js";
import { eventSentence, winnersText } from "../kit/text.js";

/**
 * The position a link asks for: `#r2t5` (round 2, turn 5; turn 0 is the deal), `#r2end` (round
 * 2's score sheet), or the query `?round=2&turn=5` (`turn=end`). Null when it asks for none.
 */
export function parsePosition(hash = "", search = "") {
  const fromHash = /^#?r(\d{1,3})(?:t(\d{1,2})|(end))$/i.exec(hash || "");
  if (fromHash) {
    return fromHash[3] ? { round: Number(fromHash[1]), end: true } : { round: Number(fromHash[1]), turn: Number(fromHash[2]) };
  }
  const query = new URLSearchParams(search || "");
  const round = query.get("round");
  if (round === null || !/^\d{1,3}$/.test(round)) return null;
  const turn = query.get("turn");
  if (turn === "end") return { round: Number(round), end: true };
  return { round: Number(round), turn: turn !== null && /^\d{1,2}$/.test(turn) ? Number(turn) : 0 };
}

/** The link fragment of a step (`#r2t5`, `#r2end`). */
export const positionHash = (step) => (step.kind === "scored" ? `#r${step.round}end` : `#r${step.round}t${step.turn}`);

/**
 * The index of the step a position names; a turn beyond the record's end of that round goes to
 * the round's last step, a round beyond the game to the last step. 0 without a position.
 */
export function stepIndexFor(steps, position) {
  if (!position || !steps.length) return 0;
  const inRound = steps.map((step, index) => ({ step, index })).filter(({ step }) => step.round === position.round);
  if (!inRound.length) return position.round < steps[0].round ? 0 : steps.length - 1;
  if (position.end) {
    const scored = inRound.find(({ step }) => step.kind === "scored");
    return (scored || inRound[inRound.length - 1]).index;
  }
  const exact = inRound.find(({ step }) => step.kind !== "scored" && step.turn === position.turn);
  if (exact) return exact.index;
  const turns = inRound.filter(({ step }) => step.kind !== "scored");
  return turns[turns.length - 1].index;
}

/**
 * The step a key moves to from `index` (null: the key does nothing here). Arrows step, Home and
 * End jump to the first and last step, PageUp and PageDown to the previous and next deal.
 */
export function keyTarget(key, index, steps) {
  const last = steps.length - 1;
  if (last < 0) return null;
  const deals = steps.map((step, at) => (step.kind === "deal" ? at : -1)).filter((at) => at >= 0);
  switch (key) {
    case "ArrowRight":
      return Math.min(last, index + 1);
    case "ArrowLeft":
      return Math.max(0, index - 1);
    case "Home":
      return 0;
    case "End":
      return last;
    case "PageDown": {
      const next = deals.find((at) => at > index);
      return next === undefined ? last : next;
    }
    case "PageUp": {
      const before = deals.filter((at) => at < index);
      return before.length ? before[before.length - 1] : 0;
    }
    default:
      return null;
  }
}

/** Whether going from step `from` to `to` is one turn forward (the only move that is animated). */
export const animatesTo = (steps, from, to) => to === from + 1 && steps[to] && steps[to].kind === "turn";

/**
 * The players' names in the page's language: a bot seat's own name as the server stores it
 * ("Bot 2 (medium)", the seat's number with the level) said as the table page says it
 * (kit/state.js botSeatName, "Bot 2 (mittel)"); any other name as it is.
 */
export function playerNames(players, t) {
  return players.map((name, seat) => {
    const bot = /^Bot (\d+) \(([^()]+)\)$/.exec(name);
    return bot && Number(bot[1]) === seat + 1 ? botSeatName({ bot: bot[2], number: seat + 1 }, t) : name;
  });
}

/**
 * The seats as render.js renderSeats draws them, for a step: each one's bullheads this round
 * and in total, the card it revealed in this turn, the winners on the last sheet.
 */
export function stepSeats(step, players, { followed = null } = {}) {
  const winners = step.outcome ? step.outcome.winners : [];
  return players.map((name, seat) => ({
    seat,
    name,
    bot: false,
    stateKey: "idle",
    offline: false,
    round: step.penalties[seat] || 0,
    total: step.totals[seat] || 0,
    isMe: false,
    followed: seat === followed,
    winner: winners.includes(seat),
    card: step.revealed ? step.revealed[seat] : null,
    back: false,
  }));
}

/**
 * The picture before a turn's events play: the rows as they were, the previous step's scores,
 * no card revealed yet (the animation turns them over).
 */
export function beforeTurn(step, previous) {
  return {
    ...step,
    rows: step.rows_before || previous.rows,
    revealed: null,
    penalties: previous.kind === "scored" ? step.penalties.map(() => 0) : previous.penalties,
    totals: previous.totals,
    outcome: null,
  };
}

/** Where a step is, in words ("Round 2 · turn 5 of 10", "Round 2 · the deal", ...). */
export function positionText(step, t) {
  if (step.kind === "deal") return t("replay.position_deal", { round: step.round });
  if (step.kind === "scored") return t(step.outcome ? "replay.position_over" : "replay.position_scored", { round: step.round });
  return t("table.info_round", { round: step.round, turn: step.turn });
}

/** The line above the rows for a step. `words` as for text.js (me: null). */
export function stepStatus(step, words) {
  const { t } = words;
  if (step.kind === "deal") return t("replay.status_deal", { round: step.round });
  if (step.kind === "scored") {
    return step.outcome
      ? winnersText(step.outcome.winners, step.outcome.totals, words)
      : t("replay.status_scored", { round: step.round });
  }
  const revealed = step.events.find((event) => event.type === "cards_revealed");
  return revealed ? eventSentence(revealed, words).text : "";
}

/**
 * What happened in a turn, one sentence per card placed and row taken, in the order they
 * happened; the too-low card's row choice is said first.
 */
export function stepLines(step, words) {
  if (step.kind !== "turn") return [];
  const lines = [];
  if (step.row_chosen !== null && step.row_chosen !== undefined && step.revealed) {
    const low = lowestFirst(step.revealed)[0];
    lines.push(words.t("replay.row_chosen", { name: words.nameOf(low.seat), card: low.card, row: step.row_chosen + 1 }));
  }
  for (const event of step.events) {
    if (event.type !== "row_taken" && event.type !== "card_placed") continue;
    const sentence = eventSentence(event, words);
    if (sentence) lines.push(sentence.text);
  }
  return lines;
}

/**
 * A seat's hand at a step: the cards it held before the turn (the dealt hand at a deal) and the
 * card it played in the turn (null at a deal or a score sheet).
 */
export function handAt(step, seat) {
  const cards = (step.hands && step.hands[seat]) || [];
  const played = step.kind === "turn" && step.revealed ? step.revealed[seat] : null;
  return { cards, played };
}

/**
 * The coach's figures for a seat at a step, from the analysis (`GET
 * /api/tables/{code}/analysis?seat=N`, the JSON of `nimmt analyze --json`): the card decision of
 * that turn as `{ kind: "card", chosen, best, loss, expected: Map(card -> bullheads) }`, and the
 * row decision, if the seat had to take a row, as the same with rows counted from 1. Null where
 * the seat had no choice.
 */
export function coachAt(analysis, step) {
  if (!analysis || !step || step.kind !== "turn") return { card: null, row: null };
  const pick = (kind) => {
    const decision = (analysis.decisions || []).find(
      (entry) => entry.round === step.round && entry.turn === step.turn && entry.kind === kind,
    );
    if (!decision) return null;
    return {
      kind,
      chosen: decision.chosen,
      best: decision.best,
      loss: decision.loss,
      expected: new Map((decision.candidates || []).map((candidate) => [candidate.choice, candidate.expected])),
    };
  };
  return { card: pick("card"), row: pick("row") };
}
