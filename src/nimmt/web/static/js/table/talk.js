// The talk at a table, as data (docs/protocol.md, "Table talk"): the lines said (chat and quick
// reactions), whom this browser muted, what this page may do (write, react, let spectators
// write), the unread count, the bubbles shown by the seats, and when it becomes your turn.
// No DOM here (talkview.js draws it; tests/js/talk.test.mjs checks it).

/** The quick reactions' emoji (the phrases are translated: talk.r.<key>). */
export const EMOJI = { thumbs_up: "👍", laugh: "😂", wow: "😮", grimace: "😬", bull: "🐮" };
export const MAX_LINES = 100; // lines kept on the page
export const BUBBLE_MS = 4000; // how long a reaction or a line shows by its seat
export const MUTED_KEY = "nimmt.talk.muted"; // localStorage: the speakers this browser muted
export const WATCHER_KEY = "nimmt.talk.watcher"; // localStorage: this browser's spectator secret

export function createTalk({ muted = [] } = {}) {
  return {
    lines: [], // oldest first, each { id, at, kind, seat, speaker, name, text }
    ids: new Set(),
    muted: new Set(muted),
    you: null, // this page's speaker key (from talk_history)
    reactions: [],
    maxLength: 200,
    spectatorsWrite: false,
    mayManage: false,
    joined: false, // a talk_history came on this connection
    unread: 0,
    open: false,
    bubbles: new Map(), // seat -> { id, kind, text, until }
    error: null, // { code, params } of the last refusal
  };
}

/** The muted speakers stored in this browser (a JSON object: speaker -> name), as a Map. */
export function readMuted(stored) {
  try {
    const data = JSON.parse(stored || "{}");
    if (!data || typeof data !== "object" || Array.isArray(data)) return new Map();
    const entries = Object.entries(data).filter(([key, name]) => key.length <= 32 && typeof name === "string");
    return new Map(entries.slice(-100));
  } catch {
    return new Map();
  }
}

/** What readMuted reads back: the muted speakers of `talk`, with the names known for them. */
export const writeMuted = (talk, names) =>
  JSON.stringify(Object.fromEntries([...talk.muted].map((speaker) => [speaker, names.get(speaker) || ""])));

/** A fresh secret for this browser when it watches (others can then keep it muted). */
export function newWatcherSecret(random = () => Math.random()) {
  let secret = "";
  while (secret.length < 32) secret += Math.floor(random() * 36).toString(36);
  return secret.slice(0, 32);
}

/** The `talk_hello` this page sends on each connection. */
export function helloMessage(talk, { watcher, name }) {
  return { type: "talk_hello", muted: [...talk.muted], watcher, name: name || undefined };
}

/** A `talk_history`: the recent lines (replacing what the page held) and what this page may do. */
export function applyHistory(talk, message) {
  talk.lines = [];
  talk.ids = new Set();
  for (const line of message.lines || []) addLine(talk, line, { counted: false });
  talk.you = message.you ?? null;
  talk.reactions = Array.isArray(message.reactions) ? message.reactions : [];
  talk.maxLength = Number.isInteger(message.max_length) ? message.max_length : 200;
  talk.spectatorsWrite = Boolean(message.spectators_write);
  talk.mayManage = Boolean(message.may_manage);
  if (Array.isArray(message.muted)) talk.muted = new Set(message.muted);
  talk.joined = true;
}

/**
 * Take in one line; false when it was there already, or comes from a muted speaker (the server
 * sends those to nobody who muted them; this is the page's own guard). `counted`: it adds to
 * the unread count while the panel is closed, and shows by its seat.
 */
export function addLine(talk, line, { counted = true, now = 0 } = {}) {
  if (!line || !Number.isInteger(line.id) || talk.ids.has(line.id)) return false;
  if (talk.muted.has(line.speaker)) return false;
  talk.ids.add(line.id);
  talk.lines.push(line);
  talk.lines.sort((a, b) => a.id - b.id);
  while (talk.lines.length > MAX_LINES) talk.ids.delete(talk.lines.shift().id);
  if (counted) {
    if (!talk.open && line.speaker !== talk.you) talk.unread += 1;
    if (line.seat !== null && line.seat !== undefined) {
      talk.bubbles.set(line.seat, { id: line.id, kind: line.kind, text: line.text, until: now + BUBBLE_MS });
    }
  }
  return true;
}

/** The bubbles still to show at `now`, by seat (older ones are dropped). */
export function liveBubbles(talk, now) {
  for (const [seat, bubble] of talk.bubbles) if (bubble.until <= now) talk.bubbles.delete(seat);
  return talk.bubbles;
}

/** Mute (or hear again) a speaker: their lines leave the page at once. */
export function setMuted(talk, speaker, muted) {
  if (!speaker || speaker === talk.you) return;
  if (muted) {
    talk.muted.add(speaker);
    talk.lines = talk.lines.filter((line) => line.speaker !== speaker);
    talk.ids = new Set(talk.lines.map((line) => line.id));
    for (const [seat, bubble] of talk.bubbles) {
      if (!talk.ids.has(bubble.id)) talk.bubbles.delete(seat);
    }
  } else {
    talk.muted.delete(speaker);
  }
}

/** The muted speakers with a name to show (from the lines seen, else ""). */
export function mutedNames(talk, names) {
  return [...talk.muted].map((speaker) => ({ speaker, name: names.get(speaker) || "" }));
}

/** May this page write? Seated people always; spectators when the creator allows it. */
export const mayWrite = (talk, seated) => seated || talk.spectatorsWrite;

/** The key of the decision this seat has to make now (a card or a row), or null. */
export function turnKey(view, seat) {
  if (!view || seat === null || seat === undefined) return null;
  if (view.must_choose_row) return `row:${view.round}:${view.turn}`;
  if (view.phase === "choosing_cards" && view.chosen_card === null && (view.legal_cards || []).length) {
    return `card:${view.round}:${view.turn}`;
  }
  return null;
}

/** The sentence for a refusal's `error` message (talk.errors.<code>), with what fills it in. */
export function errorParams(message) {
  const details = message.details || {};
  return { max: details.max ?? 200, limit: details.limit ?? 5, seconds: details.seconds ?? 10, retry: details.retry_after ?? 10 };
}

/** The error codes the talk answers (they go to the talk panel, not the table's toast). */
export const TALK_ERRORS = ["talk_too_long", "talk_too_fast", "talk_empty", "talk_not_allowed", "not_creator", "unknown_reaction", "talk_mute_limit"];
