// The talk at a table as data (src/nimmt/web/static/js/table/talk.js): lines taken in once and
// in order, muted speakers left out, the unread count and the seat bubbles, and "your turn".
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BUBBLE_MS, MAX_LINES, addLine, applyHistory, createTalk, helloMessage, liveBubbles, mayWrite, newWatcherSecret,
  readMuted, setMuted, turnKey, writeMuted,
} from "../../src/nimmt/web/static/js/table/talk.js";

const line = (id, speaker = "pA", seat = 0, text = `line ${id}`, kind = "say") =>
  ({ id, at: "2026-12-01T20:00:00Z", kind, seat, speaker, name: "Ana", text });

test("a history replaces the lines; a line comes once, in the order stored", () => {
  const talk = createTalk();
  applyHistory(talk, { lines: [line(2), line(1)], you: "pB", reactions: ["oops"], max_length: 200, spectators_write: true, may_manage: false });
  assert.deepEqual(talk.lines.map((l) => l.id), [1, 2]);
  assert.equal(talk.unread, 0); // the history is not news
  assert.equal(addLine(talk, line(2)), false);
  assert.equal(addLine(talk, line(4), { now: 10 }), true);
  assert.equal(addLine(talk, line(3), { now: 10 }), true);
  assert.deepEqual(talk.lines.map((l) => l.id), [1, 2, 3, 4]);
  assert.equal(talk.unread, 2);
  assert.equal(talk.spectatorsWrite, true);
  for (let id = 5; id < 5 + MAX_LINES; id += 1) addLine(talk, line(id));
  assert.equal(talk.lines.length, MAX_LINES);
});

test("your own lines are not unread; an open panel counts nothing", () => {
  const talk = createTalk();
  talk.you = "pA";
  addLine(talk, line(1, "pA"));
  talk.open = true;
  addLine(talk, line(2, "pB", 1));
  assert.equal(talk.unread, 0);
});

test("a reaction or a line shows by its seat for a while; a spectator's nowhere", () => {
  const talk = createTalk();
  addLine(talk, line(1, "pB", 1, "well_played", "react"), { now: 1000 });
  addLine(talk, line(2, "w1", null, "hi"), { now: 1000 });
  assert.deepEqual([...liveBubbles(talk, 1000 + BUBBLE_MS - 1).keys()], [1]);
  assert.equal(liveBubbles(talk, 1000 + BUBBLE_MS).size, 0);
});

test("a muted speaker's lines leave the page and do not come back", () => {
  const talk = createTalk();
  talk.you = "pB";
  addLine(talk, line(1, "pA"), { now: 0 });
  addLine(talk, line(2, "pC", 2), { now: 0 });
  setMuted(talk, "pA", true);
  assert.deepEqual(talk.lines.map((l) => l.id), [2]);
  assert.equal(talk.bubbles.has(0), false);
  assert.equal(addLine(talk, line(3, "pA")), false);
  setMuted(talk, "pB", true); // not oneself
  assert.equal(talk.muted.has("pB"), false);
  const names = new Map([["pA", "Ana"]]);
  assert.deepEqual([...readMuted(writeMuted(talk, names))], [["pA", "Ana"]]);
  assert.deepEqual(helloMessage(talk, { watcher: "s", name: "Zoé" }).muted, ["pA"]);
  setMuted(talk, "pA", false);
  assert.equal(addLine(talk, line(3, "pA")), true);
});

test("what is stored is read back safely", () => {
  assert.equal(readMuted("not json").size, 0);
  assert.equal(readMuted("[1, 2]").size, 0);
  assert.equal(readMuted(null).size, 0);
  assert.deepEqual([...readMuted('{"w1": "Zoé", "p2": 3}')], [["w1", "Zoé"]]);
  assert.match(newWatcherSecret(() => 0.5), /^[0-9a-z]{32}$/);
});

test("spectators write only when allowed", () => {
  const talk = createTalk();
  assert.equal(mayWrite(talk, true), true);
  assert.equal(mayWrite(talk, false), false);
  talk.spectatorsWrite = true;
  assert.equal(mayWrite(talk, false), true);
});

test("your turn: a card to choose or a row to take, once per decision", () => {
  const choosing = { phase: "choosing_cards", round: 1, turn: 3, chosen_card: null, legal_cards: [4, 9], must_choose_row: false };
  assert.equal(turnKey(choosing, 0), "card:1:3");
  assert.equal(turnKey(choosing, null), null);
  assert.equal(turnKey({ ...choosing, chosen_card: 4 }), null);
  assert.equal(turnKey({ ...choosing, chosen_card: 4 }, 0), null);
  assert.equal(turnKey({ ...choosing, phase: "choosing_row", must_choose_row: true, chosen_card: 4 }, 0), "row:1:3");
  assert.equal(turnKey({ ...choosing, phase: "game_over", legal_cards: [] }, 0), null);
});

test("the talk's words exist in every language, French spaced with narrow no-break spaces", async () => {
  const { readFile } = await import("node:fs/promises");
  const keys = (node, prefix = "") => Object.entries(node).flatMap(([key, value]) =>
    value && typeof value === "object" && !("one" in value) ? keys(value, `${prefix}${key}.`) : [`${prefix}${key}`]);
  const catalogues = {};
  for (const lang of ["de", "fr", "en"]) {
    const url = new URL(`../../src/nimmt/web/static/i18n/${lang}.json`, import.meta.url);
    catalogues[lang] = JSON.parse(await readFile(url, "utf8")).talk;
  }
  const english = keys(catalogues.en).sort();
  assert.ok(english.includes("r.well_played") && english.includes("errors.talk_too_fast"));
  assert.deepEqual(keys(catalogues.de).sort(), english);
  assert.deepEqual(keys(catalogues.fr).sort(), english);
  const texts = (node) => Object.values(node).flatMap((value) => (typeof value === "object" ? texts(value) : [value]));
  for (const text of texts(catalogues.fr)) {
    assert.doesNotMatch(text, /[^\u202f][:;!?]/u, `no narrow no-break space in ${JSON.stringify(text)}`);
  }
});
