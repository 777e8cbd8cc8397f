// The assistant's page ("/t/{code}" of an assisted table): a game played with a real deck,
// entered on the device that started it, followed live by everyone else with the link.
//
// The device holding the table's token enters each round's four starting row cards and each
// turn's revealed cards (one number field per player, in order; see fields.js), and, when a card
// is below every row, the row its player names. The server places the cards with the engine and
// sends the usual table messages (docs/protocol.md): an `events` message is animated (the cards
// lowest first, then one by one into their rows), then the `state` is drawn. The entry panel
// follows the newest state at once, so typing never waits for the animation. Undo (button or
// Ctrl+Z) takes back the last entry; a turn or the rows taken back come back into the fields,
// ready to be corrected (undo is also the way to edit).
//
// This module ties the parts together: model.js (what the page remembers), view.js (drawing),
// entry.js (typing and sending), the feed (feed.js) and the board kit (kit/).

import { tokenKey } from "../api.js";
import { createFeed } from "../feed.js";
import { formatList, has, safeGet, safeSet, t } from "../i18n.js";
import { animateEvent } from "../kit/animate.js";
import { createAnnouncer } from "../kit/announce.js";
import { speedFrom } from "../kit/state.js";
import { eventSentence } from "../kit/text.js";
import { createEntry } from "./entry.js";
import { createAssist, takeState, undoesEntry } from "./model.js";
import { createAssistView } from "./view.js";

export function mountAssist(root, code) {
  const s = createAssist({ token: safeGet(tokenKey(code)), speed: speedFrom(safeGet("nimmt.speed")) });
  let destroyed = false;
  const say = createAnnouncer();

  // The socket's messages (feed.js): the entry panel follows each state at once, the board
  // animates the events in order and then draws the state after them.
  const feed = createFeed(code, s.token, {
    arrive: {
      events: (message) => {
        if (undoesEntry(message.events)) s.undone = true;
      },
      state: (message) => {
        takeState(s, message);
        view.renderEntry();
      },
    },
    play: {
      events: (message) => playEvents(message.events || []),
      state: (message) => {
        s.shown = message.view;
        view.renderBoard();
      },
    },
    onError: handleError,
    onStatus: connectionChanged,
    reconnectOnVisible: true,
  });

  const enters = () => Boolean(s.token);
  const names = () => (s.view ? s.view.names : []);
  const nameOf = (seat) => names()[seat] || t("seat.empty_name", { number: seat + 1 });
  const words = { t, formatList, has, nameOf, me: null };
  const motion = { get speed() { return s.speed; }, nameOf, me: null };

  const on = {
    copyLink,
    chooseRow: (row) => entry.chooseRow(row),
    undo: () => entry.undo(),
    editTurn: () => entry.editTurn(),
    submit: (event) => entry.submit(event),
    onInput: (event, index) => entry.onInput(event, index),
    onFieldKey: (event, index) => entry.onFieldKey(event, index),
    onBlur: (index) => entry.onBlur(index),
  };
  const view = createAssistView({ root, code, s, say, enters, nameOf, words, isGone: () => destroyed, on });
  const entry = createEntry({ root, s, feed, view, say, nameOf, enters });

  // ----------------------------------------------------------- the connection

  function connectionChanged(status, info) {
    if (destroyed) return;
    if (status === "open") {
      if (info.again) say.announce(t("table.reconnected"));
      say.setBanner(null);
    } else if (status === "lost") {
      s.sending = false;
      say.setBanner(t("table.connection_lost"));
    } else if (status === "refused") {
      say.setBanner(null);
      if (!s.fatal) s.fatal = info.reason;
      view.render();
    }
  }

  function handleError(message) {
    if (message.code === "bad_token") {
      // This device does not enter this game (a token from elsewhere): it follows it.
      safeSet(tokenKey(code), null);
      s.token = null;
      feed.token = null;
      view.render();
      return;
    }
    s.sending = false;
    s.refill = null;
    s.problem = { code: message.code, details: message.details, message: message.message };
    s.focusEntry = true;
    view.renderEntry();
    say.announce(view.problemText(s.problem));
  }

  // ------------------------------------------------------------ animation

  /** A row taken: the taker's counter on the players' line goes up with it. */
  function countTaken(event) {
    const counter = root.querySelector(`.assist-player[data-seat="${event.seat}"] .assist-round-number`);
    if (counter) counter.textContent = String(Number(counter.textContent || 0) + event.bullheads);
  }

  async function playEvents(events) {
    // Animate on a drawn board when the page keeps up; a backlog is simply caught up.
    const animate = Boolean(root.querySelector(".assist-board .rows")) && feed.pending < 4 && !document.hidden;
    s.animating = true;
    try {
      const board = root.querySelector(".assist-board");
      for (const event of events) {
        announceEvent(event);
        if (!animate || !board) continue;
        await animateEvent(board, event, motion);
        if (event.type === "row_taken") countTaken(event);
      }
    } finally {
      s.animating = false;
    }
    if (events.some((event) => event.type === "round_scored")) s.sheetOpen = true;
  }

  function announceEvent(event) {
    if (event.type === "row_choice_required") say.announce(t("assist.row_question", { name: nameOf(event.seat), card: event.card }));
    else if (event.type === "round_scored") say.announce(t("assist.round_over", { round: event.round }));
    else if (event.type === "entry_undone") say.announce(t("assist.undone"));
    else {
      const said = eventSentence(event, words);
      if (said) say.announce(said.text);
    }
  }

  async function copyLink() {
    const url = `${location.origin}/t/${code}`;
    let ok = false;
    try {
      await navigator.clipboard.writeText(url);
      ok = true;
    } catch {
      ok = false;
    }
    say.showToast(ok ? t("assist.link_copied") : t("assist.copy_failed", { url }));
  }

  // ------------------------------------------------------------------ start

  view.render();
  feed.start();
  const onKey = (event) => {
    if (!s.view || !enters()) return;
    const inField = event.target.closest && event.target.closest("input, select, textarea");
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "z") {
      // In a field with text, Ctrl+Z is the field's own undo; elsewhere it takes the entry back.
      if (inField && event.target.value) return;
      event.preventDefault();
      entry.undo();
      return;
    }
    if (s.view.phase === "choosing_row" && !inField && /^[1-4]$/.test(event.key)) {
      event.preventDefault();
      root.querySelector(`[data-focus="row-${Number(event.key) - 1}"]`)?.focus();
    }
  };
  document.addEventListener("keydown", onKey);

  return {
    rerender: () => view.render(),
    destroy() {
      destroyed = true;
      feed.destroy();
      document.removeEventListener("keydown", onKey);
      say.setBanner(null);
    },
  };
}
