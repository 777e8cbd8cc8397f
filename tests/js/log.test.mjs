// The game log (src/nimmt/web/static/js/table/log.js): the rules' resolution of each turn, the
// log built from events and from a state's view, and its sentences (with a stub translator).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import {
  createLog,
  lastTurn,
  logEvent,
  logEvents,
  logFromState,
  outcomeShort,
  outcomeText,
  outcomeTiny,
  resolveTurn,
  turnComplete,
  turnOutcomes,
  turnsFromView,
} from "../../src/nimmt/web/static/js/table/log.js";

const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;
const names = ["Ana", "Ben", "Cleo"];
const words = (me = null) => ({ t, formatList: (items) => items.join(" & "), has: () => false, nameOf: (seat) => names[seat], me });

// The example of docs/protocol.md: three turns of round 1, Ana's 41 below every row in turn 2.
const VIEW = {
  phase: "choosing_cards",
  round: 1,
  round_rows: [81, 31, 86, 71],
  played: [[43, 88, 34], [41, 70, 45], [46, 90, 76]],
  chosen_rows: [null, 0, null],
  revealed: null,
  pending_row_choice: null,
};

describe("a turn resolved by the rules", () => {
  test("lowest card first, each to the row ending just below it", () => {
    const { moves, rows, pending } = resolveTurn([[5], [20], [40], [60]], [41, 21, 99]);
    assert.deepEqual(moves.map((move) => [move.card, move.seat, move.row]), [[21, 1, 1], [41, 0, 2], [99, 2, 3]]);
    assert.deepEqual(rows, [[5], [20, 21], [40, 41], [60, 99]]);
    assert.equal(pending, null);
  });

  test("the sixth card takes the five", () => {
    const rows = [[1, 2, 3, 4, 10], [20], [30], [40]];
    const { moves, rows: after } = resolveTurn(rows, [11, 55]);
    assert.deepEqual(moves[0], { card: 11, seat: 0, row: 0, took: { cards: [1, 2, 3, 4, 10], bullheads: 7, chosen: false } });
    assert.deepEqual(after[0], [11]);
    assert.deepEqual(rows[0], [1, 2, 3, 4, 10]); // the rows given are left as they were
    assert.deepEqual(moves[1], { card: 55, seat: 1, row: 3, took: null });
  });

  test("a card below every row takes the chosen row, or waits for the choice", () => {
    const rows = [[10], [20, 55], [30], [40]];
    const chosen = resolveTurn(rows, [12, 3], 1);
    assert.deepEqual(chosen.moves[0], { card: 3, seat: 1, row: 1, took: { cards: [20, 55], bullheads: 10, chosen: true } });
    assert.deepEqual(chosen.moves[1], { card: 12, seat: 0, row: 0, took: null });
    const waiting = resolveTurn(rows, [12, 3]);
    assert.deepEqual(waiting.pending, { card: 3, seat: 1 });
    assert.deepEqual(waiting.moves, []);
  });

  test("every turn of real games resolves as the engine told it (tests/js/fixtures/turns.json)", () => {
    const fixture = JSON.parse(readFileSync(new URL("./fixtures/turns.json", import.meta.url), "utf8"));
    let turns = 0;
    for (const { view, turns: told } of fixture) {
      const resolved = turnsFromView(view);
      const complete = resolved.filter((turn) => !turn.pending && turn.moves.length);
      assert.equal(complete.length, told.length);
      complete.forEach((turn, index) => {
        assert.equal(turn.turn, told[index].turn);
        assert.deepEqual(turn.moves, told[index].moves);
        turns += 1;
      });
      if (view.pending_row_choice) {
        const waiting = resolved[resolved.length - 1];
        assert.deepEqual(waiting.pending, view.pending_row_choice);
        assert.equal(waiting.moves.length, 0);
      }
    }
    assert.ok(turns >= 40, `only ${turns} turns checked`);
  });
});

describe("the log from a state", () => {
  test("the round's turns from round_rows, played and chosen_rows", () => {
    const turns = turnsFromView(VIEW);
    assert.equal(turns.length, 3);
    assert.deepEqual(turns[0].cards, [{ card: 34, seat: 2 }, { card: 43, seat: 0 }, { card: 88, seat: 1 }]);
    assert.deepEqual(turns[1].moves[0], { card: 41, seat: 0, row: 0, took: { cards: [81], bullheads: 1, chosen: true } });
    assert.deepEqual(turns[2].moves.map((move) => move.row), [0, 3, 2]);
  });

  test("a turn waiting for a row choice is in the log, its cards revealed", () => {
    const view = { ...VIEW, phase: "choosing_row", revealed: [2, 60, 99], pending_row_choice: { seat: 0, card: 2 } };
    const turns = turnsFromView(view);
    assert.equal(turns.length, 4);
    assert.deepEqual(turns[3], { turn: 4, cards: [{ card: 2, seat: 0 }, { card: 60, seat: 1 }, { card: 99, seat: 2 }], moves: [], pending: { card: 2, seat: 0 } });
    assert.equal(turnComplete(turns[3]), false);
  });

  test("nothing before the first deal, nor from a view without chosen_rows", () => {
    assert.equal(turnsFromView({ round: 0, round_rows: [], played: [] }), null);
    assert.equal(turnsFromView({ ...VIEW, chosen_rows: undefined }), null);
    const log = logFromState(createLog(1), { round: 0, round_rows: [], played: [] }, 1);
    assert.deepEqual(log.rounds, []);
  });

  test("the state keeps the earlier rounds and starts afresh for a new game", () => {
    let log = createLog(1);
    log = logFromState(log, VIEW, 1);
    log = logFromState(log, { ...VIEW, round: 2, played: [[43, 88, 34]], chosen_rows: [null] }, 1);
    assert.deepEqual(log.rounds.map((round) => [round.round, round.turns.length]), [[1, 3], [2, 1]]);
    const fresh = logFromState(log, { ...VIEW, played: [], chosen_rows: [] }, 2);
    assert.equal(fresh.game, 2);
    assert.deepEqual(fresh.rounds.map((round) => [round.round, round.turns.length]), [[1, 0]]);
  });
});

describe("the log from events", () => {
  const turnEvents = [
    { type: "round_dealt", round: 1, rows: [81, 31, 86, 71] },
    { type: "cards_revealed", round: 1, turn: 1, cards: [43, 88, 34] },
    { type: "card_placed", seat: 2, card: 34, row: 1 },
    { type: "card_placed", seat: 0, card: 43, row: 1 },
    { type: "card_placed", seat: 1, card: 88, row: 2 },
    { type: "cards_revealed", round: 1, turn: 2, cards: [41, 70, 45] },
    { type: "row_choice_required", seat: 0, card: 41 },
  ];

  test("the same turns as the state gives", () => {
    const log = logEvents(createLog(1), turnEvents);
    const [round] = log.rounds;
    assert.equal(round.turns.length, 2);
    assert.deepEqual(round.turns[0], turnsFromView(VIEW)[0]);
    assert.deepEqual(round.turns[1].pending, { card: 41, seat: 0 });
    assert.deepEqual(lastTurn(log).turn, 1);

    logEvents(log, [
      { type: "row_taken", seat: 0, row: 0, cards: [81], bullheads: 1, chosen: true },
      { type: "card_placed", seat: 0, card: 41, row: 0 },
      { type: "card_placed", seat: 2, card: 45, row: 1 },
      { type: "card_placed", seat: 1, card: 70, row: 1 },
    ]);
    assert.deepEqual(round.turns[1], turnsFromView(VIEW)[1]);
    assert.equal(lastTurn(log).turn, 2);
    assert.equal(lastTurn(log).round, 1);
  });

  test("a catch-up that repeats a turn replaces it, a round's score is kept, a rematch starts afresh", () => {
    const log = logEvents(createLog(1), turnEvents);
    logEvent(log, { type: "cards_revealed", round: 1, turn: 1, cards: [43, 88, 34] });
    assert.equal(log.rounds[0].turns.length, 1);
    logEvent(log, { type: "round_scored", round: 1, penalties: [1, 0, 5], totals: [1, 0, 5] });
    assert.deepEqual(log.rounds[0].penalties, [1, 0, 5]);
    const fresh = logEvent(log, { type: "rematch_started", game: 2 });
    assert.deepEqual(fresh, { game: 2, rounds: [] });
    assert.equal(lastTurn(fresh), null);
    // Events that say nothing about the turns leave the log as it is.
    assert.equal(logEvent(fresh, { type: "card_chosen", seat: 1 }), fresh);
  });
});

describe("the log's sentences", () => {
  const [first, second] = turnsFromView(VIEW);

  test("each card lowest first: where it went, or what it took", () => {
    const lines = turnOutcomes(second).map((outcome) => outcomeText(outcome, words(1)));
    assert.deepEqual(lines, [
      "log.took_chosen(name=Ana,card=41,row=1,count=1)",
      "log.placed(name=Cleo,card=45,row=2)",
      "log.placed(name=table.you(),card=70,row=2)",
    ]);
    const sixth = { turn: 5, cards: [{ card: 11, seat: 2 }], moves: [{ card: 11, seat: 2, row: 0, took: { cards: [1, 2, 3, 4, 10], bullheads: 7, chosen: false } }], pending: null };
    assert.equal(outcomeText(turnOutcomes(sixth)[0], words()), "log.took_sixth(name=Cleo,card=11,row=1,count=7)");
    assert.equal(outcomeShort(turnOutcomes(sixth)[0], t), "log.short_took(row=1,count=7)");
    assert.equal(outcomeShort(turnOutcomes(first)[0], t), "log.short_placed(row=2)");
    // Under "You" the verb agrees: "take row 1", never "you takes row 1".
    assert.equal(outcomeShort(turnOutcomes(sixth)[0], t, true), "log.short_took_you(row=1,count=7)");
    assert.equal(outcomeShort(turnOutcomes(first)[0], t, true), "log.short_placed(row=2)");
  });

  test("a card whose player is choosing a row says so", () => {
    const waiting = { turn: 4, cards: [{ card: 2, seat: 0 }, { card: 60, seat: 1 }], moves: [], pending: { card: 2, seat: 0 } };
    const outcomes = turnOutcomes(waiting);
    assert.equal(outcomeText(outcomes[0], words()), "log.chooses(name=Ana,card=2)");
    assert.equal(outcomeText(outcomes[1], words()), "log.revealed(name=Ben,card=60)");
    assert.equal(outcomeShort(outcomes[0], t), "log.short_choosing()");
    assert.equal(outcomeShort(outcomes[1], t), "");
    assert.equal(outcomeShort(outcomes[0], t, true), "log.short_choosing_you()");
  });

  test("under a card on a phone's strip: the row it went to, or the bullheads it took", () => {
    const sixth = { turn: 5, cards: [{ card: 11, seat: 2 }], moves: [{ card: 11, seat: 2, row: 0, took: { cards: [1, 2, 3, 4, 10], bullheads: 7, chosen: false } }], pending: null };
    assert.equal(outcomeTiny(turnOutcomes(sixth)[0], t), "log.tiny_took(row=1,count=7)");
    assert.equal(outcomeTiny(turnOutcomes(turnsFromView(VIEW)[0])[0], t), "log.tiny_placed(row=2)");
    const waiting = { turn: 4, cards: [{ card: 2, seat: 0 }, { card: 60, seat: 1 }], moves: [], pending: { card: 2, seat: 0 } };
    assert.deepEqual(turnOutcomes(waiting).map((outcome) => outcomeTiny(outcome, t)), ["…", ""]);
  });
});
