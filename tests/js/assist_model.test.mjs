// The assistant page's model (src/nimmt/web/static/js/assist/model.js), without a browser: which
// entry a view asks for, what an undo puts back in the fields, and the checks of a field.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  canUndo,
  createAssist,
  entryKeyOf,
  fieldNumbers,
  fieldProblem,
  infoText,
  problemParams,
  seenCards,
  takeState,
  undoesEntry,
  undoneCards,
} from "../../src/nimmt/web/static/js/assist/model.js";

const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;

/** A view of three players; `over` replaces any field. */
const view = (over = {}) => ({
  phase: "choosing_cards",
  round: 1,
  turn: 0,
  names: ["Ana", "Ben", "Cleo"],
  score_sheet: [],
  round_rows: [5, 20, 33, 70],
  played: [],
  revealed: null,
  ...over,
});

describe("the entry a view asks for", () => {
  test("rows before a round, cards each turn, a row when a card is too low", () => {
    assert.equal(entryKeyOf(null), null);
    assert.equal(entryKeyOf(view({ phase: "dealing", round: 2, score_sheet: [[1, 2, 3]] })), "rows/2/1");
    assert.equal(entryKeyOf(view({ turn: 4 })), "cards/1/4");
    assert.equal(entryKeyOf(view({ phase: "choosing_row", turn: 4 })), "row/1/4");
    assert.equal(entryKeyOf(view({ phase: "game_over" })), "game_over");
  });

  test("undo is there after the first round's rows", () => {
    assert.equal(canUndo(null), false);
    assert.equal(canUndo(view({ phase: "dealing", round: 0 })), false);
    assert.equal(canUndo(view({ phase: "dealing", round: 1 })), true);
    assert.equal(canUndo(view({ round: 0 })), true);
  });

  test("the toolbar's line", () => {
    assert.equal(infoText(view({ phase: "dealing", round: 1 }), t), "assist.info_rows(round=2)");
    assert.equal(infoText(view({ turn: 12 }), t), "table.info_round(round=1,turn=10)");
    assert.equal(infoText(view({ phase: "game_over", round: 3 }), t), "table.info_game_over(round=3)");
  });
});

describe("an undo puts its cards back", () => {
  test("a turn taken back, the row question left, the rows taken back", () => {
    const cards = view({ turn: 1, played: [[3, 40, 71]] });
    assert.deepEqual(undoneCards(cards, view({ turn: 0 })), [3, 40, 71]);
    const asked = view({ phase: "choosing_row", turn: 2, revealed: [1, 50, 60] });
    assert.deepEqual(undoneCards(asked, view({ turn: 2 })), [1, 50, 60]);
    assert.deepEqual(undoneCards(view({ turn: 0 }), view({ phase: "dealing" })), [5, 20, 33, 70]);
    assert.equal(undoneCards(view({ round: 1 }), view({ round: 2 })), null);
    assert.equal(undoesEntry([{ type: "card_placed" }, { type: "entry_undone" }]), true);
    assert.equal(undoesEntry(undefined), false);
  });

  test("the next state refills the fields and asks for the focus", () => {
    const s = createAssist({ token: "tok" });
    takeState(s, { version: 4, view: view({ turn: 1, played: [[3, 40, 71]] }) });
    assert.deepEqual([s.entryKey, s.values, s.focusEntry], ["cards/1/1", [], true]);
    s.focusEntry = false;
    s.undone = true;
    takeState(s, { version: 5, view: view({ turn: 0 }) });
    assert.deepEqual([s.version, s.entryKey, s.values, s.focusEntry, s.undone], [5, "cards/1/0", ["3", "40", "71"], true, false]);
  });

  test("a row question asks for the focus on the rows; the game's end opens the sheet", () => {
    const s = createAssist();
    takeState(s, { version: 1, view: view() });
    takeState(s, { version: 2, view: view({ phase: "choosing_row", pending_row_choice: { seat: 1, card: 2 } }) });
    assert.equal(s.focusRows, true);
    takeState(s, { version: 3, view: view({ phase: "game_over" }) });
    assert.equal(s.sheetOpen, true);
    assert.equal(s.shown.phase, "choosing_cards"); // the board follows after the animations
  });
});

describe("the fields checked", () => {
  test("a card already seen this round, or typed twice, is refused in its field", () => {
    const s = createAssist();
    s.view = view({ turn: 1, played: [[3, 40, 71]] });
    assert.deepEqual(seenCards(s.view), new Set([5, 20, 33, 70, 3, 40, 71]));
    assert.deepEqual(seenCards(view({ phase: "dealing" })), new Set());
    s.values = ["40", "", "9"];
    assert.deepEqual(fieldNumbers(s), [40, null, 9]);
    assert.deepEqual(fieldProblem(s, 0), { index: 0, code: "card_seen", card: 40 });
    assert.equal(fieldProblem(s, 1), null);
    assert.equal(fieldProblem(s, 2), null);
    s.values = ["9", "9", ""];
    assert.deepEqual(fieldProblem(s, 1), { index: 1, code: "card_twice", card: 9 });
  });

  test("a refusal's sentence counts what was expected", () => {
    assert.deepEqual(problemParams({ code: "wrong_count", details: { expected: 3 } }),
      { card: "", row: "", count: 3, expected: 3, code: "wrong_count", details: { expected: 3 } });
  });
});
