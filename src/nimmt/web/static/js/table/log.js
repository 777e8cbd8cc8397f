// The game log: turn by turn, the cards revealed lowest first, where each went, who took which
// row for how many bullheads (a sixth card, or a card below every row and the row its player
// chose). No DOM: everything here runs under node --test as well as in the page.
//
// The log is built from what the page is told anyway, never from anything hidden: the `events`
// as they come (cards_revealed, row_taken, card_placed, ...), and each `state`, whose view holds
// the current round's turns (`round_rows`, `played`, `chosen_rows`, docs/protocol.md), so that a
// page that reconnects, or opens in the middle of a round, still shows the whole round. The
// cards of a turn are public once revealed: a spectator's log is the same as a player's.
//
// A log: `{ game, rounds: [{ round, turns: [turn], penalties }] }`, rounds in order. A turn:
// `{ turn, cards: [{ card, seat }] lowest first, moves: [move], pending }`; a move:
// `{ card, seat, row, took }` where `took` is null or `{ cards, bullheads, chosen }`; `pending`
// is `{ card, seat }` while the table waits for that seat to choose a row, else null.

import { bullheads } from "../cards.js";
import { lowestFirst } from "../kit/state.js";

const ROW_LENGTH = 5; // a row holds five cards: the sixth takes them

/** An empty log for game number `game`. */
export const createLog = (game = null) => ({ game, rounds: [] });

const sumBullheads = (cards) => cards.reduce((sum, card) => sum + bullheads(card), 0);

/**
 * Play one turn's `cards` (by seat) on `rows` by the rules: lowest card first, each to the row
 * whose last card is the highest below it; the sixth card of a row takes the five; a card below
 * every row takes row `chosenRow`. Returns `{ moves, rows, pending }` (new rows; `rows` is not
 * changed). Without `chosenRow` a too-low card stops the turn: `pending` names it.
 */
export function resolveTurn(rows, cards, chosenRow = null) {
  const after = rows.map((row) => [...row]);
  const moves = [];
  for (const { card, seat } of lowestFirst(cards)) {
    let best = -1;
    after.forEach((row, at) => {
      const last = row[row.length - 1];
      if (last < card && (best < 0 || last > after[best][after[best].length - 1])) best = at;
    });
    let took = null;
    let row = best;
    if (best < 0) {
      if (chosenRow === null || chosenRow === undefined) {
        return { moves, rows: after, pending: { card, seat } };
      }
      row = chosenRow;
      took = { cards: after[row], bullheads: sumBullheads(after[row]), chosen: true };
      after[row] = [card];
    } else if (after[best].length >= ROW_LENGTH) {
      took = { cards: after[best], bullheads: sumBullheads(after[best]), chosen: false };
      after[best] = [card];
    } else {
      after[best].push(card);
    }
    moves.push({ card, seat, row, took });
  }
  return { moves, rows: after, pending: null };
}

/**
 * The current round's turns from a `state`'s view (`round_rows`, `played`, `chosen_rows`, and
 * `revealed` with `pending_row_choice` for a turn waiting for a row choice); null when the view
 * does not hold them (before the first deal, or a view without `chosen_rows`).
 */
export function turnsFromView(view) {
  if (!view || !Array.isArray(view.round_rows) || view.round_rows.length !== 4) return null;
  const played = view.played || [];
  const chosen = view.chosen_rows;
  if (!Array.isArray(chosen) || chosen.length !== played.length) return null;
  let rows = view.round_rows.map((card) => [card]);
  const turns = played.map((cards, index) => {
    const resolved = resolveTurn(rows, cards, chosen[index]);
    rows = resolved.rows;
    return { turn: index + 1, cards: lowestFirst(cards), moves: resolved.moves, pending: null };
  });
  if (view.revealed) {
    const pending = view.pending_row_choice;
    turns.push({
      turn: played.length + 1,
      cards: lowestFirst(view.revealed),
      moves: [],
      pending: pending ? { card: pending.card, seat: pending.seat } : null,
    });
  }
  return turns;
}

function roundEntry(log, round) {
  let entry = log.rounds.find((candidate) => candidate.round === round);
  if (!entry) {
    entry = { round, turns: [], penalties: null };
    log.rounds.push(entry);
    log.rounds.sort((a, b) => a.round - b.round);
  }
  return entry;
}

const currentRound = (log) => log.rounds[log.rounds.length - 1] || null;
const currentTurn = (log) => {
  const round = currentRound(log);
  return round ? round.turns[round.turns.length - 1] || null : null;
};

/**
 * Take in a `state`: the view's round replaces what the events said of it (the view is complete
 * and cannot have missed anything). A new game (`game`, the table's number) starts a new log.
 * Returns the log (a new one for a new game).
 */
export function logFromState(log, view, game = null) {
  let current = log;
  if (game !== null && game !== undefined && current.game !== game) current = createLog(game);
  if (!view || !view.round) return current;
  const turns = turnsFromView(view);
  if (!turns) return current;
  const entry = roundEntry(current, view.round);
  entry.turns = turns;
  return current;
}

/**
 * Take in one event of an `events` message (docs/protocol.md). Returns the log (a new one after
 * `rematch_started`).
 */
export function logEvent(log, event) {
  switch (event.type) {
    case "rematch_started":
      return createLog(event.game);
    case "round_dealt":
      roundEntry(log, event.round);
      return log;
    case "cards_revealed": {
      const entry = roundEntry(log, event.round);
      entry.turns = entry.turns.filter((turn) => turn.turn < event.turn);
      entry.turns.push({ turn: event.turn, cards: lowestFirst(event.cards), moves: [], pending: null });
      return log;
    }
    case "row_choice_required": {
      const turn = currentTurn(log);
      if (turn) turn.pending = { card: event.card, seat: event.seat };
      return log;
    }
    case "row_taken": {
      const turn = currentTurn(log);
      if (turn) {
        turn.pending = null;
        turn.taking = { cards: [...event.cards], bullheads: event.bullheads, chosen: Boolean(event.chosen), row: event.row, seat: event.seat };
      }
      return log;
    }
    case "card_placed": {
      const turn = currentTurn(log);
      if (!turn) return log;
      const taking = turn.taking && turn.taking.seat === event.seat ? turn.taking : null;
      delete turn.taking;
      turn.moves.push({
        card: event.card,
        seat: event.seat,
        row: event.row,
        took: taking ? { cards: taking.cards, bullheads: taking.bullheads, chosen: taking.chosen } : null,
      });
      return log;
    }
    case "round_scored": {
      roundEntry(log, event.round).penalties = [...event.penalties];
      return log;
    }
    default:
      return log;
  }
}

/** Take in every event of an `events` message, in order. Returns the log. */
export const logEvents = (log, events) => events.reduce(logEvent, log);

/** A turn is complete when every revealed card went to a row. */
export const turnComplete = (turn) => Boolean(turn) && !turn.pending && turn.moves.length === turn.cards.length;

/** The last complete turn of the game (`{ round, turn }` with the turn's fields), or null. */
export function lastTurn(log) {
  for (let index = log.rounds.length - 1; index >= 0; index -= 1) {
    const round = log.rounds[index];
    for (let at = round.turns.length - 1; at >= 0; at -= 1) {
      if (turnComplete(round.turns[at])) return { round: round.round, ...round.turns[at] };
    }
  }
  return null;
}

/**
 * What became of each revealed card of a turn, lowest first: `{ card, seat, row, took, pending }`
 * (`row` null while the card waits, `pending` for the card whose player chooses a row now).
 */
export function turnOutcomes(turn) {
  return turn.cards.map(({ card, seat }) => {
    const move = turn.moves.find((candidate) => candidate.card === card);
    const pending = Boolean(turn.pending && turn.pending.card === card);
    return { card, seat, row: move ? move.row : null, took: move ? move.took : null, pending };
  });
}

/**
 * The sentence for one card of a turn (`outcome` from turnOutcomes), through `words`
 * (text.js: `{ t, nameOf, me }`): "Ben: 7 → row 2", "Cleo: 13, the sixth card, takes row 1
 * (7 bullheads)", "Ana: 3 is lower than every row: takes row 4, chosen (2 bullheads)".
 */
export function outcomeText(outcome, words) {
  const { t, nameOf, me } = words;
  const name = outcome.seat === me ? t("table.you") : nameOf(outcome.seat);
  const params = { name, card: outcome.card };
  if (outcome.pending) return t("log.chooses", params);
  if (outcome.row === null) return t("log.revealed", params);
  const row = outcome.row + 1;
  if (!outcome.took) return t("log.placed", { ...params, row });
  const key = outcome.took.chosen ? "log.took_chosen" : "log.took_sixth";
  return t(key, { ...params, row, count: outcome.took.bullheads });
}

/**
 * The tiniest label for one card's outcome, under the card on a phone's last-turn strip: "→ 2"
 * (placed in row 2), "+7" (took a row of 7 bullheads: the card now starts that row).
 */
export function outcomeTiny(outcome, t) {
  if (outcome.pending) return "…";
  if (outcome.row === null) return "";
  if (!outcome.took) return t("log.tiny_placed", { row: outcome.row + 1 });
  return t("log.tiny_took", { row: outcome.row + 1, count: outcome.took.bullheads });
}

/**
 * A short label for one card's outcome on the last-turn strip: "→ row 2", "takes row 2 (+7)";
 * under "You" (`mine`) the verb agrees with it: "take row 2 (+7)".
 */
export function outcomeShort(outcome, t, mine = false) {
  const you = mine ? "_you" : "";
  if (outcome.pending) return t(`log.short_choosing${you}`);
  if (outcome.row === null) return "";
  if (!outcome.took) return t("log.short_placed", { row: outcome.row + 1 });
  return t(`log.short_took${you}`, { row: outcome.row + 1, count: outcome.took.bullheads });
}
