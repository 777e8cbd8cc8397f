// The tab's title (document.title): what the page shows, then the game's name, in the reader's
// language: "Table K7QX2M · 6 nimmt!", "Replay · table K7QX2M · 6 nimmt!", a group's own name.
// "Your turn · " goes in front while a decision waits at the table (table/alerts.js). Each page
// names itself when it is mounted (app.js) and again once it knows more (a group's name, a table
// that does not exist); the title is made again when the language changes.

import { t } from "./i18n.js";

let part = () => null; // the page's own part of the title, in the current language; null: home
let turn = false;

/** The whole title: `page` (null: the start page's own title), "your turn" in front. */
export function titleText(page, yourTurn = false) {
  const brand = t("app.brand_name");
  const title = page ? t("titles.page", { page, brand }) : t("titles.home", { brand });
  return yourTurn ? `${t("talk.title_turn")} · ${title}` : title;
}

/** The page's part of the title: a text, or a function that gives it in the current language. */
export function setPageTitle(page) {
  part = typeof page === "function" ? page : () => page;
  showTitle();
}

/** Whether a decision waits at the table: "Your turn" in front of the title. */
export function setTurnTitle(yourTurn) {
  turn = Boolean(yourTurn);
  showTitle();
}

/** Write the title again (the language changed). */
export function showTitle(doc = globalThis.document) {
  if (doc) doc.title = titleText(part(), turn);
}
