// The profile and group pages' words with the real catalogues (src/nimmt/web/static/i18n/):
// plural forms, "a former player" translated, decimals in the page's language, the evening's
// winners marked as guests or bots, and the rating plot's scales.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { before, describe, test } from "node:test";

import { setLanguage, t } from "../../src/nimmt/web/static/js/i18n.js";
import { eveningText, formatDay, formatDecimal, formatWhen, personName } from "../../src/nimmt/web/static/js/profile/people.js";
import { figuresText, gameFiguresText, perRoundSeries, resultText } from "../../src/nimmt/web/static/js/profile/history.js";
import { ratingLines, tickGames } from "../../src/nimmt/web/static/js/group/rating.js";

const I18N = new URL("../../src/nimmt/web/static/i18n/", import.meta.url);

before(() => {
  globalThis.document = { documentElement: {} };
  globalThis.fetch = async (url) => {
    const name = String(url).split("/").pop();
    const text = await readFile(new URL(name, I18N), "utf8");
    return { ok: true, json: async () => JSON.parse(text) };
  };
});

const totals = (over) => ({ games: 1, wins: 1, bullheads_per_round: 1, clean_rounds: 1, rows_taken: 1, ...over });

describe("plural forms", () => {
  test("one and many in each language", async () => {
    await setLanguage("en");
    assert.equal(figuresText(totals()), "1 game · 1 won · 1.00 bullhead per round · 1 round without a bullhead · 1 row taken");
    assert.match(figuresText(totals({ games: 3, clean_rounds: 2, rows_taken: 45, bullheads_per_round: 15.36 })),
      /^3 games · 1 won · 15\.36 bullheads per round · 2 rounds without a bullhead · 45 rows taken$/);
    await setLanguage("de");
    assert.equal(figuresText(totals({ games: 3, wins: 0, bullheads_per_round: 10.79 })),
      "3 Partien · 0 gewonnen · 10,79 Hornochsen pro Runde · 1 Runde ohne Hornochsen · 1 Reihe genommen");
    await setLanguage("fr");
    // French says "0 partie" and "1,5 tête" (the one form runs below 2).
    assert.equal(figuresText(totals({ games: 0, wins: 2, bullheads_per_round: 1.5, clean_rounds: 4 })),
      "0 partie · 2 gagnées · 1,50 tête de bœuf par manche · 4 manches sans tête de bœuf · 1 rangée ramassée");
  });

  test("the device link's minutes", async () => {
    await setLanguage("de");
    assert.match(t("profile.link_valid", { count: 1, minutes: 1 }), /1 Minute lang\.$/);
    assert.match(t("profile.link_valid", { count: 5, minutes: 5 }), /5 Minuten lang\.$/);
  });

  test("no games yet: a dash, not a number", async () => {
    await setLanguage("en");
    assert.match(figuresText(totals({ games: 0, bullheads_per_round: null })), /– bullheads per round/);
  });
});

describe("names and numbers", () => {
  test("a deleted profile's stored name is said in the page's language", async () => {
    await setLanguage("de");
    assert.equal(personName({ name: "a former player", profile: null }), "ein ehemaliger Mitspieler");
    await setLanguage("fr");
    assert.equal(personName({ name: "a former player", profile: null }), "un ancien joueur");
    assert.equal(personName({ name: "Ana", profile: "p1" }), "Ana");
  });

  test("a bot seat's own name is said in the page's language", async () => {
    await setLanguage("de");
    assert.equal(personName({ name: "Bot 3 (greedy)", kind: "bot", profile: null, bot_name: { bot: "greedy", number: 3 } }), "Bot 3 (gierig)");
    assert.equal(personName({ name: "Bot 2 (mc:64)", kind: "bot", profile: null, bot_name: { bot: "mc:64", number: 2 } }), "Bot 2 (mc:64)");
    assert.equal(personName({ name: "Dee", kind: "bot", profile: null, bot_name: null }), "Dee");
  });

  test("decimals take the language's separator", () => {
    assert.equal(formatDecimal(10.79, 2, "de"), "10,79");
    assert.equal(formatDecimal(3.25, 1, "fr"), "3,3");
    assert.equal(formatDecimal(10.79, 2, "en"), "10.79");
    assert.equal(formatDecimal(null), "–");
  });
});

describe("the evening's line", () => {
  const evening = {
    date: "2026-12-01",
    games: 3,
    players: [
      { name: "Bot 3 (greedy)", profile: null, kind: "bot", bot_name: { bot: "greedy", number: 3 }, wins: 1 },
      { name: "Cy", profile: null, kind: "human", wins: 2 },
      { name: "Ben", profile: "b", kind: "human", wins: 1 },
      { name: "Ana", profile: "a", kind: "human", wins: 0 },
    ],
  };

  test("members first, then a guest and a bot said to be one; nobody without a win", async () => {
    await setLanguage("en");
    assert.equal(eveningText(evening),
      "3 games; won by Ben (1 win), the guest Cy (2 wins), and Bot 3 (greedy, 1 win)");
    await setLanguage("de");
    assert.equal(eveningText(evening),
      "3 Partien; gewonnen von Ben (1 Sieg), dem Gast Cy (2 Siege) und Bot 3 (gierig, 1 Sieg)");
    await setLanguage("fr");
    assert.match(eveningText(evening), /^3 parties\u202f; gagnants\u202f: Ben \(1 victoire\), l’invité Cy \(2 victoires\) et Bot 3 \(glouton, 1 victoire\)$/);
  });

  test("a bot playing on under a person's name is said to be a bot", async () => {
    await setLanguage("en");
    const left = { games: 1, players: [{ name: "Dee", profile: null, kind: "bot", bot_name: null, wins: 1 }] };
    assert.equal(eveningText(left), "1 game; won by the bot Dee (1 win)");
  });

  test("one game, no winner listed: just the count", async () => {
    await setLanguage("en");
    assert.equal(eveningText({ games: 1, players: [{ name: "Ana", profile: "a", wins: 0 }] }), "1 game");
  });
});

describe("the rating plot", () => {
  const point = (game, rating) => ({ table: "ABCDEF", game, finished_at: `2026-12-01T20:0${game}:00`, rating });
  const box = { width: 110, height: 60, left: 10, right: 0, top: 0, bottom: 10 };

  test("x is the game's place in the group, y the rating, the best highest", () => {
    const { lines, games, low, high } = ratingLines([
      { name: "Ana", profile: "a", colour: "#1f5a45", rating_over_time: [point(1, 0), point(2, 4), point(3, 2)] },
      { name: "Ben", profile: "b", colour: "#2e6fb7", rating_over_time: [point(2, -2), point(3, -4)] },
      { name: "Cy", profile: "c", colour: "#8c3fa8", rating_over_time: [] },
    ], box);
    assert.equal(games.length, 3);
    assert.deepEqual([low, high], [-4, 4]);
    assert.deepEqual(lines.map((line) => line.name), ["Ana", "Ben"]);
    assert.deepEqual(lines[0].points, [[10, 25], [60, 0], [110, 12.5]]);
    assert.deepEqual(lines[1].points, [[60, 37.5], [110, 50]]); // Ben joined at the second game
  });

  test("no games, no lines; ticks thin out on a long history", () => {
    assert.deepEqual(ratingLines([{ name: "Ana", colour: "#000", rating_over_time: [] }]).lines, []);
    assert.deepEqual(tickGames(3), [0, 1, 2]);
    const many = tickGames(40);
    assert.equal(many[0], 0);
    assert.equal(many.at(-1), 39);
    assert.ok(many.length <= 8, String(many));
  });
});

describe("times", () => {
  test("a game's moment to the minute, in the page's language and the reader's time zone", () => {
    const when = "2026-12-02T20:15:42Z";
    assert.match(formatWhen(when, "de"), /^\d{2}\.\d{2}\.2026, \d{2}:\d{2}$/);
    assert.doesNotMatch(formatWhen(when, "en"), /:42/); // no seconds
    assert.match(formatDay(when, "fr"), /^\d{1,2} déc\. 2026$/);
  });
});

describe("a person's games, one by one", () => {
  const game = (over) => ({
    table: "ABCDEF", game: 1, finished_at: "2026-12-02T20:15:00Z", total: 24, winner: false, place: 3,
    players: [{}, {}, {}, {}], bullheads_per_round: 8, clean_rounds: 1, rows_taken: 4, decision_loss: null, ...over,
  });

  test("the result with its place among the players and the bullheads' plural", async () => {
    await setLanguage("en");
    assert.equal(resultText(game()), "place 3 of 4 with 24 bullheads");
    assert.equal(resultText(game({ winner: true, place: 1, total: 1 })), "won with 1 bullhead");
    await setLanguage("de");
    assert.equal(resultText(game()), "Platz 3 von 4 mit 24 Hornochsen");
    await setLanguage("fr");
    assert.equal(resultText(game({ place: 2 })), "2e sur 4 avec 24 têtes de bœuf");
  });

  test("each game's own figures, the coach's review when there is one", async () => {
    await setLanguage("en");
    assert.equal(gameFiguresText(game()), "8.00 bullheads per round · 1 round without a bullhead · 4 rows taken");
    assert.match(gameFiguresText(game({ decision_loss: 3.4 })), / · the coach's estimate: 3\.4 bullheads lost to your own decisions$/);
  });

  test("the plot's line: bullheads per round, oldest game first", async () => {
    await setLanguage("en");
    const [line] = perRoundSeries([game({ game: 3, bullheads_per_round: 5 }), game({ game: 2, bullheads_per_round: null }), game({ game: 1 })], "#123456");
    assert.equal(line.colour, "#123456");
    assert.deepEqual(line.rating_over_time.map((point) => [point.game, point.rating]), [[1, 8], [3, 5]]);
  });
});
