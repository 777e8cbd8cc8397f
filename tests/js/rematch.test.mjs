// Playing again by agreement (src/nimmt/web/static/js/table/rematch.js) with a stub translator.
import assert from "node:assert/strict";
import { test } from "node:test";

import { rematchStatus, rematchText } from "../../src/nimmt/web/static/js/table/rematch.js";
import { applyStateMessage, createState } from "../../src/nimmt/web/static/js/kit/state.js";
import { eventSentence, rematchVoteSentence } from "../../src/nimmt/web/static/js/kit/text.js";

const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;
const names = ["Ana", "Bot 2", "Cleo", "Dan"];
const words = (me = null) => ({ t, formatList: (items) => items.join(" & "), has: () => false, nameOf: (seat) => names[seat], me });

test("no agreement is asked while the game goes on", () => {
  assert.equal(rematchStatus({ rematch: null }, 0), null);
  assert.equal(rematchStatus(null, 0), null);
  assert.equal(rematchText(null, words(0)), "");
});

test("who agreed, counted among the people seated (bots are not asked)", () => {
  const table = { rematch: { ready: [0, 3], needed: [0, 2, 3] } };
  const mine = rematchStatus(table, 0);
  assert.deepEqual(mine, { ready: [0, 3], needed: [0, 2, 3], mine: true, count: 2, total: 3 });
  assert.equal(rematchStatus(table, 2).mine, false);
  assert.equal(rematchStatus(table, null).mine, false);
  assert.equal(
    rematchText(mine, words(0)),
    "rematch.ready_names(count=rematch.ready_count(count=2,total=3),names=seat.you() & Dan)",
  );
  assert.equal(rematchText(rematchStatus({ rematch: { ready: [], needed: [0, 2] } }, 0), words(0)), "rematch.ready_count(count=0,total=2)");
  // A seat that agreed and then left is not counted.
  assert.equal(rematchStatus({ rematch: { ready: [1, 2], needed: [2, 3] } }, 3).count, 1);
});

test("a vote is a notice everybody sees, said to its own seat as 'you'", () => {
  const agreed = { type: "rematch_vote", seat: 2, agree: true, ready: [0, 2] };
  assert.deepEqual(rematchVoteSentence(agreed, words(0)), { text: "rematch.vote(name=Cleo)", notice: true });
  assert.deepEqual(eventSentence(agreed, words(2)), { text: "rematch.vote_you(name=Cleo)", notice: true });
  const withdrawn = { ...agreed, agree: false, ready: [0] };
  assert.equal(eventSentence(withdrawn, words(0)).text, "rematch.withdrawn(name=Cleo)");
  assert.equal(eventSentence(withdrawn, words(2)).text, "rematch.withdrawn_you(name=Cleo)");
});

test("a page that opens on a finished game shows the final sheet, where the agreement is asked", () => {
  const s = createState("ABC123");
  const over = { phase: "game_over", hand: [], score_sheet: [[70, 3]], outcome: { totals: [70, 3], winners: [1] } };
  applyStateMessage(s, { version: 9, you: { seat: 0 }, view: over });
  assert.equal(s.sheetOpen, true);
  s.sheetOpen = false; // closed by its player: a later state (a vote) leaves it closed
  applyStateMessage(s, { version: 10, you: { seat: 0 }, view: over });
  assert.equal(s.sheetOpen, false);
});
