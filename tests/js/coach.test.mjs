// The coach's model (src/nimmt/web/static/js/table/coach.js), without a browser: when the page
// asks, which answers it keeps, the figures as shown, and the three costliest decisions.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  coachAllowed,
  coachFailed,
  coachThinking,
  confidencePercent,
  costliest,
  costlyText,
  createCoach,
  decisionKey,
  figureNotes,
  forgetQuestions,
  formatBullheads,
  formatExtra,
  noteAsked,
  noteDrawn,
  noteReceived,
  questionDue,
  replayHref,
  setCoachOn,
  takeAnswer,
  takeRefusal,
} from "../../src/nimmt/web/static/js/table/coach.js";

/** A translator that shows the key and its parameters: "key(a=1,b=2)". */
const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;

const choosing = (round, turn, hand = [3, 17, 42]) => ({ phase: "choosing_cards", round, turn, hand, must_choose_row: false });
const rowChoice = (round, turn) => ({ phase: "choosing_row", round, turn, hand: [17, 42], must_choose_row: true });
const answer = (version, kind = "card", best = 17) => ({
  type: "coach", version, kind, best, confidence: 0.714,
  candidates: kind === "card"
    ? [{ choice: 3, expected: 6.12, extra: 2.9 }, { choice: 17, expected: 3.22, extra: 0 }, { choice: 42, expected: 3.25, extra: 0.03 }]
    : [0, 1, 2, 3].map((row) => ({ choice: row, expected: row === best ? 1 : 3.5, extra: row === best ? 0 : 2.5 })),
});

describe("decisions", () => {
  test("a card to choose, a row to take, or nothing", () => {
    assert.equal(decisionKey(choosing(2, 5)), "card:2:5");
    assert.equal(decisionKey(rowChoice(2, 5)), "row:2:5");
    assert.equal(decisionKey({ ...choosing(1, 1), hand: [] }), null);
    assert.equal(decisionKey({ phase: "choosing_row", round: 1, turn: 3, hand: [5], must_choose_row: false }), null);
    assert.equal(decisionKey({ phase: "game_over", round: 4, turn: 10, hand: [], must_choose_row: false }), null);
    assert.equal(decisionKey(null), null);
  });

  test("the coach is allowed only to a seated person at a table that allows it", () => {
    assert.equal(coachAllowed({ coach: true }, true), true);
    assert.equal(coachAllowed({ coach: true }, false), false);
    assert.equal(coachAllowed({ coach: false }, true), false);
    assert.equal(coachAllowed(null, true), false);
  });
});

describe("asking", () => {
  test("once per decision, only when on and allowed", () => {
    const c = createCoach({ on: true });
    assert.equal(noteReceived(c, choosing(1, 1), true), "card:1:1");
    noteAsked(c, "card:1:1", 7);
    // Another player's choice: a new version, the same decision: no second question.
    assert.equal(noteReceived(c, choosing(1, 1), true), null);
    assert.equal(noteReceived(c, rowChoice(1, 1), true), "row:1:1");
    noteAsked(c, "row:1:1", 8);
    assert.equal(noteReceived(c, choosing(1, 2), false), null, "not allowed");
    const off = createCoach({ on: false });
    assert.equal(noteReceived(off, choosing(1, 1), true), null);
    setCoachOn(off, true);
    assert.equal(questionDue(off, true), "card:1:1", "turned on during a decision: asks at once");
  });

  test("a lost connection forgets the questions, so the decision is asked about again", () => {
    const c = createCoach({ on: true });
    noteReceived(c, choosing(1, 1), true);
    noteAsked(c, "card:1:1", 3);
    assert.equal(questionDue(c, true), null);
    forgetQuestions(c);
    assert.equal(questionDue(c, true), "card:1:1");
    assert.equal(takeRefusal(c, { type: "error", code: "no_decision", request_id: 3 }), false);
  });

  test("a refused question is no toast; a failure is not asked again until turned on again", () => {
    const c = createCoach({ on: true });
    noteReceived(c, choosing(1, 1), true);
    noteDrawn(c, choosing(1, 1), 10);
    noteAsked(c, "card:1:1", 4);
    assert.equal(takeRefusal(c, { code: "card_not_in_hand", request_id: 99 }), false, "not the coach's");
    assert.equal(coachThinking(c, true), true);
    assert.equal(takeRefusal(c, { code: "internal_error", request_id: 4 }), true);
    assert.equal(coachThinking(c, true), false);
    assert.equal(coachFailed(c, true), true);
    forgetQuestions(c);
    assert.equal(questionDue(c, true), null, "a failure is not retried by itself");
    setCoachOn(c, false);
    setCoachOn(c, true);
    assert.equal(questionDue(c, true), "card:1:1");
  });
});

describe("answers", () => {
  test("kept when analysed within the decision drawn, dropped once the table moved on", () => {
    const c = createCoach({ on: true });
    noteDrawn(c, choosing(1, 1), 10);
    noteDrawn(c, choosing(1, 1), 11); // someone chose: the same decision, it began at 10
    assert.equal(takeAnswer(c, answer(9)), false, "analysed before this decision");
    assert.equal(takeAnswer(c, answer(10)), true);
    assert.equal(c.answer.version, 10);
    assert.equal(coachThinking(c, true), false);
    noteDrawn(c, choosing(1, 2), 14);
    assert.equal(c.answer, null, "a new turn forgets the last turn's figures");
    assert.equal(coachThinking(c, true), true);
    assert.equal(takeAnswer(c, answer(12)), false, "the last turn's answer, arriving late");
    assert.equal(takeAnswer(c, answer(15, "row", 2)), false, "a row answer for a card decision");
    noteDrawn(c, { phase: "choosing_row", round: 1, turn: 2, hand: [3], must_choose_row: false }, 16);
    assert.equal(takeAnswer(c, answer(16)), false, "no decision of mine now");
    assert.equal(coachThinking(c, true), false);
  });
});

describe("figures", () => {
  test("one decimal, in the reader's language, never negative", () => {
    assert.equal(formatExtra(2.4), "+2.4");
    assert.equal(formatExtra(2.44), "+2.4");
    assert.equal(formatExtra(0.03), "+0.0");
    assert.equal(formatExtra(-0.0001), "+0.0");
    assert.equal(formatExtra(1.25, "de"), "+1,3");
    assert.equal(formatBullheads(6.12, "fr"), "6,1");
    assert.equal(confidencePercent(0.714), 71);
    assert.equal(confidencePercent(1.2), 100);
  });

  test("each card's note: the figure, the best card marked, the advice with its confidence", () => {
    const notes = figureNotes(answer(10), { t, lang: "en" });
    assert.deepEqual([...notes.keys()], [3, 17, 42]);
    assert.equal(notes.get(3).text, "+2.9");
    assert.equal(notes.get(3).best, false);
    assert.equal(notes.get(3).advice, "coach.card_extra(expected=6.1,extra=2.9,confidence=71,row=4)");
    assert.equal(notes.get(17).text, "coach.best()");
    assert.equal(notes.get(17).best, true);
    assert.equal(notes.get(17).advice, "coach.card_best(expected=3.2,extra=0.0,confidence=71,row=18)");
    assert.equal(notes.get(42).text, "+0.0");
  });

  test("each row's note, rows counted from 1 for people", () => {
    const notes = figureNotes(answer(10, "row", 2), { t, lang: "de" });
    assert.deepEqual([...notes.keys()], [0, 1, 2, 3]);
    assert.equal(notes.get(2).best, true);
    assert.equal(notes.get(2).advice, "coach.row_best(expected=1,0,extra=0,0,confidence=71,row=3)");
    assert.equal(notes.get(0).text, "+2,5");
    assert.equal(figureNotes(null, { t }).size, 0);
  });
});

describe("the three costliest decisions", () => {
  const analysis = {
    seat: 0, name: "Ana", total_loss: 6.5,
    decisions: [
      { round: 1, turn: 1, kind: "card", chosen: 12, best: 12, loss: 0, candidates: [] },
      { round: 1, turn: 3, kind: "card", chosen: 3, best: 5, loss: 0.19, candidates: [] },
      { round: 1, turn: 3, kind: "row", chosen: 2, best: 4, loss: 2.33, candidates: [] },
      { round: 2, turn: 5, kind: "card", chosen: 34, best: 12, loss: 2.4, candidates: [] },
      { round: 2, turn: 7, kind: "card", chosen: 60, best: 8, loss: 1.5, candidates: [] },
      { round: 3, turn: 2, kind: "card", chosen: 77, best: 9, loss: 1.5, candidates: [] },
    ],
  };

  test("the biggest losses first, the earlier on a tie, at most three", () => {
    const items = costliest(analysis);
    assert.deepEqual(items.map((item) => [item.round, item.turn, item.kind, item.loss]), [
      [2, 5, "card", 2.4],
      [1, 3, "row", 2.33],
      [2, 7, "card", 1.5],
    ]);
    assert.deepEqual(items[1], { round: 1, turn: 3, kind: "row", chosen: 2, best: 4, loss: 2.33, anchor: "r1t3" });
  });

  test("decisions that lost nothing are left out; none at all is an empty list", () => {
    const perfect = { decisions: analysis.decisions.slice(0, 1) };
    assert.deepEqual(costliest(perfect), []);
    assert.deepEqual(costliest({}), []);
    assert.deepEqual(costliest(null), []);
    assert.equal(costliest(analysis, 5).length, 5);
  });

  test("their sentences and the replay viewer's link at that turn", () => {
    const [card, row] = costliest(analysis);
    assert.equal(costlyText(card, { t, lang: "en" }), "coach.review_card(round=2,turn=5,chosen=34,best=12,loss=2.4)");
    assert.equal(costlyText(row, { t, lang: "fr" }), "coach.review_row(round=1,turn=3,chosen=2,best=4,loss=2,3)");
    assert.equal(replayHref("K7QX2M", card), "/t/K7QX2M/replay#r2t5");
    assert.equal(replayHref("K7QX2M", row, 3), "/t/K7QX2M/replay?game=3#r1t3");
  });
});

describe("catalogues", () => {
  test("every coach text exists in de, fr and en with the same placeholders", async () => {
    const { readFile } = await import("node:fs/promises");
    const catalogues = {};
    for (const lang of ["de", "fr", "en"]) {
      const url = new URL(`../../src/nimmt/web/static/i18n/${lang}.json`, import.meta.url);
      catalogues[lang] = JSON.parse(await readFile(url, "utf8"));
    }
    const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const english = catalogues.en.coach;
    assert.ok(Object.keys(english).length > 10);
    for (const lang of ["de", "fr"]) {
      assert.deepEqual(Object.keys(catalogues[lang].coach).sort(), Object.keys(english).sort(), lang);
      for (const [key, text] of Object.entries(english)) {
        assert.deepEqual(placeholders(catalogues[lang].coach[key]), placeholders(text), `${lang} coach.${key}`);
      }
      for (const key of ["allow_coach", "allow_coach_help"]) assert.ok(catalogues[lang].start[key], `${lang} start.${key}`);
    }
  });
});
