// The table's sentences, built from plain data. No DOM and no catalogue of their own: every
// function takes `words`, an object with
//   t(key, params)      the translator (i18n.js `t`),
//   formatList(items)   names joined the way the language joins a list (i18n.js),
//   has(key)            whether the catalogue knows a key (i18n.js),
//   nameOf(seat)        a seat's name,
//   me                  this page's seat (null: watching),
// so a replay or a board view can use them with its own names, and tests with a stub.

import { lowestFirst, mayBeLastRound, seatsOver } from "./state.js";

/** A bot level's name in the page's language ("medium" -> "Medium"), else the level itself. */
export const botLabel = (name, words) =>
  name && words.has(`bots.${name}`) ? words.t(`bots.${name}`) : String(name);

/** Who won with how many points ("You win with 12 bullheads", "Ana and Ben win with ..."). */
export function winnersText(winners, totals, words) {
  const { t, formatList, nameOf, me } = words;
  const total = totals[winners[0]];
  const names = formatList(winners.map((seat) => (seat === me ? t("table.you") : nameOf(seat))));
  if (winners.length === 1 && winners[0] === me) return t("table.winner_you", { count: total });
  if (winners.length === 1) return t("table.winner_one", { name: names, count: total });
  return t("table.winners_many", { names, count: total });
}

/** The sentence for a `rematch_vote` event (a notice everybody sees). */
export function rematchVoteSentence(event, words) {
  const { t, nameOf, me } = words;
  const mine = event.seat === me;
  const name = nameOf(event.seat);
  let key;
  if (event.agree) key = mine ? "rematch.vote_you" : "rematch.vote";
  else key = mine ? "rematch.withdrawn_you" : "rematch.withdrawn";
  return { text: t(key, { name }), notice: true };
}

/**
 * The sentence for one game event (docs/protocol.md), or null for an event that says nothing.
 * Returns `{ text, notice }`: a notice (someone joined or left) is also shown on screen for a
 * while, the rest only goes to the screen reader.
 */
export function eventSentence(event, words) {
  const { t, formatList, nameOf, me } = words;
  const said = (text) => ({ text, notice: false });
  switch (event.type) {
    case "round_dealt":
      return said(t("events.round_dealt", { round: event.round }));
    case "cards_revealed": {
      const items = lowestFirst(event.cards).map(({ card, seat }) =>
        t("events.revealed_item", { name: nameOf(seat), card }),
      );
      return said(t("events.cards_revealed", { cards: formatList(items) }));
    }
    case "row_choice_required":
      return said(
        event.seat === me
          ? t("table.prompt_choose_row", { card: event.card })
          : t("events.row_choice_required", { name: nameOf(event.seat), card: event.card }),
      );
    case "row_taken":
      return said(
        t(event.seat === me ? "events.row_taken_you" : "events.row_taken", {
          name: nameOf(event.seat),
          row: event.row + 1,
          count: event.bullheads,
        }),
      );
    case "card_placed":
      return said(t("events.card_placed", { name: nameOf(event.seat), card: event.card, row: event.row + 1 }));
    case "round_scored":
      return said(t("events.round_scored", { round: event.round }));
    case "game_over":
      return said(winnersText(event.winners, event.totals, words));
    case "rematch_started":
      return said(t("events.rematch_started"));
    case "rematch_vote":
      return rematchVoteSentence(event, words);
    case "player_joined":
      return { text: t("events.player_joined", { name: event.name || nameOf(event.seat) }), notice: true };
    case "seat_left": {
      const name = event.name || nameOf(event.seat);
      const mine = event.seat === me;
      let text;
      if (event.bot) {
        const bot = botLabel(event.bot, words);
        text = mine ? t("events.you_left_bot", { bot }) : t("events.seat_left_bot", { name, bot });
      } else {
        text = mine ? t("events.you_left") : t("events.seat_left", { name });
      }
      return { text, notice: true };
    }
    // An absent player (docs/protocol.md): the table's agreement, told to everyone.
    case "handover_proposed":
      return { text: t("events.handover_proposed", { by: nameOf(event.by), name: nameOf(event.seat), bot: botLabel(event.bot, words) }), notice: true };
    case "handover_cancelled":
      return { text: t("events.handover_cancelled", { name: nameOf(event.seat) }), notice: true };
    case "seat_handed_over":
      return { text: t("events.seat_handed_over", { name: nameOf(event.seat), bot: botLabel(event.bot, words) }), notice: true };
    case "seat_reclaimed":
      if (event.seat === me) return { text: t("events.you_reclaimed"), notice: true };
      return { text: t("events.seat_reclaimed", { name: nameOf(event.seat) }), notice: true };
    default:
      return null;
  }
}

/** The line above the rows: what happens now and who is awaited. */
export function statusText(view, { tableSeats = null, chosen = null, cardStands = false } = {}, words) {
  const { t, formatList, nameOf, me } = words;
  const seated = me !== null && me !== undefined;
  const waitingNames = formatList((view.waiting_for || []).filter((seat) => seat !== me).map(nameOf));
  switch (view.phase) {
    case "waiting": {
      const seats = tableSeats ? tableSeats.filter((seat) => seat.kind === "human") : [];
      const taken = seats.filter((seat) => seat.occupied).length;
      return t("table.prompt_waiting_players", { count: taken, total: seats.length });
    }
    case "choosing_cards": {
      if (!seated) return waitingNames ? t("table.prompt_others_choosing", { names: waitingNames }) : t("table.prompt_revealing");
      if (chosen === null || chosen === undefined) return t("table.prompt_choose_card");
      // Back at the seat after a bot played it: its card of this turn stands, it cannot change.
      if (cardStands) return waitingNames ? t("table.prompt_card_stands", { card: chosen, names: waitingNames }) : t("table.prompt_revealing");
      return waitingNames
        ? t("table.prompt_chosen_wait", { card: chosen, names: waitingNames })
        : t("table.prompt_revealing");
    }
    case "choosing_row": {
      const pending = view.pending_row_choice;
      if (pending && pending.seat === me) return t("table.prompt_choose_row", { card: pending.card });
      if (pending) return t("table.prompt_waits_for_row", { name: nameOf(pending.seat), card: pending.card });
      return "";
    }
    case "dealing":
      return t("table.prompt_dealing");
    case "game_over":
      return view.outcome
        ? winnersText(view.outcome.winners, view.outcome.totals, words)
        : t("table.info_game_over", { round: view.round });
    default:
      return "";
  }
}

/**
 * The status line while an action waits in the outbox (actions.js: the connection is lost, so
 * it was not sent): what waits, and that it goes once the connection is back.
 */
export function unsentText(outbox, t) {
  if (outbox.type === "play") return t("table.unsent_card", { card: outbox.card });
  if (outbox.type === "choose_row") return t("table.unsent_row", { row: outbox.row + 1 });
  return t("table.unsent");
}

/** The toolbar's round and turn ("Round 2, turn 5"). */
export function infoText(view, t) {
  if (view.phase === "waiting") return t("table.info_waiting");
  if (view.phase === "game_over") return t("table.info_game_over", { round: view.round });
  return t("table.info_round", { round: view.round, turn: Math.min(view.turn + 1, 10) });
}

/** What a seat is doing, in words (see state.js seatStateKey); "" when idle. */
export const seatStateText = (key, t) => (key === "idle" ? "" : t(`seat.state_${key}`));

/**
 * What stands where the hand would be when it is empty. At game over: the person's own wish to
 * play again once they said it (`wantsAgain`), else where to say it, the score sheet being open
 * beside the table already (`sheetOpen`) or not.
 */
export function emptyHandText(phase, t, { sheetOpen = false, wantsAgain = false } = {}) {
  if (phase === "waiting") return t("table.hand_waiting");
  if (phase === "game_over") {
    if (wantsAgain) return t("rematch.vote_you");
    return sheetOpen ? t("table.hand_game_over_sheet", { button: t("sheet.rematch") }) : t("table.hand_game_over");
  }
  return t("table.hand_empty");
}

/**
 * The warning that the next round may be the last (`totals` after the round just scored), with
 * the highest total and who has it; "" when nobody is near the end.
 */
export function nextRoundWarning(totals, words) {
  if (!mayBeLastRound(totals)) return "";
  const { t, formatList, nameOf, me } = words;
  const highest = Math.max(...totals);
  const names = totals
    .map((total, seat) => (total === highest ? (seat === me ? t("table.you") : nameOf(seat)) : null))
    .filter((name) => name !== null);
  return t("sheet.next_may_be_last", { count: highest, names: formatList(names) });
}

/** Who went over 66 at the end, with their totals ("Over 66: Ben (71) and Ana (68)."); "" if nobody. */
export function overText(totals, words) {
  const over = seatsOver(totals);
  if (!over.length) return "";
  const { t, formatList, nameOf, me } = words;
  const items = over.map(({ seat, total }) =>
    t("sheet.over_item", { name: seat === me ? t("table.you") : nameOf(seat), count: total }));
  return t("sheet.over", { names: formatList(items) });
}
