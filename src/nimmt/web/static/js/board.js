// The board view ("/t/{code}/board"): the table for a TV in the room where everyone plays from
// their phone. Full screen, no hand, large cards and names: the rows, the turn's cards revealed
// and travelling to their rows, the seats with their totals and who is still thinking, the score
// sheet between rounds, and a QR code of the table's link to join by. It connects as a
// spectator, so it is sent nothing a spectator may not see (docs/protocol.md, section 3), and
// draws with the board kit the table uses too (kit/: state.js, text.js, render.js, animate.js).

import { errorText } from "./api.js";
import { freeSeats, joinUrl, sheetShown } from "./board-model.js";
import { clear, h } from "./dom.js";
import { createFeed } from "./feed.js";
import { formatList, has, safeGet, t } from "./i18n.js";
import { STEP_MS, animateEvent } from "./kit/animate.js";
import { createAnnouncer } from "./kit/announce.js";
import { renderBoard, renderNotReady, renderScoreTable, renderSeats } from "./kit/render.js";
import { applyStateMessage, createState, nameOf, seatSummaries, speedFrom } from "./kit/state.js";
import { eventSentence, infoText, statusText, winnersText } from "./kit/text.js";

export function mountBoard(root, code) {
  const s = createState(code, { token: null, speed: speedFrom(safeGet("nimmt.speed")) });
  let destroyed = false;
  const say = createAnnouncer();
  const nameOfSeat = (seat) => nameOf(s, seat, t);
  const words = () => ({ t, formatList, has, nameOf: nameOfSeat, me: null });
  const motion = { get speed() { return s.speed; }, nameOf: nameOfSeat, me: null };
  // The socket's messages, in order (feed.js): the turn animated, then the state drawn.
  const feed = createFeed(code, null, {
    play: {
      events: (message) => playEvents(message.events || []),
      state: (message) => {
        applyStateMessage(s, message);
        render();
      },
    },
    onStatus: connectionChanged,
  });
  document.body.classList.add("board-mode");

  function connectionChanged(status, info) {
    if (destroyed) return;
    if (status === "open") say.setBanner(null);
    else if (status === "lost") say.setBanner(t("table.connection_lost"));
    else if (status === "refused") {
      say.setBanner(null);
      s.fatal = info.reason;
      render();
    }
  }

  async function playEvents(events) {
    const stage = root.querySelector(".board-page");
    const animate = Boolean(stage && s.view) && feed.pending < 4;
    for (const event of events) {
      const sentence = eventSentence(event, words());
      if (sentence) say.announce(sentence.text);
      if (animate) await animateEvent(stage, event, motion);
    }
  }

  function render() {
    if (destroyed) return;
    clear(root);
    const notReady = renderNotReady({ fatal: s.fatal, hasView: Boolean(s.view), errorText });
    if (notReady) {
      root.append(notReady);
      return;
    }
    const view = s.view;
    const link = joinUrl(location.origin, code);
    const over = view.phase === "game_over" && view.outcome;
    const sheet = sheetShown(view)
      ? h("section", { class: "sheet board-sheet", "aria-labelledby": "board-sheet-title", tabindex: "0" },
          h("h2", { id: "board-sheet-title", text: over ? t("sheet.game_over") : t("sheet.after_round", { round: view.score_sheet.length }) }),
          over ? h("p", { class: "winners", text: winnersText(view.outcome.winners, view.outcome.totals, words()) }) : null,
          renderScoreTable({
            names: view.names.map((_, seat) => nameOfSeat(seat)),
            rounds: view.score_sheet,
            totals: over ? view.outcome.totals : view.totals,
          }))
      : null;
    const free = freeSeats(s.table);
    const many = view.names.length > 6 ? " many" : "";
    // At game over the final sheet takes the rows' place, where every line of it fits (at ten
    // seats the side column cannot hold it beside the players and the QR code).
    const pageClass = `board-page${many}${sheet ? " sheet-open" : ""}${over ? " game-over" : ""}`;
    root.append(h("div", { class: pageClass, style: { "--step": `${STEP_MS / s.speed}ms` } },
      h("header", { class: "board-head" },
        h("span", { class: "board-brand", text: t("app.brand_name") }),
        h("h1", { class: "board-code", text: t("board.table", { code }) }),
        h("span", { class: "board-info", text: infoText(view, t) }),
        h("button", { type: "button", class: "chip board-full", text: t("board.full_screen"), on: { click: fullScreen } })),
      h("div", { class: "board-main" },
        over ? sheet : renderBoard({
          rows: view.rows,
          revealed: view.revealed,
          status: statusText(view, { tableSeats: s.table ? s.table.seats : null }, words()),
          nameOf: nameOfSeat,
          me: null,
        }),
        h("aside", { class: "board-side" },
          renderSeats(seatSummaries(s, nameOfSeat)),
          over ? null : sheet,
          h("figure", { class: "board-join" },
            h("img", { src: `/t/${encodeURIComponent(code)}/qr.svg`, alt: t("board.qr_alt", { link }), width: 180, height: 180 }),
            h("figcaption", {},
              h("strong", { text: free ? t("board.join_free", { count: free }) : t("board.join_watch") }),
              h("span", { class: "board-link", text: link })))))));
  }

  function fullScreen() {
    const page = document.documentElement;
    if (document.fullscreenElement) document.exitFullscreen?.();
    else page.requestFullscreen?.().catch(() => {});
  }

  render();
  feed.start();

  return {
    rerender: render,
    destroy() {
      destroyed = true;
      feed.destroy();
      say.reset();
      document.body.classList.remove("board-mode");
    },
  };
}
