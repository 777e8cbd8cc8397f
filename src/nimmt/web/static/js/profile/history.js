// A person's history on their profile page: their figures (with the coach's reviews, the
// bullheads lost to their own decisions), a small plot of their bullheads per round game by
// game, and every finished game: when, online or with real cards (and for which group), the
// result, that game's own figures, what the coach's review found when somebody asked for it,
// and the replay link.

import { h } from "../dom.js";
import { currentLanguage, formatList, t } from "../i18n.js";
import { ratingPlot } from "../group/rating.js";
import { formatBullheads } from "../table/coach.js";
import { formatDecimal, formatWhen, personName } from "./people.js";

const lost = (loss) => formatBullheads(loss, currentLanguage());
const reviewed = (game) => game.decision_loss !== null && game.decision_loss !== undefined;

/** A person's figures, each number with its noun in the right plural form. */
export function figuresText(totals) {
  return [
    t("profile.fig_games", { count: totals.games }),
    t("profile.fig_wins", { count: totals.wins }),
    t("profile.fig_per_round", { count: totals.bullheads_per_round ?? 0, value: formatDecimal(totals.bullheads_per_round, 2) }),
    t("profile.fig_clean", { count: totals.clean_rounds }),
    t("profile.fig_rows", { count: totals.rows_taken }),
  ].join(" · ");
}

/** One game's result: "won with 24 bullheads", "place 3 of 4 with 79 bullheads". */
export function resultText(game) {
  return game.winner
    ? t("profile.won", { count: game.total })
    : t("profile.placed", { count: game.total, place: game.place, players: game.players.length });
}

/** One game's own figures, and the coach's review of it when there is one. */
export function gameFiguresText(game) {
  return [
    t("profile.fig_per_round", { count: game.bullheads_per_round ?? 0, value: formatDecimal(game.bullheads_per_round, 2) }),
    t("profile.fig_clean", { count: game.clean_rounds }),
    t("profile.fig_rows", { count: game.rows_taken }),
    reviewed(game) ? t("profile.decision_loss", { count: game.decision_loss, loss: lost(game.decision_loss) }) : null,
  ].filter(Boolean).join(" · ");
}

/** The person's bullheads per round, game by game, oldest first, in the plot's shape. */
export function perRoundSeries(games, colour) {
  const points = [...games].reverse().filter((game) => game.bullheads_per_round !== null)
    .map((game) => ({ table: game.table, game: game.game, finished_at: game.finished_at, rating: game.bullheads_per_round }));
  return [{ name: t("profile.plot_line"), colour, rating_over_time: points }];
}

const PLOT_WORDS = {
  caption: "profile.plot_caption", y: "profile.plot_y", x: "profile.plot_x", table: "profile.plot_table", digits: 2,
};

export function historyEl(history, { colour = "#1f5a45", groups = [] } = {}) {
  if (!history) return null;
  const totals = history.totals;
  const groupNames = new Map(groups.map((group) => [group.code, group.name]));
  const where = (game) => {
    const how = game.real_cards ? t("group.real_cards") : t("group.online");
    const group = game.group && groupNames.get(game.group);
    return group ? t("profile.in_group", { how, group }) : how;
  };
  return h("section", { class: "panel", id: "history" },
    h("h2", { text: t("profile.history") }),
    // Figures of no game would be a row of zeros over "No finished game yet".
    totals.games ? h("p", { class: "history-figures", text: figuresText(totals) }) : null,
    totals.reviewed_games
      ? h("p", { class: "history-review", text: t("profile.reviewed_figures", {
        count: totals.reviewed_games, loss: lost(totals.decision_loss),
      }) })
      : null,
    history.games.length >= 2 ? ratingPlot(perRoundSeries(history.games, colour), { words: PLOT_WORDS, legend: false, id: "history-plot" }) : null,
    history.games.length
      ? h("ol", { class: "plain-list history-list" }, history.games.map((game) => h("li", {},
        h("span", { class: "history-when", text: formatWhen(game.finished_at) }), " · ",
        h("span", { text: where(game) }), " · ",
        h("strong", { text: resultText(game) }), " · ",
        h("span", { text: formatList(game.players.map(personName)) }), " · ",
        h("a", { href: game.replay, text: t("profile.replay") }),
        h("span", { class: "history-game-figures", text: gameFiguresText(game) }))))
      : h("p", { text: t("profile.no_games") }));
}
