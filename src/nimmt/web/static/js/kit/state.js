// The table page's model and the values derived from it. No DOM, no socket, no translations
// beyond the `t` handed in: everything here runs under `node --test` as well as in the page.
//
// The model `s` holds what the server last said (`version`, `you`, `table`, `view`, see
// docs/protocol.md) and what this page remembers between drawings (the card sent and not yet
// confirmed, the action waiting for the connection, the open score sheet, the speed, ...).

export const SPEEDS = [1, 2, 4];
export const GAME_END = 66; // a round that ends with a total above this ends the game
// From this total on a player is close to 66 and the round may be the last: 22 short of passing
// 66, which one bad round often brings (the terminal's notice uses the same figure).
export const NEAR_END = 45;
export const RESYNC_ANIMATE_MAX = 12; // more missed events than this are summed up, not animated

/** The speed a stored value asks for (1, 2 or 4; anything else: 1). */
export const speedFrom = (stored) => (SPEEDS.includes(Number(stored)) ? Number(stored) : 1);

/** A fresh model for the table `code`; `token` is the stored seat token (null: watch). */
export function createState(code, { token = null, joinName = "", speed = 1 } = {}) {
  return {
    code,
    token,
    version: null,
    you: null,
    table: null,
    view: null,
    fatal: null, // an error code that ends this page (table_not_found, forbidden_origin)
    pendingCard: null, // the card sent and not yet confirmed by a state
    pendingTurn: null, // the turn it was sent in (turnKey): a later turn forgets it
    outbox: null, // an action made while the connection was lost
    sheetOpen: false,
    joinName,
    joinError: null,
    joining: false,
    speed,
    handFocus: null,
    queuedCard: null, // a card tapped while the last turn was still shown: played once it is over
    skipping: false, // the animation hurries to its end (a card was tapped during it)
    typed: "",
    typedTimer: null,
    lastMustChoose: false,
    lastSheetShown: false, // the score sheet was drawn last time (focus goes to it when it opens)
    sheetOpenedAt: 0, // when the score sheet opened (performance.now()): its entrance runs once
    animating: false,
    bots: null, // the bot levels (GET /api/bots), loaded when the leave dialog first opens
    leaving: false, // a `leave` was sent and its `seat_left` has not come yet
    leaveRequest: null,
  };
}

// ------------------------------------------------------------------ seats and names

export const mySeat = (s) => (s.you ? s.you.seat : null);
export const isSeated = (s) => mySeat(s) !== null && mySeat(s) !== undefined;

/** How many seats the table has (from the view once there is one). */
export const playerCount = (s) =>
  s.view && s.view.names ? s.view.names.length : s.table ? s.table.seats.length : 0;

/**
 * A seat's name: a bot seat's own name in the page's language ("Bot 2 (schwer)", from the
 * table's `bot_name`), else from the view, else from the table's seats, else "Seat N" through `t`.
 */
export function nameOf(s, seat, t) {
  const botName = s.table && s.table.seats[seat] && s.table.seats[seat].bot_name;
  if (botName) return botSeatName(botName, t);
  const names = s.view && s.view.names;
  const fromView = names && names[seat];
  if (fromView) return fromView;
  const info = s.table && s.table.seats[seat];
  if (info && info.name) return info.name;
  return t("seat.empty_name", { number: seat + 1 });
}

/**
 * A seat's name where room is short (the revealed cards, the last-turn strip, a narrow seat): a
 * bot's "Bot 2" without its level, distinct from every other seat's; anyone else's whole name.
 */
export function shortNameOf(s, seat, t) {
  const botName = s.table && s.table.seats[seat] && s.table.seats[seat].bot_name;
  return botName ? t("seating.bot_short", { number: botName.number }) : nameOf(s, seat, t);
}

/** A bot seat's name from its parts `{ bot, number }` (the level translated when known). */
export function botSeatName({ bot, number }, t) {
  const key = `bots.${bot}`;
  const level = t(key);
  return t("seating.bot_name", { number, level: level === key ? bot : level });
}

/**
 * What a seat is doing, as a key: "empty" (a free human seat), "row" (must choose a row),
 * "chosen", "thinking", "waiting" (someone else chooses a row), "ready" (before the deal),
 * "idle". `tableSeats` is the table's seat list (may be null).
 */
export function seatStateKey(view, tableSeats, seat) {
  const info = tableSeats ? tableSeats[seat] : null;
  if (info && info.kind === "human" && !info.occupied) return "empty";
  if (view.pending_row_choice && view.pending_row_choice.seat === seat) return "row";
  if (view.phase === "choosing_cards") return view.has_chosen[seat] ? "chosen" : "thinking";
  if (view.phase === "choosing_row") return "waiting";
  if (view.phase === "waiting") return "ready";
  return "idle";
}

/** A seat's points: this round's (its pile) and the total including them (not after the game). */
export function seatScore(view, seat) {
  const round = view.penalties[seat] || 0;
  const total = (view.totals[seat] || 0) + (view.phase === "game_over" ? 0 : round);
  return { round, total };
}

/** Is this total close to the end of the game (45 to 66)? Above 66 it is past the end, not close. */
export const nearEnd = (total) => total >= NEAR_END && total <= GAME_END;

/** May the round played with these totals (those before it) be the last? Someone is near the end. */
export const mayBeLastRound = (totals) => totals.some(nearEnd);

/** The seats whose total went over 66 (the game's end), highest first. */
export const seatsOver = (totals) =>
  totals
    .map((total, seat) => ({ seat, total }))
    .filter(({ total }) => total > GAME_END)
    .sort((a, b) => b.total - a.total || a.seat - b.seat);

/**
 * A seat's state once every card of the turn is revealed: all have chosen, so nobody is still
 * "thinking" (the state that says so only comes after the turn is shown).
 */
export const stateKeyAtReveal = (key) => (key === "thinking" ? "chosen" : key);

/**
 * Each seat as the seats section draws it (render.js renderSeats): `{ seat, name, bot,
 * stateKey, offline, round, total, nearEnd, isMe, winner, card, back }`. `nameOfSeat(seat)`
 * names them.
 */
export function seatSummaries(s, nameOfSeat) {
  const view = s.view;
  const tableSeats = s.table ? s.table.seats : null;
  const winners = view.phase === "game_over" && view.outcome ? view.outcome.winners : [];
  const me = mySeat(s);
  return Array.from({ length: playerCount(s) }, (_, seat) => {
    const info = tableSeats ? tableSeats[seat] : null;
    const stateKey = seatStateKey(view, tableSeats, seat);
    const { round, total } = seatScore(view, seat);
    return {
      seat,
      name: nameOfSeat(seat),
      bot: Boolean(info && info.kind === "bot"),
      stateKey,
      offline: Boolean(info && info.kind === "human" && info.occupied && !info.connected),
      round,
      total,
      nearEnd: nearEnd(total),
      isMe: seat === me,
      winner: winners.includes(seat),
      card: view.revealed ? view.revealed[seat] : null,
      back: !view.revealed && stateKey === "chosen",
    };
  });
}

/** Cards with their seats, lowest first (the order they go to the rows). */
export const lowestFirst = (cards) =>
  cards.map((card, seat) => ({ card, seat })).sort((a, b) => a.card - b.card);

// ------------------------------------------------------------------ applying messages

/** The card this page shows as chosen: the one just sent, else the server's. */
export const chosenCard = (s) => s.pendingCard ?? (s.view ? s.view.chosen_card : null);

/** Which turn of which game `view` shows: a card sent in one turn means nothing in the next. */
export const turnKey = (s) => (s.view ? `${s.table ? s.table.game : ""}/${s.view.round}/${s.view.turn}` : null);

/** The card just sent: shown as chosen until a state confirms it or the turn moves on. */
export function sendPendingCard(s, card) {
  s.pendingCard = card;
  s.pendingTurn = turnKey(s);
}

/** Forget the seat in the model (the caller forgets the stored token and the socket's). */
export function clearSeat(s) {
  s.token = null;
  s.leaving = false;
  s.leaveRequest = null;
  s.pendingCard = null;
  s.queuedCard = null;
  s.outbox = null;
}

/**
 * Take in a `state` message. Returns `{ seatLost }`: true when a `leave` was under way and
 * this state shows no seat (its seat_left event was missed): the caller forgets the token.
 */
export function applyStateMessage(s, message) {
  const before = s.view;
  s.version = message.version;
  s.you = message.you || { seat: null };
  // Left, and the seat_left event was not seen (say, lost with the connection): the seat is
  // gone all the same.
  const seatLost = s.leaving && !isSeated(s);
  if (seatLost) clearSeat(s);
  s.table = message.table || s.table;
  s.view = message.view || null;
  if (s.pendingCard !== null && s.view) {
    // Confirmed, gone from the hand, or the turn moved on: the last card of a round resolves
    // and the next round is dealt in one change, which may deal the same number again.
    const settled = s.view.chosen_card === s.pendingCard || !s.view.hand.includes(s.pendingCard);
    if (settled || turnKey(s) !== s.pendingTurn) s.pendingCard = null;
  }
  // The game ended, or the page opens on a finished game: the final sheet (winners, record, and
  // the agreement to play again) shows itself.
  if ((!before || before.phase !== "game_over") && s.view && s.view.phase === "game_over") s.sheetOpen = true;
  if (s.view && s.view.phase === "waiting") s.sheetOpen = false;
  return { seatLost };
}

/** Is an action kept while offline (`waiting`) still worth sending for this view? */
export function outboxStillValid(view, waiting) {
  if (waiting.type === "play" && view.legal_cards.includes(waiting.card)) return true;
  if (waiting.type === "choose_row" && view.must_choose_row) return true;
  if (waiting.type === "play" && view.chosen_card !== waiting.card && view.phase === "choosing_cards") {
    return view.hand.includes(waiting.card);
  }
  return false;
}

/** A catch-up of more than about one turn is summed up, not replayed. */
export const shouldSummarize = (events, resync) =>
  resync &&
  (events.length > RESYNC_ANIMATE_MAX || events.filter((event) => event.type === "cards_revealed").length > 1);

/** The hand card to move to for a key ("ArrowLeft", "Home", ...), or null. Digits: see typedCard. */
export function handMove(hand, focus, key) {
  if (!hand.length) return null;
  const index = Math.max(0, hand.indexOf(focus));
  if (key === "ArrowRight" || key === "ArrowDown") return hand[Math.min(hand.length - 1, index + 1)];
  if (key === "ArrowLeft" || key === "ArrowUp") return hand[Math.max(0, index - 1)];
  if (key === "Home") return hand[0];
  if (key === "End") return hand[hand.length - 1];
  return null;
}

/** The hand card for typed digits ("4", "42"): that number, else the first starting with them. */
export function typedCard(hand, typed) {
  const wanted = Number(typed);
  return hand.find((card) => card === wanted) ?? hand.find((card) => String(card).startsWith(typed)) ?? null;
}

/** The row an arrow key moves to from row `index` (wrapping around the four), or null. */
export function rowMove(index, key) {
  const moves = { ArrowUp: -1, ArrowLeft: -1, ArrowDown: 1, ArrowRight: 1 };
  return key in moves ? (index + moves[key] + 4) % 4 : null;
}
