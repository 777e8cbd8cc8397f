// "Brief announcements" for screen readers: one 4-player round says 57 sentences in full (each
// card revealed and placed); brief says only what a player acts on: their turn to choose a card,
// their row to choose, every row taken, the round's score and the end, and who joins or leaves.
// The choice is kept in localStorage (`nimmt.announce`: "brief", or nothing for full).

import { h } from "../dom.js";
import { safeGet, safeSet, t } from "../i18n.js";

export const BRIEF_KEY = "nimmt.announce";

/** The events still said in brief: what changes a score or a seat. */
const KEPT = new Set(["row_taken", "game_over", "rematch_started", "rematch_vote", "player_joined", "seat_left"]);

/** Is `event` said in brief mode, for the page whose seat is `me`? */
export function keptInBrief(event, me) {
  if (event.type === "row_choice_required") return event.seat === me;
  return KEPT.has(event.type) || event.type === "round_scored";
}

/** The brief sentence of a `round_scored` event for seat `me` ("Round 2 over: you took 5 ..."). */
export function briefRoundScored(event, me, tr = t) {
  const seated = me !== null && me !== undefined && event.penalties && event.totals;
  if (!seated) return tr("events.round_scored", { round: event.round });
  return tr("brief.round_scored", { round: event.round, count: event.penalties[me], total: event.totals[me] });
}

/** "Turn 3: choose a card." once per turn when a seated page's hand waits for a card; else null. */
export function turnPrompt(view, { me, chosen, lastKey }, tr = t) {
  if (!view || view.phase !== "choosing_cards" || me === null || me === undefined || chosen !== null) return null;
  const key = `${view.round}:${view.turn}`;
  if (key === lastKey) return null;
  return { key, text: tr("brief.your_turn", { round: view.round, turn: Math.min(view.turn + 1, 10) }) };
}

/**
 * The setting at one table page: `say` (announce.js). `brief.on`; `brief.say(event, sentence,
 * me)` says an event's sentence as the mode wants; `brief.afterState(view, me, chosen)` prompts
 * the turn; `brief.toggle()`; `brief.button(onToggle)`: the toolbar's switch, shown to the
 * keyboard when focused (a screen reader finds it where it is).
 */
export function createBrief(say) {
  const state = { on: safeGet(BRIEF_KEY) === "brief", lastKey: null };
  return {
    get on() {
      return state.on;
    },
    say(event, sentence, me) {
      if (!state.on) return say.say(sentence);
      if (!keptInBrief(event, me)) return undefined;
      if (event.type === "round_scored") return say.announce(briefRoundScored(event, me));
      return say.say(sentence);
    },
    afterState(view, me, chosen) {
      if (!state.on) return;
      const prompt = turnPrompt(view, { me, chosen: chosen ?? null, lastKey: state.lastKey });
      if (!prompt) return;
      state.lastKey = prompt.key;
      say.announce(prompt.text);
    },
    toggle() {
      state.on = !state.on;
      safeSet(BRIEF_KEY, state.on ? "brief" : null);
      say.announce(state.on ? t("brief.turned_on") : t("brief.turned_off"));
    },
    button(onToggle) {
      return h("button", {
        type: "button", class: "chip shown-on-focus", id: "brief-announcements", "data-focus": "brief", "aria-pressed": String(state.on),
        text: t("brief.label"), on: { click: onToggle },
      });
    },
  };
}
