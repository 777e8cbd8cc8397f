// A person's history on their profile page: their figures (with the coach's reviews, the
// bullheads lost to their own decisions), and every finished game with its result, what the
// coach's review found when somebody asked for it, and the replay link.

import { h } from "../dom.js";
import { currentLanguage, formatList, t } from "../i18n.js";
import { formatBullheads } from "../table/coach.js";
import { formatDecimal, personName } from "./people.js";

const lost = (loss) => formatBullheads(loss, currentLanguage());

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

export function historyEl(history) {
  if (!history) return null;
  const totals = history.totals;
  return h("section", { class: "panel", id: "history" },
    h("h2", { text: t("profile.history") }),
    h("p", { class: "history-figures", text: figuresText(totals) }),
    totals.reviewed_games
      ? h("p", { class: "history-review", text: t("profile.reviewed_figures", {
        count: totals.reviewed_games, loss: lost(totals.decision_loss),
      }) })
      : null,
    history.games.length
      ? h("ol", { class: "plain-list history-list" }, history.games.map((game) => h("li", {},
        h("span", { text: new Date(game.finished_at).toLocaleString(currentLanguage()) }), " · ",
        h("span", { text: game.winner ? t("profile.won", { total: game.total }) : t("profile.placed", { place: game.place, total: game.total }) }), " · ",
        h("span", { text: formatList(game.players.map(personName)) }), " · ",
        game.decision_loss === null || game.decision_loss === undefined
          ? null
          : h("span", { class: "history-loss", text: t("profile.decision_loss", { count: game.decision_loss, loss: lost(game.decision_loss) }) }),
        game.decision_loss === null || game.decision_loss === undefined ? null : " · ",
        h("a", { href: game.replay, text: t("profile.replay") }))))
      : h("p", { text: t("profile.no_games") }));
}
