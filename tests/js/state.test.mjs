// The table page's model (src/nimmt/web/static/js/kit/state.js), without a browser.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { acceptEvents } from "../../src/nimmt/web/static/js/feed.js";
import {
  applyStateMessage,
  chosenCard,
  createState,
  handMove,
  lowestFirst,
  mayBeLastRound,
  nameOf,
  nearEnd,
  outboxStillValid,
  playerCount,
  rowMove,
  seatScore,
  seatStateKey,
  seatSummaries,
  seatsOver,
  sendPendingCard,
  shouldSummarize,
  speedFrom,
  stateKeyAtReveal,
  typedCard,
} from "../../src/nimmt/web/static/js/kit/state.js";

const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;

/** A view in the middle of choosing cards, three players, seat 0 holding 3, 17, 42. */
function choosingView(overrides = {}) {
  return {
    phase: "choosing_cards",
    round: 1,
    turn: 2,
    names: ["Ana", "Ben", "Cleo"],
    rows: [[5], [12], [40], [77]],
    hand: [3, 17, 42],
    legal_cards: [3, 17, 42],
    chosen_card: null,
    has_chosen: [false, true, false],
    waiting_for: [0, 2],
    must_choose_row: false,
    pending_row_choice: null,
    revealed: null,
    penalties: [0, 3, 1],
    totals: [10, 4, 0],
    score_sheet: [[10, 4, 0]],
    outcome: null,
    ...overrides,
  };
}

const humans = (...occupied) => occupied.map((o, seat) => ({ kind: "human", name: `P${seat}`, occupied: o, connected: true }));

describe("settings", () => {
  test("a stored speed outside 1, 2, 4 falls back to 1", () => {
    assert.equal(speedFrom("4"), 4);
    assert.equal(speedFrom("3"), 1);
    assert.equal(speedFrom(null), 1);
  });
});

describe("names and seats", () => {
  test("a name comes from the view, else the table, else 'Seat N'", () => {
    const s = createState("ABC123");
    s.table = { seats: [{ name: "Tab" }, { name: null }] };
    assert.equal(nameOf(s, 0, t), "Tab");
    assert.equal(nameOf(s, 1, t), "seat.empty_name(number=2)");
    s.view = choosingView();
    assert.equal(nameOf(s, 0, t), "Ana");
  });

  test("the player count follows the view once there is one", () => {
    const s = createState("ABC123");
    assert.equal(playerCount(s), 0);
    s.table = { seats: humans(true, false) };
    assert.equal(playerCount(s), 2);
    s.view = choosingView();
    assert.equal(playerCount(s), 3);
  });

  test("seat states: empty seat, row chooser, chosen, thinking, waiting, ready", () => {
    const view = choosingView();
    assert.equal(seatStateKey(view, humans(true, true, false), 2), "empty");
    assert.equal(seatStateKey(view, null, 1), "chosen");
    assert.equal(seatStateKey(view, null, 0), "thinking");
    const rowView = choosingView({ phase: "choosing_row", pending_row_choice: { seat: 2, card: 1 } });
    assert.equal(seatStateKey(rowView, null, 2), "row");
    assert.equal(seatStateKey(rowView, null, 0), "waiting");
    assert.equal(seatStateKey(choosingView({ phase: "waiting" }), null, 0), "ready");
    assert.equal(seatStateKey(choosingView({ phase: "game_over" }), null, 0), "idle");
  });

  test("a seat's total includes this round's points until the game is over", () => {
    assert.deepEqual(seatScore(choosingView(), 1), { round: 3, total: 7 });
    assert.deepEqual(seatScore(choosingView({ phase: "game_over" }), 1), { round: 3, total: 4 });
  });

  test("seat summaries carry what the seats section draws", () => {
    const s = createState("ABC123");
    s.you = { seat: 0 };
    s.table = { seats: [humans(true)[0], { kind: "bot", occupied: true }, { kind: "human", occupied: true, connected: false }] };
    s.view = choosingView();
    const seats = seatSummaries(s, (seat) => `N${seat}`);
    assert.deepEqual(seats.map((seat) => seat.name), ["N0", "N1", "N2"]);
    assert.deepEqual(seats.map((seat) => seat.isMe), [true, false, false]);
    assert.deepEqual(seats.map((seat) => seat.bot), [false, true, false]);
    assert.deepEqual(seats.map((seat) => seat.offline), [false, false, true]);
    assert.deepEqual(seats.map((seat) => seat.back), [false, true, false]); // seat 1 has chosen
    assert.deepEqual(seats.map((seat) => seat.total), [10, 7, 1]);
    s.view = choosingView({ phase: "choosing_row", revealed: [3, 60, 9] });
    assert.deepEqual(seatSummaries(s, String).map((seat) => seat.card), [3, 60, 9]);
    s.view = choosingView({ phase: "game_over", outcome: { winners: [2], totals: [10, 4, 0] } });
    assert.deepEqual(seatSummaries(s, String).map((seat) => seat.winner), [false, false, true]);
  });

  test("revealed cards are ordered lowest first and keep their seats", () => {
    assert.deepEqual(lowestFirst([42, 7, 104]), [
      { card: 7, seat: 1 },
      { card: 42, seat: 0 },
      { card: 104, seat: 2 },
    ]);
  });
});

describe("applying a state", () => {
  test("takes version, seat and view; keeps the table when none is sent", () => {
    const s = createState("ABC123");
    s.table = { seats: humans(true, true, true) };
    const { seatLost } = applyStateMessage(s, { version: 7, you: { seat: 0 }, view: choosingView() });
    assert.equal(seatLost, false);
    assert.equal(s.version, 7);
    assert.equal(s.you.seat, 0);
    assert.equal(s.table.seats.length, 3);
    assert.equal(s.view.phase, "choosing_cards");
  });

  test("a sent card stays chosen until a state confirms it or it left the hand", () => {
    const s = createState("ABC123");
    applyStateMessage(s, { version: 1, you: { seat: 0 }, view: choosingView() });
    sendPendingCard(s, 17);
    applyStateMessage(s, { version: 1, you: { seat: 0 }, view: choosingView({ has_chosen: [false, true, true] }) });
    assert.equal(s.pendingCard, 17);
    assert.equal(chosenCard(s), 17);
    applyStateMessage(s, { version: 2, you: { seat: 0 }, view: choosingView({ chosen_card: 17 }) });
    assert.equal(s.pendingCard, null);
    assert.equal(chosenCard(s), 17);
    sendPendingCard(s, 3);
    applyStateMessage(s, { version: 3, you: { seat: 0 }, view: choosingView({ hand: [17, 42] }) });
    assert.equal(s.pendingCard, null);
  });

  test("a sent card is forgotten when the next round deals the same number again", () => {
    // The round's last card resolves and the next round is dealt in one change: the card
    // is back in the new hand, not chosen, and the page must ask for a card again.
    const s = createState("ABC123");
    const lastTurn = { turn: 10, hand: [17], legal_cards: [17] };
    applyStateMessage(s, { version: 1, you: { seat: 0 }, table: { game: 1 }, view: choosingView(lastTurn) });
    sendPendingCard(s, 17);
    const dealt = { round: 2, turn: 1, has_chosen: [false, false, false], waiting_for: [0, 1, 2] };
    applyStateMessage(s, { version: 2, you: { seat: 0 }, table: { game: 1 }, view: choosingView(dealt) });
    assert.equal(s.pendingCard, null);
    assert.equal(chosenCard(s), null);
  });

  test("the sheet opens when the game ends and closes on a new game", () => {
    const s = createState("ABC123");
    applyStateMessage(s, { version: 1, you: { seat: 0 }, view: choosingView() });
    applyStateMessage(s, { version: 2, you: { seat: 0 }, view: choosingView({ phase: "game_over" }) });
    assert.equal(s.sheetOpen, true);
    applyStateMessage(s, { version: 3, you: { seat: 0 }, view: choosingView({ phase: "waiting" }) });
    assert.equal(s.sheetOpen, false);
  });

  test("a leave under way and no seat in the state: the seat is forgotten", () => {
    const s = createState("ABC123", { token: "tok" });
    Object.assign(s, { leaving: true, leaveRequest: 4, outbox: { type: "rematch" } });
    const { seatLost } = applyStateMessage(s, { version: 9, you: null, view: choosingView() });
    assert.equal(seatLost, true);
    assert.deepEqual([s.token, s.leaving, s.leaveRequest, s.outbox], [null, false, null, null]);
    assert.deepEqual(s.you, { seat: null });
  });

  test("repeated events messages are taken in once", () => {
    const s = createState("ABC123");
    assert.equal(acceptEvents(s, { version: 5 }), true);
    assert.equal(acceptEvents(s, { version: 5 }), false);
    assert.equal(acceptEvents(s, { version: 4 }), false);
    assert.equal(acceptEvents(s, { version: 6 }), true);
    assert.equal(acceptEvents(s, {}), true);
  });

  test("a catch-up of more than one turn is summed up", () => {
    const reveal = { type: "cards_revealed", cards: [1, 2] };
    assert.equal(shouldSummarize([reveal, reveal], true), true);
    assert.equal(shouldSummarize([reveal, reveal], false), false);
    assert.equal(shouldSummarize([reveal], true), false);
    assert.equal(shouldSummarize(Array(13).fill({ type: "card_placed" }), true), true);
  });

  test("an action kept offline is sent only when it still fits the view", () => {
    const view = choosingView({ legal_cards: [3, 17] });
    assert.equal(outboxStillValid(view, { type: "play", card: 17 }), true);
    assert.equal(outboxStillValid(view, { type: "play", card: 99 }), false);
    assert.equal(outboxStillValid(view, { type: "choose_row", row: 1 }), false);
    assert.equal(outboxStillValid({ ...view, must_choose_row: true }, { type: "choose_row", row: 1 }), true);
    assert.equal(outboxStillValid({ ...view, legal_cards: [] }, { type: "play", card: 42 }), true);
    assert.equal(outboxStillValid({ ...view, legal_cards: [], chosen_card: 42 }, { type: "play", card: 42 }), false);
    assert.equal(outboxStillValid(view, { type: "rematch" }), false);
  });
});

describe("keyboard choices", () => {
  const hand = [3, 17, 42, 104];
  test("arrows, Home and End move along the hand and stop at its ends", () => {
    assert.equal(handMove(hand, 17, "ArrowRight"), 42);
    assert.equal(handMove(hand, 17, "ArrowUp"), 3);
    assert.equal(handMove(hand, 104, "ArrowDown"), 104);
    assert.equal(handMove(hand, 3, "ArrowLeft"), 3);
    assert.equal(handMove(hand, 42, "Home"), 3);
    assert.equal(handMove(hand, 3, "End"), 104);
    assert.equal(handMove(hand, 3, "x"), null);
    assert.equal(handMove([], 3, "End"), null);
  });

  test("typed digits find the card with that number, else the first starting with them", () => {
    assert.equal(typedCard(hand, "4"), 42);
    assert.equal(typedCard(hand, "42"), 42);
    assert.equal(typedCard(hand, "3"), 3);
    assert.equal(typedCard(hand, "10"), 104);
    assert.equal(typedCard(hand, "9"), null);
  });

  test("arrows move between the four rows, wrapping around", () => {
    assert.equal(rowMove(0, "ArrowUp"), 3);
    assert.equal(rowMove(3, "ArrowRight"), 0);
    assert.equal(rowMove(1, "ArrowDown"), 2);
    assert.equal(rowMove(1, "Enter"), null);
  });
});

describe("the end of the game", () => {
  test("from 45 to 66 a total is close to 66 (above, past it), and such totals may make the last round", () => {
    assert.deepEqual([0, 44, 45, 66, 67, 70].map(nearEnd), [false, false, true, true, false, false]);
    assert.equal(mayBeLastRound([10, 44, 40]), false);
    assert.equal(mayBeLastRound([10, 45, 40]), true);
  });

  test("only totals above 66 went over, highest first", () => {
    assert.deepEqual(seatsOver([66, 12, 70, 80]), [{ seat: 3, total: 80 }, { seat: 2, total: 70 }]);
    assert.deepEqual(seatsOver([66, 12]), []);
  });

  test("once the cards are revealed, nobody is thinking", () => {
    assert.equal(stateKeyAtReveal("thinking"), "chosen");
    for (const key of ["chosen", "row", "empty", "waiting"]) assert.equal(stateKeyAtReveal(key), key);
  });

  test("a seat summary marks a total close to 66, this round's bullheads included", () => {
    const s = createState("ABC");
    s.you = { seat: 0 };
    s.view = choosingView({ totals: [40, 45, 0], penalties: [6, 0, 0] });
    assert.deepEqual(seatSummaries(s, String).map((seat) => seat.nearEnd), [true, true, false]);
  });
});
