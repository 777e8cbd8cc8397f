// A person's history on their profile page: their figures, and every finished game with its
// result and replay link.

import { h } from "../dom.js";
import { formatList, t } from "../i18n.js";

export function historyEl(history) {
  if (!history) return null;
  const totals = history.totals;
  return h("section", { class: "panel", id: "history" },
    h("h2", { text: t("profile.history") }),
    h("p", { text: t("profile.figures", {
      games: totals.games, wins: totals.wins,
      per_round: totals.bullheads_per_round === null ? "–" : totals.bullheads_per_round,
      clean: totals.clean_rounds, rows: totals.rows_taken,
    }) }),
    history.games.length
      ? h("ol", { class: "plain-list history-list" }, history.games.map((game) => h("li", {},
        h("span", { text: new Date(game.finished_at).toLocaleString() }), " · ",
        h("span", { text: game.winner ? t("profile.won", { total: game.total }) : t("profile.placed", { place: game.place, total: game.total }) }), " · ",
        h("span", { text: formatList(game.players.map((p) => p.name)) }), " · ",
        h("a", { href: game.replay, text: t("profile.replay") }))))
      : h("p", { text: t("profile.no_games") }));
}
