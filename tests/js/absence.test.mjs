// An absent player (src/nimmt/web/static/js/table/absence.js): what the page makes of the
// table's `absence` summary, with no DOM.
import assert from "node:assert/strict";
import { test } from "node:test";

import { absenceStatus, minutesAway } from "../../src/nimmt/web/static/js/table/absence.js";

const absence = (extra = {}) => ({
  absence: { away_seconds: 120, away: [{ seat: 0, seconds: 130, absent: true }, { seat: 3, seconds: 20, absent: false }],
    stand_ins: [], card_stands: [], proposal: null, ...extra },
});

test("only the people away for the delay are offered, never this page's own seat", () => {
  assert.deepEqual(absenceStatus(absence(), 1).absent, [{ seat: 0, seconds: 130, absent: true }]);
  assert.deepEqual(absenceStatus(absence(), 0).absent, []);
  assert.equal(absenceStatus({ absence: null }, 1), null);
  assert.equal(absenceStatus(null, 1), null);
});

test("a finished game shows nobody away", () => {
  // A spectator of a finished game once read "Ana has been away for 3 minutes" above the sheet.
  assert.equal(absenceStatus({ ...absence(), finished: true }, 1), null);
  assert.equal(absenceStatus({ ...absence(), finished: false }, 1).absent.length, 1);
});

test("the proposal says who agreed, who is awaited, and what this page may do", () => {
  const proposal = { seat: 0, bot: "medium", by: 1, agreed: [1], needed: [1, 2] };
  const ben = absenceStatus(absence({ proposal }), 1).proposal;
  assert.equal(ben.mine, true);
  assert.equal(ben.agreedByMe, true);
  assert.deepEqual(ben.waitingFor, [2]);
  const cal = absenceStatus(absence({ proposal }), 2).proposal;
  assert.equal(cal.mine, false);
  assert.equal(cal.canAgree, true);
  assert.equal(cal.agreedByMe, false);
  assert.equal(absenceStatus(absence({ proposal }), null).proposal.canAgree, false);
});

test("a person back sees that the bot's card stands", () => {
  assert.equal(absenceStatus(absence({ card_stands: [0] }), 0).cardStands, true);
  assert.equal(absenceStatus(absence({ card_stands: [0] }), 1).cardStands, false);
});

test("the minutes away count on from the message", () => {
  assert.equal(minutesAway(130, 1000, 1000), 2);
  assert.equal(minutesAway(100, 1000, 1000 + 20_000), 2);
  assert.equal(minutesAway(59, 1000, 1000), 0);
  assert.equal(minutesAway(59, 5000, 1000), 0); // a clock going back counts nothing
});
