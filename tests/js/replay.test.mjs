// The replay viewer's model (src/nimmt/web/static/js/replay/model.js) and the board view's
// (board-model.js), without a browser. The replay stepped through is the engine's own for
// tests/records/golden/full_game.json (fixtures/full_game.replay.json; a pytest checks that it
// is exactly what the server answers).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { freeSeats, joinUrl, sheetShown } from "../../src/nimmt/web/static/js/board-model.js";
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
} from "../../src/nimmt/web/static/js/replay/model.js";

const replay = JSON.parse(readFileSync(new URL("./fixtures/full_game.replay.json", import.meta.url), "utf8"));
const steps = replay.steps;
const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;
const words = {
  t,
  formatList: (items) => items.join(" & "),
  has: () => true,
  nameOf: (seat) => replay.players[seat],
  me: null,
};

describe("links to a position", () => {
  test("a hash or a query names a round and a turn, or a round's score sheet", () => {
    assert.deepEqual(parsePosition("#r2t5", ""), { round: 2, turn: 5 });
    assert.deepEqual(parsePosition("#r3t0"), { round: 3, turn: 0 });
    assert.deepEqual(parsePosition("#R1END"), { round: 1, end: true });
    assert.deepEqual(parsePosition("", "?round=2&turn=5"), { round: 2, turn: 5 });
    assert.deepEqual(parsePosition("", "?game=1&round=4&turn=end"), { round: 4, end: true });
    assert.deepEqual(parsePosition("", "?round=2"), { round: 2, turn: 0 });
    for (const [hash, search] of [["", ""], ["#top", ""], ["#r2t", ""], ["", "?round=x&turn=2"], ["", "?game=2"]]) {
      assert.equal(parsePosition(hash, search), null, `${hash}${search}`);
    }
  });

  test("every step's own link opens that step", () => {
    steps.forEach((step, index) => {
      assert.equal(stepIndexFor(steps, parsePosition(positionHash(step), "")), index, positionHash(step));
    });
    assert.equal(positionHash(steps[0]), "#r1t0");
    assert.equal(positionHash(steps[11]), "#r1end");
  });

  test("a position past the record goes to the nearest step there is", () => {
    assert.equal(stepIndexFor(steps, null), 0);
    assert.equal(stepIndexFor(steps, { round: 9, turn: 3 }), steps.length - 1);
    assert.equal(stepIndexFor(steps, { round: 0, turn: 3 }), 0);
    const partial = steps.slice(0, 5); // a record stopped after round 1, turn 4
    assert.equal(stepIndexFor(partial, { round: 1, turn: 8 }), 4);
    assert.equal(stepIndexFor(partial, { round: 1, end: true }), 4);
  });
});

describe("keys", () => {
  test("arrows step, Home and End jump, PageUp and PageDown go from deal to deal", () => {
    const last = steps.length - 1;
    assert.equal(keyTarget("ArrowRight", 3, steps), 4);
    assert.equal(keyTarget("ArrowRight", last, steps), last);
    assert.equal(keyTarget("ArrowLeft", 3, steps), 2);
    assert.equal(keyTarget("ArrowLeft", 0, steps), 0);
    assert.equal(keyTarget("Home", 20, steps), 0);
    assert.equal(keyTarget("End", 2, steps), last);
    assert.equal(keyTarget("PageDown", 3, steps), 12); // round 2's deal
    assert.equal(steps[12].kind, "deal");
    assert.equal(keyTarget("PageUp", 15, steps), 12);
    assert.equal(keyTarget("PageUp", 12, steps), 0);
    assert.equal(keyTarget("PageDown", 40, steps), last);
    assert.equal(keyTarget("Enter", 3, steps), null);
    assert.equal(keyTarget("ArrowRight", 0, []), null);
  });

  test("only one turn forward is animated", () => {
    assert.equal(animatesTo(steps, 0, 1), true);
    assert.equal(animatesTo(steps, 1, 3), false);
    assert.equal(animatesTo(steps, 2, 1), false);
    assert.equal(animatesTo(steps, 10, 11), false); // to the score sheet
    assert.equal(animatesTo(steps, 11, 12), false); // to the next deal
  });
});

describe("what a step shows", () => {
  test("seats carry the step's scores and the cards revealed in it", () => {
    const turn = steps[3];
    const seats = stepSeats(turn, replay.players);
    assert.deepEqual(seats.map((seat) => seat.name), replay.players);
    assert.deepEqual(seats.map((seat) => seat.round), turn.penalties);
    assert.deepEqual(seats.map((seat) => seat.total), turn.totals);
    assert.deepEqual(seats.map((seat) => seat.card), turn.revealed);
    assert.ok(seats.every((seat) => seat.stateKey === "idle" && !seat.winner && !seat.back));
    const final = stepSeats(steps[steps.length - 1], replay.players);
    assert.deepEqual(final.filter((seat) => seat.winner).map((seat) => seat.seat), replay.winners);
    assert.ok(stepSeats(steps[0], replay.players).every((seat) => seat.card === null));
  });

  test("before a turn plays: the rows and scores of the step before, nothing revealed", () => {
    const index = steps.findIndex((step) => step.kind === "turn" && step.events.some((e) => e.type === "row_taken"));
    const step = steps[index];
    const before = beforeTurn(step, steps[index - 1]);
    assert.deepEqual(before.rows, steps[index - 1].rows);
    assert.deepEqual(before.totals, steps[index - 1].totals);
    assert.deepEqual(before.penalties, steps[index - 1].penalties);
    assert.equal(before.revealed, null);
    assert.notDeepEqual(before.totals, step.totals); // the take has not happened yet
  });

  test("a turn's sentences: the row chosen first, then each card placed and row taken in order", () => {
    const chosen = steps.find((step) => step.kind === "turn" && step.row_chosen !== null);
    const lines = stepLines(chosen, words);
    const placed = chosen.events.filter((e) => e.type === "card_placed" || e.type === "row_taken");
    assert.equal(lines.length, placed.length + 1);
    const low = Math.min(...chosen.revealed);
    const seat = chosen.revealed.indexOf(low);
    assert.equal(lines[0], t("replay.row_chosen", { name: replay.players[seat], card: low, row: chosen.row_chosen + 1 }));
    assert.match(lines[1], /^events\.row_taken\(/);
    assert.deepEqual(stepLines(steps[0], words), []);
    assert.deepEqual(stepLines(steps[11], words), []);
  });

  test("a step's position and status in words", () => {
    assert.equal(positionText(steps[0], t), "replay.position_deal(round=1)");
    assert.equal(positionText(steps[5], t), "table.info_round(round=1,turn=5)");
    assert.equal(positionText(steps[11], t), "replay.position_scored(round=1)");
    assert.equal(positionText(steps[steps.length - 1], t), "replay.position_over(round=4)");
    assert.equal(stepStatus(steps[0], words), "replay.status_deal(round=1)");
    assert.match(stepStatus(steps[1], words), /^events\.cards_revealed\(cards=/);
    assert.equal(stepStatus(steps[11], words), "replay.status_scored(round=1)");
    assert.match(stepStatus(steps[steps.length - 1], words), /^table\.winner_one\(name=Ana,count=30\)$/);
  });

  test("a hand: the cards held before the turn, the card played in it", () => {
    assert.deepEqual(handAt(steps[0], 2), { cards: steps[0].hands[2], played: null });
    const turn = steps[4];
    const { cards, played } = handAt(turn, 1);
    assert.equal(cards.length, 10 - 3);
    assert.equal(played, turn.revealed[1]);
    assert.ok(cards.includes(played));
    assert.deepEqual(handAt(steps[11], 1), { cards: [], played: null });
  });
});

describe("the coach's figures", () => {
  const analysis = {
    seat: 0,
    name: "Ana",
    decisions: [
      { round: 1, turn: 3, kind: "card", chosen: 3, best: 5, loss: 0.19,
        candidates: [{ choice: 3, expected: 14.61 }, { choice: 5, expected: 14.42 }] },
      { round: 1, turn: 3, kind: "row", chosen: 2, best: 4, loss: 2.33,
        candidates: [{ choice: 2, expected: 14.57 }, { choice: 4, expected: 12.24 }] },
    ],
    total_loss: 2.52,
  };

  test("the card and row decisions of the step's turn", () => {
    const at = coachAt(analysis, { kind: "turn", round: 1, turn: 3 });
    assert.equal(at.card.chosen, 3);
    assert.equal(at.card.best, 5);
    assert.equal(at.card.expected.get(5), 14.42);
    assert.equal(at.row.expected.get(4), 12.24);
    assert.equal(at.row.loss, 2.33);
  });

  test("nothing where the seat had no decision", () => {
    assert.deepEqual(coachAt(analysis, { kind: "turn", round: 1, turn: 4 }), { card: null, row: null });
    assert.deepEqual(coachAt(analysis, { kind: "deal", round: 1, turn: 0 }), { card: null, row: null });
    assert.deepEqual(coachAt(null, steps[3]), { card: null, row: null });
  });
});

describe("the board view", () => {
  const view = (overrides) => ({ phase: "choosing_cards", turn: 0, revealed: null, score_sheet: [], outcome: null, ...overrides });

  test("the score sheet stands beside the rows between rounds and at the end", () => {
    assert.equal(sheetShown(view({ score_sheet: [[1, 2]] })), true);
    assert.equal(sheetShown(view({ score_sheet: [[1, 2]], turn: 1 })), false);
    assert.equal(sheetShown(view({})), false); // the first round: no sheet yet
    assert.equal(sheetShown(view({ phase: "choosing_row", score_sheet: [[1, 2]], revealed: [3, 50] })), false);
    assert.equal(sheetShown(view({ phase: "game_over", turn: 10, score_sheet: [[70, 2]], outcome: { totals: [70, 2], winners: [1] } })), true);
    assert.equal(sheetShown(view({ phase: "waiting", score_sheet: [] })), false);
    assert.equal(sheetShown(null), false);
  });

  test("the join link and the free seats it invites to", () => {
    assert.equal(joinUrl("http://192.168.1.5:8000", "K7QX2M"), "http://192.168.1.5:8000/t/K7QX2M");
    const seats = [
      { kind: "human", occupied: true },
      { kind: "human", occupied: false },
      { kind: "bot", occupied: true },
      { kind: "human", occupied: false },
    ];
    assert.equal(freeSeats({ seats }), 2);
    assert.equal(freeSeats(null), 0);
  });
});

describe("catalogues", () => {
  const catalogue = (lang) =>
    JSON.parse(readFileSync(new URL(`../../src/nimmt/web/static/i18n/${lang}.json`, import.meta.url), "utf8"));
  const keysOf = (node, prefix = "") =>
    Object.entries(node).flatMap(([key, value]) =>
      value && typeof value === "object" && !("other" in value) ? keysOf(value, `${prefix}${key}.`) : [`${prefix}${key}`]);

  test("de, fr and en hold the same replay and board texts, and every one the views use", () => {
    const [de, fr, en] = ["de", "fr", "en"].map(catalogue);
    for (const section of ["replay", "board"]) {
      assert.deepEqual(keysOf(de[section]).sort(), keysOf(en[section]).sort(), `de ${section}`);
      assert.deepEqual(keysOf(fr[section]).sort(), keysOf(en[section]).sort(), `fr ${section}`);
    }
    const sources = ["replay/main.js", "replay/view.js", "replay/load.js", "replay/model.js", "board.js", "table/main.js", "table/view.js", "start.js"].map((name) =>
      readFileSync(new URL(`../../src/nimmt/web/static/js/${name}`, import.meta.url), "utf8"));
    const used = new Set(sources.flatMap((source) => [...source.matchAll(/t\("((?:replay|board)\.[a-z_]+)"/g)].map((m) => m[1])));
    assert.ok(used.size > 30, `only ${used.size} keys found`);
    for (const key of used) {
      const [section, name] = key.split(".");
      for (const [lang, texts] of [["de", de], ["fr", fr], ["en", en]]) assert.ok(name in texts[section], `${lang}: ${key}`);
    }
  });
});
