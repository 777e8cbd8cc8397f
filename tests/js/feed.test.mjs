// The one socket feed under the table, the assistant and the board view
// (src/nimmt/web/static/js/feed.js), over a fake socket: messages handed on in order, an
// animation waited for, repeated events dropped, lost and refused connections reported.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { acceptEvents, applyChange, createFeed, fellBehind, refusalReason } from "../../src/nimmt/web/static/js/feed.js";

/** A socket that records what the feed asks of it; `deliver` and `status` play the server. */
function fakeSocket() {
  const fake = { connects: 0, closes: 0, versions: [], sent: [], isOpen: false, token: null, callbacks: null };
  const make = (code, token, callbacks) => {
    fake.code = code;
    fake.token = token;
    fake.callbacks = callbacks;
    return {
      connect() { fake.connects += 1; },
      close() { fake.closes += 1; },
      setVersion(version) { fake.versions.push(version); },
      send(message) {
        fake.sent.push(message);
        return fake.isOpen ? fake.sent.length : null;
      },
      reconnectAs(newToken) { fake.token = newToken; fake.connects += 1; },
      get isOpen() { return Boolean(fake.isOpen); },
      get token() { return fake.token; },
      set token(value) { fake.token = value; },
    };
  };
  fake.deliver = (message, meta) => fake.callbacks.onMessage(message, meta);
  fake.status = (status, event) => fake.callbacks.onStatus(status, event);
  return { fake, make };
}

/** A promise and the function that settles it: an animation the test ends when it likes. */
function deferred() {
  let resolve;
  const promise = new Promise((settle) => { resolve = settle; });
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A feed over a fake socket whose plays are logged in `log` (events wait for `gate` when set). */
function setup(options = {}) {
  const { fake, make } = fakeSocket();
  const log = [];
  const statuses = [];
  const errors = [];
  let gate = null;
  const feed = createFeed("ABC123", "tok", {
    play: {
      events: (message, meta) => {
        log.push(`events ${message.version}${meta.resync ? " resync" : ""}`);
        return gate ? gate.promise : undefined;
      },
      state: (message) => { log.push(`state ${message.version}`); },
    },
    onError: (message) => errors.push(message.code),
    onStatus: (status, info) => statuses.push([status, info]),
    onIdle: () => log.push("idle"),
    openSocket: make,
    ...options,
  });
  return { fake, feed, log, statuses, errors, hold: () => { gate = deferred(); return gate; } };
}

describe("the feed's order", () => {
  test("opens the table's socket with the seat's token when started", () => {
    const { fake, feed } = setup();
    assert.equal(fake.connects, 0);
    feed.start();
    assert.equal(fake.connects, 1);
    assert.deepEqual([fake.code, fake.token], ["ABC123", "tok"]);
  });

  test("a state is played at once when nothing waits", () => {
    const { fake, log } = setup();
    fake.deliver({ type: "state", version: 3 });
    assert.deepEqual(log, ["state 3", "idle"]);
    assert.deepEqual(fake.versions, [3]);
  });

  test("messages are played in order, and an animation is waited for", async () => {
    const { fake, feed, log, hold } = setup();
    const animation = hold();
    fake.deliver({ type: "events", version: 4, events: [] });
    fake.deliver({ type: "state", version: 4 });
    fake.deliver({ type: "events", version: 5, events: [] });
    fake.deliver({ type: "state", version: 5 });
    assert.deepEqual(log, ["events 4"]);
    assert.equal(feed.pending, 3);
    animation.resolve();
    await tick();
    // The second events message waits on the same (settled) animation, then the rest follow.
    assert.deepEqual(log, ["events 4", "state 4", "events 5", "state 5", "idle"]);
    assert.equal(feed.pending, 0);
  });

  test("every state's version is what the next connection asks to follow, even queued", () => {
    const { fake, hold } = setup();
    hold();
    fake.deliver({ type: "events", version: 7, events: [] });
    fake.deliver({ type: "state", version: 7 });
    fake.deliver({ type: "state", version: 8 });
    assert.deepEqual(fake.versions, [7, 8]);
  });

  test("arrive sees a message at once, before its turn in the queue", async () => {
    const seen = [];
    const { fake, log, hold } = setup({ arrive: { state: (message) => seen.push(message.version) } });
    const animation = hold();
    fake.deliver({ type: "events", version: 1, events: [] });
    fake.deliver({ type: "state", version: 1 });
    assert.deepEqual(seen, [1]);
    assert.deepEqual(log, ["events 1"]);
    animation.resolve();
    await tick();
    assert.deepEqual(log, ["events 1", "state 1", "idle"]);
  });

  test("a state holding its events is played as those events, then the state", async () => {
    const played = [];
    const { fake, log, hold } = setup({
      play: {
        events: (message) => {
          played.push(message);
          log.push(`events ${message.version}`);
          return animation.promise;
        },
        state: (message) => {
          played.push(message);
          log.push(`state ${message.version}`);
        },
      },
    });
    const animation = hold();
    const events = [{ type: "card_chosen", seat: 1 }];
    fake.deliver({ type: "state", version: 6, view: { turn: 2 }, events });
    assert.deepEqual(log, ["events 6"]);
    assert.deepEqual(played[0], { type: "events", version: 6, events });
    assert.deepEqual(fake.versions, [6]); // the state's version is followed at once
    animation.resolve();
    await tick();
    assert.deepEqual(log, ["events 6", "state 6", "idle"]);
    assert.deepEqual(played[1], { type: "state", version: 6, view: { turn: 2 } });
    // Told twice (a catch-up repeating it): the events are not played again, the state is.
    fake.deliver({ type: "state", version: 6, view: { turn: 2 }, events });
    fake.deliver({ type: "state", version: 7, events: [] });
    await tick();
    assert.deepEqual(log, ["events 6", "state 6", "idle", "state 6", "idle", "state 7", "idle"]);
  });

  test("a change is applied over the state held, part by part, and played as a state", async () => {
    const played = [];
    const { fake, log } = setup({
      play: {
        events: (message) => { played.push(message); log.push(`events ${message.version}`); },
        state: (message) => { played.push(message); log.push(`state ${message.version}`); },
      },
    });
    const table = { code: "ABC123", phase: "choosing_cards", seats: [{ seat: 0 }] };
    const view = { turn: 2, rows: [[5], [9], [20], [40]], hand: [12, 33], has_chosen: [false, false] };
    fake.deliver({ type: "change", version: 5, view: { turn: 9 } }); // no state held yet: dropped
    fake.deliver({ type: "state", version: 6, you: { seat: 0 }, table, view });
    const events = [{ type: "card_chosen", seat: 1 }];
    fake.deliver({ type: "change", version: 7, events, view: { has_chosen: [false, true] } });
    fake.deliver({ type: "change", version: 7, table: { phase: "choosing_row" } });
    await tick();
    assert.deepEqual(log, ["state 6", "idle", "events 7", "idle", "state 7", "idle", "state 7", "idle"]);
    assert.deepEqual(played[1], { type: "events", version: 7, events });
    assert.deepEqual(played[2], {
      type: "state", version: 7, you: { seat: 0 }, table, view: { ...view, has_chosen: [false, true] },
    });
    assert.deepEqual(played[3].table, { ...table, phase: "choosing_row" });
    assert.deepEqual(played[3].view, played[2].view);
    assert.deepEqual(fake.versions, [6, 7, 7]);
    assert.deepEqual(view.has_chosen, [false, false]); // the state held is never changed in place
  });

  test("applyChange keeps what did not change and brings the change's events", () => {
    const held = { type: "state", version: 3, you: { seat: null }, table: { a: 1, b: 2 }, view: { x: 1 } };
    assert.deepEqual(applyChange(held, { type: "change", version: 4, table: { b: 5 } }), {
      type: "state", version: 4, you: { seat: null }, table: { a: 1, b: 5 }, view: { x: 1 },
    });
    assert.deepEqual(applyChange(held, { type: "change", version: 4, events: [] }).events, []);
  });

  test("the catch-up of a reconnection is handed on as such", () => {
    const { fake, log } = setup();
    fake.deliver({ type: "events", version: 9, events: [] }, { resync: true });
    assert.deepEqual(log, ["events 9 resync", "idle"]);
  });

  test("a play that throws does not stop the queue", (t) => {
    t.mock.method(console, "error", () => {});
    const { fake, log } = setup({
      play: {
        events: () => { throw new Error("drawing hiccup"); },
        state: (message) => { log.push(`state ${message.version}`); },
      },
    });
    fake.deliver({ type: "events", version: 2, events: [] });
    fake.deliver({ type: "state", version: 2 });
    assert.deepEqual(log, ["idle", "state 2", "idle"]);
    assert.equal(console.error.mock.callCount(), 1);
  });

  test("types the page does not play are ignored", () => {
    const { fake, log } = setup();
    fake.deliver({ type: "coach", version: 3 });
    fake.deliver({ type: "pong" });
    assert.deepEqual(log, []);
  });

  test("nothing is handed on once the page is left", async () => {
    const { fake, feed, log, statuses, hold } = setup();
    const animation = hold();
    fake.deliver({ type: "events", version: 1, events: [] });
    fake.deliver({ type: "state", version: 1 });
    feed.destroy();
    assert.equal(fake.closes, 1);
    fake.deliver({ type: "state", version: 2 });
    fake.status("lost", { code: 1006 });
    animation.resolve();
    await tick();
    assert.deepEqual(log, ["events 1", "idle"]);
    assert.deepEqual(statuses, []);
  });
});

describe("repeated events", () => {
  test("an events message of a version already taken in, or older, is dropped", () => {
    const { fake, log } = setup();
    fake.deliver({ type: "events", version: 5, events: [] });
    fake.deliver({ type: "events", version: 5, events: [] }, { resync: true });
    fake.deliver({ type: "events", version: 4, events: [] });
    fake.deliver({ type: "events", version: 6, events: [] });
    assert.deepEqual(log, ["events 5", "idle", "events 6", "idle"]);
  });

  test("acceptEvents remembers the newest version; a message without one is taken", () => {
    const seen = {};
    assert.equal(acceptEvents(seen, { version: 2 }), true);
    assert.equal(acceptEvents(seen, { version: 2 }), false);
    assert.equal(acceptEvents(seen, {}), true);
    assert.equal(seen.lastEventsVersion, 2);
  });
});

describe("the connection reported", () => {
  test("open, then lost, then open again: a reconnection", () => {
    const { fake, statuses } = setup();
    fake.status("open");
    fake.status("lost", { code: 1006 });
    fake.status("open");
    assert.deepEqual(statuses, [["open", { again: false }], ["lost", { slow: false }], ["open", { again: true }]]);
  });

  test("a page that fell behind (4408) is an ordinary loss, said as such", () => {
    const { fake, statuses } = setup();
    fake.status("lost", { code: 4408 });
    assert.deepEqual(statuses, [["lost", { slow: true }]]);
    assert.equal(fellBehind({ code: 1006 }), false);
  });

  test("a refusal by close code names its reason", () => {
    const { fake, statuses } = setup();
    fake.status("refused", { code: 4403 });
    assert.deepEqual(statuses, [["refused", { reason: "forbidden_origin" }]]);
    assert.equal(refusalReason({ code: 4404 }), "table_not_found");
    assert.equal(refusalReason({ code: 4404, reason: "table_deleted" }), "table_deleted");
  });

  test("a refusal by error message closes the socket and is reported, not handed to onError", () => {
    const { fake, statuses, errors } = setup();
    fake.deliver({ type: "error", code: "table_not_found", message: "There is no table." });
    assert.equal(fake.closes, 1);
    assert.deepEqual(statuses, [["refused", { reason: "table_not_found" }]]);
    assert.deepEqual(errors, []);
  });

  test("a table deleted while it was played is reported as deleted", () => {
    const { fake, statuses } = setup();
    fake.deliver({ type: "error", code: "table_not_found", message: "This table was deleted.", details: { deleted: true } });
    assert.equal(fake.closes, 1);
    assert.deepEqual(statuses, [["refused", { reason: "table_deleted" }]]);
  });

  test("other errors go to onError at once, even while an animation runs", () => {
    const { fake, errors, log, hold } = setup();
    hold();
    fake.deliver({ type: "events", version: 1, events: [] });
    fake.deliver({ type: "error", code: "bad_token" });
    assert.deepEqual(errors, ["bad_token"]);
    assert.deepEqual(log, ["events 1"]);
  });

  test("after a loss the feed asks to follow the last state taken in", () => {
    const { fake, statuses } = setup();
    fake.deliver({ type: "state", version: 12 });
    fake.status("lost", { code: 1006 });
    assert.deepEqual(fake.versions, [12]);
    assert.deepEqual(statuses, [["lost", { slow: false }]]);
  });

  test("send, the token and reconnectAs go to the socket", () => {
    const { fake, feed } = setup();
    assert.equal(feed.send({ type: "play", card: 4 }), null);
    fake.isOpen = true;
    assert.equal(feed.isOpen, true);
    assert.equal(feed.send({ type: "play", card: 4 }), 2);
    feed.token = null;
    assert.equal(fake.token, null);
    feed.reconnectAs("new");
    assert.equal(feed.token, "new");
  });
});
