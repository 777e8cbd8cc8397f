// The table's sentences (src/nimmt/web/static/js/kit/text.js) with a stub translator.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  botLabel,
  emptyHandText,
  eventSentence,
  infoText,
  nextRoundWarning,
  overText,
  seatStateText,
  statusText,
  winnersText,
} from "../../src/nimmt/web/static/js/kit/text.js";

/** A translator that shows the key and its parameters: "key(a=1,b=2)". */
const t = (key, params = {}) => `${key}(${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(",")})`;
const names = ["Ana", "Ben", "Cleo"];
const words = (me = null) => ({
  t,
  formatList: (items) => items.join(" & "),
  has: (key) => key === "bots.medium",
  nameOf: (seat) => names[seat],
  me,
});

describe("event sentences", () => {
  test("revealed cards are listed lowest first with their players", () => {
    const sentence = eventSentence({ type: "cards_revealed", cards: [42, 7, 13] }, words());
    assert.deepEqual(sentence, {
      text: "events.cards_revealed(cards=events.revealed_item(name=Ben,card=7) & events.revealed_item(name=Cleo,card=13) & events.revealed_item(name=Ana,card=42))",
      notice: false,
    });
  });

  test("rows are counted from 1, and your own take is said to you", () => {
    const event = { type: "row_taken", seat: 1, row: 0, bullheads: 5 };
    assert.equal(eventSentence(event, words(0)).text, "events.row_taken(name=Ben,row=1,count=5)");
    assert.equal(eventSentence(event, words(1)).text, "events.row_taken_you(name=Ben,row=1,count=5)");
    const placed = { type: "card_placed", seat: 2, card: 55, row: 3 };
    assert.equal(eventSentence(placed, words()).text, "events.card_placed(name=Cleo,card=55,row=4)");
  });

  test("a row choice asks you, or says who is choosing", () => {
    const event = { type: "row_choice_required", seat: 0, card: 2 };
    assert.equal(eventSentence(event, words(0)).text, "table.prompt_choose_row(card=2)");
    assert.equal(eventSentence(event, words(1)).text, "events.row_choice_required(name=Ana,card=2)");
  });

  test("joining and leaving are notices; a bot taking over is named in the language", () => {
    assert.deepEqual(eventSentence({ type: "player_joined", seat: 2, name: "Dora" }, words()), {
      text: "events.player_joined(name=Dora)",
      notice: true,
    });
    assert.equal(eventSentence({ type: "player_joined", seat: 2 }, words()).text, "events.player_joined(name=Cleo)");
    const left = { type: "seat_left", seat: 1, bot: "medium" };
    assert.deepEqual(eventSentence(left, words(0)), {
      text: "events.seat_left_bot(name=Ben,bot=bots.medium())",
      notice: true,
    });
    assert.equal(eventSentence(left, words(1)).text, "events.you_left_bot(bot=bots.medium())");
    assert.equal(eventSentence({ type: "seat_left", seat: 1 }, words(1)).text, "events.you_left()");
    assert.equal(eventSentence({ type: "seat_left", seat: 1, bot: "odd" }, words()).text, "events.seat_left_bot(name=Ben,bot=odd)");
  });

  test("a person back at their seat: the others hear who, they hear that it is them", () => {
    const event = { type: "seat_reclaimed", seat: 0, card_stands: true };
    assert.deepEqual(eventSentence(event, words(1)), { text: "events.seat_reclaimed(name=Ana)", notice: true });
    assert.deepEqual(eventSentence(event, words(0)), { text: "events.you_reclaimed()", notice: true });
  });

  test("an event that says nothing gives null", () => {
    assert.equal(eventSentence({ type: "something_new" }, words()), null);
  });
});

describe("winners", () => {
  test("you, one other, or several", () => {
    const totals = [12, 30, 12];
    assert.equal(winnersText([0], totals, words(0)), "table.winner_you(count=12)");
    assert.equal(winnersText([0], totals, words(1)), "table.winner_one(name=Ana,count=12)");
    assert.equal(winnersText([0, 2], totals, words(2)), "table.winners_many(names=Ana & table.you(),count=12)");
    assert.equal(eventSentence({ type: "game_over", winners: [2], totals }, words()).text, "table.winner_one(name=Cleo,count=12)");
  });
});

describe("status and labels", () => {
  const view = (overrides) => ({ phase: "choosing_cards", round: 2, turn: 4, waiting_for: [0, 2], pending_row_choice: null, outcome: null, ...overrides });

  test("while choosing: your prompt, your chosen card, or who is awaited", () => {
    assert.equal(statusText(view(), {}, words(0)), "table.prompt_choose_card()");
    assert.equal(statusText(view(), { chosen: 17 }, words(0)), "table.prompt_chosen_wait(card=17,names=Cleo)");
    assert.equal(statusText(view({ waiting_for: [0] }), { chosen: 17 }, words(0)), "table.prompt_revealing()");
    assert.equal(statusText(view(), {}, words()), "table.prompt_others_choosing(names=Ana & Cleo)");
  });

  test("back at the seat: the card the bot chose stands, and it is not yours to change", () => {
    assert.equal(statusText(view(), { chosen: 17, cardStands: true }, words(0)), "table.prompt_card_stands(card=17,names=Cleo)");
    assert.equal(statusText(view({ waiting_for: [0] }), { chosen: 17, cardStands: true }, words(0)), "table.prompt_revealing()");
  });

  test("before the deal: how many human seats are taken", () => {
    const seats = [{ kind: "human", occupied: true }, { kind: "bot", occupied: true }, { kind: "human", occupied: false }];
    assert.equal(statusText(view({ phase: "waiting" }), { tableSeats: seats }, words()), "table.prompt_waiting_players(count=1,total=2)");
  });

  test("a row choice: yours or someone else's", () => {
    const rowView = view({ phase: "choosing_row", pending_row_choice: { seat: 1, card: 4 } });
    assert.equal(statusText(rowView, {}, words(1)), "table.prompt_choose_row(card=4)");
    assert.equal(statusText(rowView, {}, words(0)), "table.prompt_waits_for_row(name=Ben,card=4)");
  });

  test("after the game: the winners", () => {
    const over = view({ phase: "game_over", outcome: { winners: [1], totals: [70, 20, 66] } });
    assert.equal(statusText(over, {}, words()), "table.winner_one(name=Ben,count=20)");
  });

  test("the toolbar's round and turn, the turn never past 10", () => {
    assert.equal(infoText(view({ turn: 4 }), t), "table.info_round(round=2,turn=5)");
    assert.equal(infoText(view({ turn: 10 }), t), "table.info_round(round=2,turn=10)");
    assert.equal(infoText(view({ phase: "waiting" }), t), "table.info_waiting()");
  });

  test("seat states, empty hands and bot names", () => {
    assert.equal(seatStateText("thinking", t), "seat.state_thinking()");
    assert.equal(seatStateText("idle", t), "");
    assert.equal(emptyHandText("game_over", t), "table.hand_game_over()");
    // The score sheet already open beside the table: not "open the score sheet" but its button.
    assert.equal(emptyHandText("game_over", t, { sheetOpen: true }), "table.hand_game_over_sheet(button=sheet.rematch())");
    assert.equal(emptyHandText("game_over", t, { sheetOpen: true, wantsAgain: true }), "rematch.vote_you()");
    assert.equal(emptyHandText("dealing", t, { sheetOpen: true }), "table.hand_empty()");
    assert.equal(emptyHandText("dealing", t), "table.hand_empty()");
    assert.equal(botLabel("medium", words()), "bots.medium()");
    assert.equal(botLabel("strong", words()), "strong");
  });
});

describe("the end of the game", () => {
  test("the next round may be the last from 45 on: the highest total and who has it", () => {
    assert.equal(nextRoundWarning([10, 44, 40], words()), "");
    assert.equal(nextRoundWarning([58, 12, 58], words(2)), "sheet.next_may_be_last(count=58,names=Ana & table.you())");
  });

  test("the final sheet says who went over 66, highest first", () => {
    assert.equal(overText([66, 12, 3], words()), "");
    assert.equal(
      overText([70, 12, 81], words(0)),
      "sheet.over(names=sheet.over_item(name=Cleo,count=81) & sheet.over_item(name=table.you(),count=70))",
    );
  });
});

describe("catalogues", () => {
  test("every key these sentences use exists in de, fr and en", async () => {
    const { readFile } = await import("node:fs/promises");
    const used = new Set();
    const recording = { ...words(0), t: (key, params) => (used.add(key), t(key, params)), has: () => true };
    const other = { ...recording, me: 1 };
    const events = [
      { type: "round_dealt", round: 1 },
      { type: "cards_revealed", cards: [4, 9] },
      { type: "row_choice_required", seat: 0, card: 4 },
      { type: "row_taken", seat: 0, row: 1, bullheads: 3 },
      { type: "card_placed", seat: 1, card: 9, row: 2 },
      { type: "round_scored", round: 1 },
      { type: "game_over", winners: [0], totals: [3, 9] },
      { type: "game_over", winners: [0, 1], totals: [3, 3] },
      { type: "rematch_started" },
      { type: "player_joined", seat: 1, name: "Ben" },
      { type: "seat_left", seat: 0 },
      { type: "seat_left", seat: 0, bot: "medium" },
      { type: "handover_proposed", seat: 0, by: 1, bot: "medium" },
      { type: "handover_cancelled", seat: 0, by: 1, reason: "declined" },
      { type: "seat_handed_over", seat: 0, bot: "medium" },
      { type: "seat_reclaimed", seat: 0 },
    ];
    for (const event of events) for (const w of [recording, other]) eventSentence(event, w);
    const phases = ["waiting", "choosing_cards", "choosing_row", "dealing", "game_over"];
    for (const phase of phases) {
      const v = { phase, round: 1, turn: 0, waiting_for: [1], pending_row_choice: { seat: 0, card: 4 }, outcome: null };
      for (const w of [recording, other, { ...recording, me: null }]) {
        statusText(v, { tableSeats: [], chosen: null }, w);
        statusText(v, { tableSeats: [], chosen: 4 }, w);
        statusText(v, { tableSeats: [], chosen: 4, cardStands: true }, w);
      }
      infoText(v, recording.t);
      emptyHandText(phase, recording.t);
    }
    for (const key of ["empty", "row", "chosen", "thinking", "waiting", "ready"]) seatStateText(key, recording.t);
    nextRoundWarning([60, 2], recording);
    overText([70, 2], recording);
    recording.t("seat.near_end");
    recording.t("table.may_be_last");
    for (const lang of ["de", "fr", "en"]) {
      const url = new URL(`../../src/nimmt/web/static/i18n/${lang}.json`, import.meta.url);
      const catalogue = JSON.parse(await readFile(url, "utf8"));
      const missing = [...used].filter((key) => key.split(".").reduce((node, part) => node?.[part], catalogue) === undefined);
      assert.deepEqual(missing, [], `${lang} lacks ${missing.join(", ")}`);
    }
    assert.ok(used.size > 30, `only ${used.size} keys used`);
  });
});
