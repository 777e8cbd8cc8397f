// How the profile and group pages write people and numbers: a deleted profile's name in stored
// games (the server keeps the literal FORMER_PLAYER) in the page's language, decimals with the
// page's separator, and an evening's winners marked as guests or bots. Pure: node --test.

import { currentLanguage, formatList, t } from "../i18n.js";
import { botSeatName } from "../kit/state.js";

/** The name the server stores for a deleted profile's seats (storage/people.py). */
export const FORMER_PLAYER = "a former player";

/**
 * A player's name as shown: "a former player" translated, a bot seat's own name in the page's
 * language ("Bot 3 (gierig)", from its `bot_name`), any other name as it is.
 */
export function personName(player) {
  if (player.bot_name) return botSeatName(player.bot_name, t);
  return !player.profile && player.name === FORMER_PLAYER ? t("people.former_player") : player.name;
}

/** A bot level's name in the page's language ("greedy" -> "gierig"), else the level itself. */
function levelName(bot) {
  const key = `bots.${bot}`;
  const level = t(key);
  return level === key ? bot : level;
}

/** A decimal in the page's language ("10,79" in German); "–" for none. */
export function formatDecimal(value, digits = 2, lang = currentLanguage()) {
  if (value === null || value === undefined) return "–";
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** When a game finished, in the page's language and the reader's time zone: day and minute. */
export const formatWhen = (iso, lang = currentLanguage()) =>
  new Date(iso).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });

/** A day in the page's language ("2 Dec 2026", "02.12.2026"). */
export const formatDay = (iso, lang = currentLanguage()) => new Date(iso).toLocaleDateString(lang, { dateStyle: "medium" });

/** What a player was at the table: "member" (a profile), "bot" or "guest". */
export function playerKind(player) {
  if (player.profile) return "member";
  return player.kind === "bot" ? "bot" : "guest";
}

/**
 * An evening's line: its games and every winner of them with their wins (a joint win counts
 * for each winner, as in the standings); a guest or a bot is said to be one, since the
 * standings list members only. Members come first, then guests, then bots.
 */
export function eveningText(evening) {
  const order = { member: 0, guest: 1, bot: 2 };
  const winners = evening.players
    .filter((player) => player.wins > 0)
    .map((player) => ({ player, kind: playerKind(player) }))
    .sort((a, b) => order[a.kind] - order[b.kind]);
  const games = t("group.evening_games", { count: evening.games });
  if (!winners.length) return games;
  const names = winners.map(({ player, kind }) => (player.bot_name
    // "Bot 3 (greedy, 2 wins)": its name says it is a bot, and one pair of brackets is enough.
    ? t("group.evening_winner_bot_seat", { number: player.bot_name.number, level: levelName(player.bot_name.bot), count: player.wins })
    : t(`group.evening_winner_${kind}`, { name: personName(player), count: player.wins })));
  return t("group.evening_line", { games, winners: formatList(names) });
}
