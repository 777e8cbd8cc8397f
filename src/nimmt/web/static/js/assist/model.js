// The assistant page's model, without the DOM: what the page remembers between drawings, which
// entry the fields are for, what a new state does to them (an undo puts its cards back), and
// the checks of a field against the cards already seen. Runs under node --test as in the page.

import { problemOf } from "./fields.js";

/** A fresh model; `token`: the table's token kept in this browser (null: this device follows). */
export function createAssist({ token = null, speed = 1 } = {}) {
  return {
    token,
    version: null,
    table: null,
    view: null, // the newest state's view (the entry panel follows it)
    shown: null, // the view drawn on the board (after the animations)
    fatal: null,
    speed,
    entryKey: null, // which entry the fields are for ("cards/3/4", "rows/2", ...)
    values: [], // the fields' digits
    refill: null, // cards to put back in the fields after an undo
    problem: null, // {index, code, card} refused in place, or a server refusal {code, details}
    sending: false,
    undone: false, // the events before the next state took an entry back
    focusEntry: false, // a new entry (or a refusal): put the focus in its fields
    focusRows: false, // a new row question: put the focus on the first row once it is drawn
    sheetOpen: false,
    animating: false,
  };
}

/** Which entry a view asks for: "rows/R/N", "cards/R/T", "row/R/T", or the phase. */
export function entryKeyOf(view) {
  if (!view) return null;
  if (view.phase === "dealing") return `rows/${view.round}/${view.score_sheet.length}`;
  if (view.phase === "choosing_cards") return `cards/${view.round}/${view.turn}`;
  if (view.phase === "choosing_row") return `row/${view.round}/${view.turn}`;
  return view.phase;
}

/** The cards of the entry an undo took back, to correct them in the fields. */
export function undoneCards(before, after) {
  if (!before || !after || after.round !== before.round) return null;
  if (after.phase === "choosing_cards" && before.phase === "choosing_row" && before.turn === after.turn) return before.revealed;
  if (after.phase === "choosing_cards" && before.phase === "choosing_cards" && before.turn === after.turn + 1) {
    return before.played[after.turn] || null;
  }
  if (after.phase === "dealing" && before.phase === "choosing_cards" && before.turn === 0) return before.round_rows;
  return null;
}

/**
 * Take in the newest state (the entry panel follows it at once, the board after the animations):
 * a new entry gets fresh fields (or the cards an undo took back), the focus, and opens or closes
 * the score sheet.
 */
export function takeState(s, message) {
  const before = s.view;
  s.version = message.version;
  s.table = message.table || s.table;
  s.view = message.view;
  s.sending = false;
  const key = entryKeyOf(s.view);
  if (key !== s.entryKey) {
    const refill = s.refill || (s.undone ? undoneCards(before, s.view) : null);
    s.refill = null;
    s.entryKey = key;
    s.values = refill ? refill.map(String) : [];
    s.problem = null;
    s.focusEntry = true;
    if (key.startsWith("row/")) s.focusRows = true;
    if (key.startsWith("cards/") && s.view.turn === 0) s.sheetOpen = false;
  }
  s.undone = false;
  if (before && before.phase !== "game_over" && s.view.phase === "game_over") s.sheetOpen = true;
  if (!s.shown) s.shown = s.view;
}

/** Do these events take an entry back (the next state then refills the fields)? */
export const undoesEntry = (events) => (events || []).some((event) => event.type === "entry_undone");

/** The cards that count as seen for the entry now: nothing for new rows, else the round's. */
export function seenCards(view) {
  if (!view || view.phase !== "choosing_cards") return new Set();
  return new Set([...view.round_rows, ...view.played.flat()]);
}

/** How many fields the entry has: the four rows, or one card per player. */
export const fieldCount = (view) => (view.phase === "dealing" ? 4 : view.names.length);

/** The fields' cards (null: empty). */
export const fieldNumbers = (s) =>
  Array.from({ length: fieldCount(s.view) }, (_, i) => (s.values[i] ? Number(s.values[i]) : null));

/** Field `index`'s problem (null: fine or still empty). */
export function fieldProblem(s, index) {
  const digits = s.values[index] || "";
  if (!digits) return null;
  const problem = problemOf(Number(digits), index, fieldNumbers(s), seenCards(s.view));
  return problem ? { index, ...problem } : null;
}

/** Is there an entry to take back (anything after the first round's rows)? */
export const canUndo = (view) => Boolean(view && (view.round > 0 || view.phase !== "dealing"));

/** The toolbar's line: the round and turn, the rows to enter, or the game's end. */
export function infoText(view, t) {
  if (view.phase === "game_over") return t("table.info_game_over", { round: view.round });
  if (view.phase === "dealing") return t("assist.info_rows", { round: view.round + 1 });
  return t("table.info_round", { round: view.round, turn: Math.min(view.turn + 1, 10) });
}

/** The parameters of a refusal's sentence (the assistant's own words, assist.errors.*). */
export function problemParams(problem) {
  const params = { card: "", row: "", count: 0, ...(problem.details || {}), ...problem };
  if (params.expected !== undefined) params.count = params.expected;
  return params;
}
