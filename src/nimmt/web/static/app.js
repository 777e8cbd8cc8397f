// The single-page app's entry: picks the language, draws the header, and routes
// "/" to the start page and "/t/{code}" to the table (or to the assistant's page when the table
// is a game played with real cards). No build step, no dependencies.

import { api } from "./js/api.js";
import { mountAssist } from "./js/assist/main.js";
import { clear, h } from "./js/dom.js";
import { LANGUAGES, currentLanguage, pickLanguage, setLanguage, t } from "./js/i18n.js";
import { mountBoard } from "./js/board.js";
import { mountGroup, mountJoinGroup } from "./js/group/main.js";
import { mountProfile, mountRedeem } from "./js/profile/main.js";
import { mountReplay } from "./js/replay/main.js";
import { mountStart } from "./js/start.js";
import { mountTable } from "./js/table/main.js";
import { setPageTitle, showTitle } from "./js/title.js";

const main = document.getElementById("main");
let view = null; // the mounted page: {rerender(), destroy()}

function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  const rules = document.getElementById("rules-link");
  rules.href = `/rules/${currentLanguage()}`;
  rules.setAttribute("hreflang", currentLanguage());
  document.getElementById("lang-select").value = currentLanguage();
  showTitle();
}

function route() {
  const match = location.pathname.match(/^\/t\/([A-Za-z0-9]+)\/?$/);
  const other = location.pathname.match(/^\/t\/([A-Za-z0-9]+)\/(replay|board)\/?$/);
  if (view) view.destroy();
  clear(main);
  // Each page's title, until the page itself knows better (a group's name, no such table).
  const code = (match || other || [])[1]?.toUpperCase();
  if (match) {
    setPageTitle(() => t("titles.table", { code }));
    mountTableOrAssist(code);
  } else if (other && other[2] === "board") {
    setPageTitle(() => t("titles.board", { code }));
    view = mountBoard(main, code);
  } else if (other) {
    setPageTitle(() => t("titles.replay", { code }));
    view = mountReplay(main, { code, game: new URLSearchParams(location.search).get("game") });
  } else if (/^\/replay\/?$/.test(location.pathname)) {
    setPageTitle(() => t("titles.replay_file"));
    view = mountReplay(main);
  } else if (/^\/me(\/link)?\/?$/.test(location.pathname)) {
    setPageTitle(() => t("titles.profile"));
    view = /^\/me\/?$/.test(location.pathname) ? mountProfile(main) : mountRedeem(main);
  } else if (/^\/g\/join\/?$/.test(location.pathname)) {
    setPageTitle(() => t("titles.join_group"));
    view = mountJoinGroup(main);
  } else if (/^\/g\/[A-Za-z0-9]{8}\/?$/.test(location.pathname)) {
    setPageTitle(() => t("titles.group"));
    view = mountGroup(main, location.pathname.split("/")[2].toUpperCase());
  } else if (location.pathname === "/" || location.pathname === "/index.html") {
    setPageTitle(null);
    view = mountStart(main);
  } else if (/^\/assist\/?$/.test(location.pathname)) {
    // The rules pages link here: the start page, opened at its "Real cards" form.
    setPageTitle(() => t("titles.real_cards"));
    view = mountStart(main);
    const form = main.querySelector("#real-cards-form");
    if (form) {
      form.scrollIntoView({ block: "start" });
      form.querySelector("input")?.focus();
    }
  } else {
    setPageTitle(() => t("titles.not_found"));
    view = { rerender() {}, destroy() {} };
    main.append(
      h("section", { class: "page-message" },
        h("h1", { text: t("app.not_found_title") }),
        h("p", { text: t("app.not_found") }),
        h("p", {}, h("a", { class: "button", href: "/", text: t("app.home") }))),
    );
  }
}

/** A table played online, or a game with real cards (assisted): the summary says which. */
function mountTableOrAssist(code) {
  const placeholder = { rerender() {}, destroy() {} };
  view = placeholder;
  main.append(h("p", { class: "page-message loading", text: t("table.connecting") }));
  api("GET", `/api/tables/${code}`)
    .then((summary) => Boolean(summary && summary.assisted))
    .catch(() => false) // the table page tells what went wrong
    .then((assisted) => {
      if (view !== placeholder) return;
      clear(main);
      if (assisted) setPageTitle(() => t("titles.assist", { code }));
      view = assisted ? mountAssist(main, code) : mountTable(main, code);
    });
}

async function start() {
  await setLanguage(pickLanguage());
  translateStatic();
  const select = document.getElementById("lang-select");
  select.addEventListener("change", async () => {
    if (!LANGUAGES.includes(select.value)) return;
    await setLanguage(select.value, true);
    translateStatic();
    if (view) view.rerender();
    select.focus();
  });
  route();
}

start().catch((err) => {
  clear(main);
  main.append(h("p", { class: "page-message", text: `6 nimmt! could not start: ${err}` }));
});
