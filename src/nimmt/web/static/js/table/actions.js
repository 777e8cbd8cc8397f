// What a person at the table does: play or take back a card, choose a row, ask for a rematch,
// take a free seat, leave one, copy the link, change the speed. Actions go out on the socket with
// the version of the state they answer; one made while the connection is lost waits in the
// outbox and is sent once a state shows it still makes sense (state.js outboxStillValid).
//
// `ctx`: `{ root, code, s, feed (feed.js), render(), say (announce.js), closeLeaveDialog(),
// skipAnimation() }`.

import { api, apiErrorText, tokenKey } from "../api.js";
import { safeSet, t } from "../i18n.js";
import { NAME_MAX, cleanName, nameProblem } from "../names.js";
import { chosenCard, clearSeat, isSeated, mySeat, outboxStillValid, sendPendingCard } from "../kit/state.js";
import { cardStandsFor } from "./absence.js";

export function createActions(ctx) {
  const { root, code, s, feed, say } = ctx;

  function send(message) {
    const withVersion = { ...message, version: s.version };
    if (feed.send(withVersion) === null) {
      s.outbox = message; // sent again once the connection is back
      return false;
    }
    return true;
  }

  function sendOutbox() {
    const waiting = s.outbox;
    if (!waiting || !feed.isOpen || !s.view) return;
    s.outbox = null;
    if (outboxStillValid(s.view, waiting)) send(waiting);
  }

  function playCard(card) {
    const view = s.view;
    if (!view || !isSeated(s) || !view.hand.includes(card)) return;
    if (s.animating) {
      // The table is still showing the last turn: the card is kept for the next one (main.js
      // plays it once that is here), lifted now, and the animation hurries to its end.
      s.queuedCard = card;
      s.handFocus = card;
      for (const el of root.querySelectorAll(".hand .card")) el.classList.toggle("lifted", Number(el.dataset.card) === card);
      ctx.skipAnimation();
      return;
    }
    if (view.phase !== "choosing_cards") return;
    if (cardStandsFor(s.table, mySeat(s))) return; // the bot's card of this turn stands
    const current = chosenCard(s);
    s.handFocus = card;
    s.sheetOpen = false; // playing on: the players are shown again in the sheet's place
    if (current === card) {
      // Tapping the lifted card again takes it back.
      s.pendingCard = null;
      send({ type: "retract" });
      say.announce(t("table.you_took_back", { card }));
    } else {
      sendPendingCard(s, card);
      const sent = send({ type: "play", card });
      say.announce(sent ? t("table.you_chose", { card }) : t("table.unsent_card", { card }));
    }
    ctx.render();
  }

  function chooseRow(row) {
    if (!s.view || !s.view.must_choose_row) return;
    if (!send({ type: "choose_row", row })) {
      say.announce(t("table.unsent_row", { row: row + 1 }));
      ctx.render();
    }
  }

  /** Agree to play again (`agree` false: take the agreement back). */
  function rematch(agree = true) {
    send(agree ? { type: "rematch" } : { type: "rematch", agree: false });
  }

  async function takeSeat(event) {
    event.preventDefault();
    const name = cleanName(s.joinName);
    const problem = nameProblem(name);
    if (problem) {
      s.joinError = problem === "missing" ? t("start.name_missing") : t("seating.too_long", { max: NAME_MAX });
      ctx.render();
      root.querySelector("#seat-name")?.focus();
      return;
    }
    s.joining = true;
    s.joinError = null;
    ctx.render();
    try {
      const seat = await api("POST", `/api/tables/${code}/join`, { name });
      safeSet("nimmt.name", name);
      safeSet(tokenKey(code), seat.token);
      s.token = seat.token;
      s.joining = false;
      feed.reconnectAs(seat.token);
    } catch (err) {
      s.joining = false;
      s.joinError = apiErrorText(err);
      ctx.render();
      root.querySelector("#seat-name")?.focus();
    }
  }

  /** This page holds no seat any more: forget the token, and reconnect as a spectator later. */
  function forgetSeat() {
    safeSet(tokenKey(code), null);
    feed.token = null;
    clearSeat(s);
    ctx.closeLeaveDialog();
  }

  function leaveSeat(bot) {
    if (!isSeated(s)) return;
    const message = { type: "leave" };
    if (bot) message.bot = bot;
    // No version: leaving is not an answer to the current decision, so it is never stale.
    const requestId = feed.send(message);
    if (requestId === null) {
      say.showToast(t("table.leave_offline"));
      return;
    }
    s.leaving = true;
    s.leaveRequest = requestId;
    say.announce(t("table.leave_sent"));
  }

  /** The bot levels a leaving player may hand the seat to (GET /api/bots, once). */
  async function loadBots() {
    if (s.bots) return;
    try {
      const data = await api("GET", "/api/bots");
      s.bots = (data.bots || []).map((bot) => bot.name).filter((name) => typeof name === "string");
    } catch {
      s.bots = [];
    }
    if (!s.bots.length) s.bots = ["medium"];
  }

  async function copyLink() {
    const url = `${location.origin}/t/${code}`;
    let ok = false;
    try {
      await navigator.clipboard.writeText(url);
      ok = true;
    } catch {
      const field = root.querySelector("#share-url");
      if (field) {
        field.select();
        ok = document.execCommand && document.execCommand("copy");
      }
    }
    say.showToast(ok ? t("table.link_copied") : t("table.copy_failed"));
  }

  function setSpeed(speed) {
    s.speed = speed;
    safeSet("nimmt.speed", String(speed));
    ctx.render();
  }

  return { send, sendOutbox, playCard, chooseRow, rematch, takeSeat, forgetSeat, leaveSeat, loadBots, copyLink, setSpeed };
}
