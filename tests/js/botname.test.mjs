// Bot seats named in the page's language from the table's `bot_name` (state.js nameOf).
import assert from "node:assert/strict";
import { test } from "node:test";

import { botSeatName, createState, nameOf } from "../../src/nimmt/web/static/js/kit/state.js";
import { playerNames } from "../../src/nimmt/web/static/js/replay/model.js";

/** A translator over a tiny German catalogue (unknown keys come back as the key, as i18n.js does). */
const german = {
  "bots.hard": "schwer",
  "seating.bot_name": "Roboter {number} ({level})",
};
const t = (key, params = {}) =>
  key in german ? german[key].replace(/\{(\w+)\}/g, (_, name) => String(params[name])) : key;

function tableWith(seats) {
  const s = createState("ABCDEF");
  s.table = { seats };
  s.view = { names: seats.map((seat) => seat.name) };
  return s;
}

test("a bot seat's own name is said in the page's language", () => {
  const s = tableWith([
    { seat: 0, kind: "human", name: "Ana", bot: null, bot_name: null },
    { seat: 1, kind: "bot", name: "Bot 2 (hard)", bot: "hard", bot_name: { bot: "hard", number: 2 } },
    { seat: 2, kind: "bot", name: "Bot 3 (oracle)", bot: "oracle", bot_name: { bot: "oracle", number: 3 } },
  ]);
  assert.equal(nameOf(s, 0, t), "Ana");
  assert.equal(nameOf(s, 1, t), "Roboter 2 (schwer)");
  assert.equal(nameOf(s, 2, t), "Roboter 3 (oracle)"); // a level the page does not know: as is
  assert.equal(botSeatName({ bot: "hard", number: 7 }, t), "Roboter 7 (schwer)");
});

test("a person's name a bot plays on, and a server without bot_name, keep the server's name", () => {
  const s = tableWith([
    { seat: 0, kind: "bot", name: "Ana", bot: "medium", bot_name: null },
    { seat: 1, kind: "bot", name: "Bot 2 (hard)", bot: "hard" },
  ]);
  assert.equal(nameOf(s, 0, t), "Ana");
  assert.equal(nameOf(s, 1, t), "Bot 2 (hard)");
});

test("a replay's bot seats are said as the table says them, people's names as they are", () => {
  const players = ["Ana", "Bot 2 (hard)", "Bot 3 (oracle)", "Bot 2 (hard)", "Bot 5 (hard) x"];
  assert.deepEqual(playerNames(players, t), [
    "Ana",
    "Roboter 2 (schwer)",
    "Roboter 3 (oracle)", // a level the page does not know: as is
    "Bot 2 (hard)", // not the name the server gives the bot of this seat (the fourth)
    "Bot 5 (hard) x",
  ]);
});
