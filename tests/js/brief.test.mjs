// Brief announcements (table/brief.js), short seat names (state.js shortNameOf) and the status of
// an action not sent (text.js unsentText): what a screen reader hears, and what a narrow seat shows.
import assert from "node:assert/strict";
import { test } from "node:test";

import { briefRoundScored, keptInBrief, turnPrompt } from "../../src/nimmt/web/static/js/table/brief.js";
import { createState, nameOf, shortNameOf } from "../../src/nimmt/web/static/js/kit/state.js";
import { unsentText } from "../../src/nimmt/web/static/js/kit/text.js";

const t = (key, params = {}) => `${key}${JSON.stringify(params)}`;

test("brief keeps rows taken, the score, the end and seats, and only this page's row choice", () => {
  const me = 1;
  for (const type of ["row_taken", "round_scored", "game_over", "player_joined", "seat_left", "rematch_vote"]) {
    assert.equal(keptInBrief({ type, seat: 0 }, me), true, type);
  }
  for (const type of ["cards_revealed", "card_placed", "round_dealt"]) assert.equal(keptInBrief({ type, seat: 1 }, me), false, type);
  assert.equal(keptInBrief({ type: "row_choice_required", seat: 1 }, me), true);
  assert.equal(keptInBrief({ type: "row_choice_required", seat: 0 }, me), false);
});

test("brief says this seat's bullheads of the round and its total; a spectator hears the round", () => {
  const event = { type: "round_scored", round: 2, penalties: [3, 5], totals: [10, 17] };
  assert.equal(briefRoundScored(event, 1, t), 'brief.round_scored{"round":2,"count":5,"total":17}');
  assert.equal(briefRoundScored(event, null, t), 'events.round_scored{"round":2}');
});

test("the turn prompt comes once per turn, only while this seat has a card to choose", () => {
  const view = { phase: "choosing_cards", round: 1, turn: 2 };
  const first = turnPrompt(view, { me: 0, chosen: null, lastKey: null }, t);
  assert.deepEqual(first, { key: "1:2", text: 'brief.your_turn{"round":1,"turn":3}' });
  assert.equal(turnPrompt(view, { me: 0, chosen: null, lastKey: "1:2" }, t), null);
  assert.equal(turnPrompt(view, { me: 0, chosen: 14, lastKey: null }, t), null);
  assert.equal(turnPrompt(view, { me: null, chosen: null, lastKey: null }, t), null);
  assert.equal(turnPrompt({ ...view, phase: "choosing_row" }, { me: 0, chosen: null, lastKey: null }, t), null);
});

test("a bot's short name is its number, distinct per seat; a person's name stays whole", () => {
  const s = createState("ABCDEF");
  s.table = { seats: [
    { kind: "human", name: "Ana", bot_name: null },
    { kind: "bot", name: "Bot 2 (greedy)", bot_name: { bot: "greedy", number: 2 } },
    { kind: "bot", name: "Bot 10 (greedy)", bot_name: { bot: "greedy", number: 10 } },
  ] };
  s.view = { names: ["Ana", "Bot 2 (greedy)", "Bot 10 (greedy)"] };
  const en = (key, params = {}) => ({ "seating.bot_short": `Bot ${params.number}`, "seating.bot_name": `Bot ${params.number} (${params.level})` })[key] ?? key;
  assert.deepEqual([0, 1, 2].map((seat) => shortNameOf(s, seat, en)), ["Ana", "Bot 2", "Bot 10"]);
  assert.ok(nameOf(s, 1, en).startsWith(shortNameOf(s, 1, en)));
});

test("an action waiting for the connection says what waits", () => {
  assert.equal(unsentText({ type: "play", card: 9 }, t), 'table.unsent_card{"card":9}');
  assert.equal(unsentText({ type: "choose_row", row: 2 }, t), 'table.unsent_row{"row":3}');
  assert.equal(unsentText({ type: "rematch" }, t), "table.unsent{}");
});
