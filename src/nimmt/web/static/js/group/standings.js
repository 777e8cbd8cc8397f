// The group's standings table. Wide screens show the columns' whole titles; phones show short
// ones (an <abbr> with the whole title, and a key under the table saying what each means), so
// that all seven columns fit 360 px. The table sits in a labelled, focusable box that scrolls
// sideways (with a shadow at the edge) should a long name still make it wider than the screen.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { avatarEl } from "../profile/avatar.js";
import { formatDecimal, personName } from "../profile/people.js";

const COLUMNS = ["rank", "name", "games", "wins", "per_round", "clean", "rating"];
const SHORT = new Set(["games", "wins", "per_round", "clean", "rating"]);

function header(key) {
  const full = t(`group.col_${key}`);
  if (!SHORT.has(key)) return h("th", { scope: "col", text: full });
  return h("th", { scope: "col", class: `col-${key}` },
    h("span", { class: "col-full", text: full }),
    h("abbr", { class: "col-short", title: full, text: t(`group.short_${key}`) }));
}

export function standingsTable(page) {
  return [
    h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": t("group.standings") },
      h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, COLUMNS.map(header))),
        h("tbody", {}, page.standings.map((line) => h("tr", {},
          h("td", { text: String(line.rank) }),
          h("th", { scope: "row" }, avatarEl(line), " ", h("span", { class: "standings-name", text: personName(line) })),
          h("td", { text: String(line.games) }),
          h("td", { text: String(line.wins) }),
          h("td", { text: formatDecimal(line.bullheads_per_round, 2) }),
          h("td", { text: String(line.clean_rounds) }),
          h("td", { text: formatDecimal(line.rating, 1) })))))),
    h("p", { class: "standings-key" }, [...SHORT].map((key, index) => [
      index ? " · " : "",
      h("span", { class: "key-short", text: t(`group.short_${key}`) }), " ", t(`group.col_${key}`),
    ])),
  ];
}
