// The table page ("/t/{code}"): the four rows centre stage, your hand along the bottom, the other
// players around, and every turn as it happens. Socket messages are handled one after another:
// an `events` message is animated on the table as it is drawn (reveal, then card by card, about
// half a second each, faster on request, fades under prefers-reduced-motion); the `state` that
// follows is then drawn from scratch. Protocol: docs/protocol.md.
//
// A seated person can leave the seat (a small dialog: before the first deal the seat is freed,
// during a game a bot of their choice takes it over); the page then forgets the token and
// watches. After a lost connection the socket asks for the events it missed (`since`), which
// are shown like any others, or only summed up when there are many.
//
// This module ties the parts together: the feed (feed.js), the board kit every page shares
// (kit/: state.js, the model; text.js, its sentences; render.js, drawing from plain data;
// animate.js, announce.js, keys.js) and the table's own parts beside it: view.js (drawing),
// actions.js, leave.js, the log (log.js, logview.js) and the coach (coach.js, coachview.js).

import { api, errorText, tokenKey } from "../api.js";
import { createFeed } from "../feed.js";
import { currentLanguage, formatList, has, safeGet, safeSet, t } from "../i18n.js";
import { animateEvent } from "../kit/animate.js";
import { createAnnouncer } from "../kit/announce.js";
import { bindRowDigits } from "../kit/keys.js";
import { applyStateMessage, chosenCard, createState, isSeated, mySeat, nameOf, shortNameOf, shouldSummarize, speedFrom } from "../kit/state.js";
import { eventSentence } from "../kit/text.js";
import { absenceStatus, renderAbsence } from "./absence.js";
import { createActions } from "./actions.js";
import { createBrief } from "./brief.js";
import {
  coachAllowed,
  coachKey,
  costliest,
  createCoach,
  figureNotes,
  forgetQuestions,
  noteAsked,
  noteDrawn,
  noteReceived,
  questionDue,
  setCoachOn,
  takeAnswer,
  takeRefusal,
} from "./coach.js";
import { annotation, bindCoachKey, renderCostliest } from "./coachview.js";
import { createLeaveDialog } from "./leave.js";
import { createLog, logEvents, logFromState } from "./log.js";
import { createTalkDesk } from "./talkview.js";
import { createTableView } from "./view.js";

const SEAT_EVENTS = ["seat_left", "player_joined", "rematch_started", "rematch_vote", "game_over"];

/** `{ promise, resolve }`: the promise settles once resolve() is called. */
function skipSignal() {
  let resolve;
  const promise = new Promise((settle) => { resolve = settle; });
  return { promise, resolve };
}

export function mountTable(root, code) {
  const s = createState(code, {
    token: safeGet(tokenKey(code)),
    joinName: safeGet("nimmt.name") || "",
    speed: speedFrom(safeGet("nimmt.speed")),
  });
  s.log = createLog(); // the game log (table/log.js), from the events and each state
  s.logOpen = false;
  s.coach = createCoach({ on: safeGet(coachKey(code)) === "on" }); // the coach (table/coach.js)
  s.coachReview = null; // the game-over review: { key, status, items }
  let destroyed = false;

  const say = createAnnouncer();
  // The talk at the table (talkview.js): its panel lives outside the redrawn page.
  const talk = createTalkDesk({ code, root, s, send: (message) => feed.send(message), announce: say.announce, seated: () => seated() });
  const brief = createBrief(say); // "brief announcements" for screen readers (brief.js)
  // The socket's messages, in order (feed.js): an `events` message is animated, then the `state`
  // after it drawn, and the coach's answers judged between them.
  const feed = createFeed(code, s.token, {
    arrive: { state: askCoachEarly, ...talk.arrive },
    play: {
      ...talk.play,
      events: (message, { resync }) => playEvents(message.events || [], resync),
      state: applyState,
      coach: (message) => {
        if (takeAnswer(s.coach, message)) render();
      },
    },
    onError: handleError,
    onStatus: connectionChanged,
    onIdle: () => {
      s.skipping = false;
      skipped = skipSignal();
    },
    reconnectOnVisible: true,
  });
  const leaveDialog = createLeaveDialog({ root, onLeave: (bot) => actions.leaveSeat(bot), isGone: () => destroyed });
  const actions = createActions({ root, code, s, feed, say, render, closeLeaveDialog: leaveDialog.close, skipAnimation });

  const seated = () => isSeated(s);
  const nameOfSeat = (seat) => nameOf(s, seat, t);
  const shortOfSeat = (seat) => shortNameOf(s, seat, t); // on the cards and strips: "Bot 2"
  const words = () => ({ t, formatList, has, nameOf: nameOfSeat, shortOf: shortOfSeat, me: mySeat(s) });
  const motion = {
    get speed() {
      return s.speed;
    },
    nameOf: shortOfSeat,
    get me() {
      return mySeat(s);
    },
    get skipping() {
      return s.skipping;
    },
    get skipped() {
      return skipped.promise;
    },
  };
  // Settles when a card tapped during the animation asks it to hurry to its end.
  let skipped = skipSignal();

  const view = createTableView({
    root, code, s, actions, leaveDialog, leaveTexts, words, nameOfSeat, shortOfSeat, seated,
    isGone: () => destroyed, brief, openLeaveDialog, toggleLog, toggleCoach, coachAllowedHere, coachAnnotation, coachReview,
    talkChip: talk.chip,
    absencePanel,
  });

  // An absent player (table/absence.js): the panel, and when its minutes were counted.
  let absenceAt = Date.now();
  function absencePanel() {
    const status = absenceStatus(s.table, mySeat(s));
    if (status && status.absent.length && !s.bots) actions.loadBots().then(() => { if (!destroyed) render(); });
    return renderAbsence({ status, seated: seated(), bots: s.bots, words: words(), receivedAt: absenceAt, send: (message) => actions.send(message) });
  }
  /** Draw the page from the model (view.js). */
  function render() {
    view.render();
    talk.decorate();
  }

  // ----------------------------------------------------------- the connection

  function connectionChanged(status, info) {
    if (destroyed) return;
    forgetQuestions(s.coach); // a question waiting at the server is gone with its connection
    if (status === "open") {
      if (info.again) say.announce(t("table.reconnected"));
      say.setBanner(null);
      talk.connected();
    } else if (status === "lost") {
      // 4408: the page fell behind the table; it reconnects and catches up like after any loss.
      say.setBanner(info.slow ? t("errors.slow_consumer") : t("table.connection_lost"));
    } else if (status === "refused") {
      // Reconnecting would be refused again: say why and stop.
      say.setBanner(null);
      if (!s.fatal) s.fatal = info.reason;
      leaveDialog.close();
      render();
    }
  }

  /** Ask the coach as soon as a decision shows, so that it thinks while the turn is drawn. */
  function askCoachEarly(message) {
    const seatedHere = Boolean(message.you && message.you.seat !== null && message.you.seat !== undefined);
    askCoach(noteReceived(s.coach, message.view, coachAllowed(message.table || s.table, seatedHere)));
  }

  /** A card was tapped during the animation: show the rest of it at once (then play the card). */
  function skipAnimation() {
    s.skipping = true;
    skipped.resolve();
    for (const animation of root.getAnimations({ subtree: true })) {
      // Only the turn's own movements: CSS animations (a seat's pulse) run on their own.
      if (!(animation instanceof CSSAnimation) && !(animation instanceof CSSTransition)) animation.finish();
    }
  }

  /** Play the card tapped during the animation, now that the turn it was meant for is here. */
  function playQueuedCard() {
    const card = s.queuedCard;
    if (card === null || feed.pending || s.animating || !s.view) return;
    const view = s.view;
    if (!view.hand.includes(card) || view.phase === "game_over") {
      s.queuedCard = null;
      return;
    }
    if (view.phase !== "choosing_cards") return; // a row is being chosen: the card waits
    s.queuedCard = null;
    if (chosenCard(s) !== card) actions.playCard(card);
  }

  function handleError(message) {
    if (talk.takeError(message)) return; // shown in the talk panel
    if (takeRefusal(s.coach, message)) {
      render(); // a refused question: no toast, the toggle says it when it matters
      return;
    }
    if (message.code === "slow_consumer") {
      // The server closes the socket next (4408); the page reconnects and catches up.
      say.setBanner(errorText("slow_consumer"));
      return;
    }
    if (message.code === "bad_token") {
      // The stored seat is not valid here (another server, a wiped database, or a seat this
      // page has just left while the connection was down): watch instead.
      const left = s.leaving;
      actions.forgetSeat();
      if (!left) say.showToast(errorText("bad_token"));
      render();
      return;
    }
    if (s.leaveRequest !== null && message.request_id === s.leaveRequest) {
      s.leaving = false;
      s.leaveRequest = null;
    }
    s.pendingCard = null;
    say.showToast(errorText(message.code, message.message));
    render();
  }

  function applyState(message) {
    const { seatLost } = applyStateMessage(s, message);
    absenceAt = Date.now();
    s.log = logFromState(s.log, s.view, s.table ? s.table.game : null);
    noteDrawn(s.coach, s.view, s.version);
    if (seatLost) actions.forgetSeat();
    actions.sendOutbox();
    talk.state();
    render();
    brief.afterState(s.view, mySeat(s), chosenCard(s) ?? s.queuedCard);
    playQueuedCard();
    const early = unsaid;
    unsaid = [];
    for (const event of early) announceEvent(event);
  }

  // ------------------------------------------------------------ events

  let unsaid = []; // events that came before the page's first state

  async function playEvents(events, resync = false) {
    // A page's first message may carry events (a person back at their seat hears their own
    // return with the table's first state): said once that state has named the seats.
    if (!s.table) {
      unsaid = events;
      return;
    }
    // A catch-up after a reconnection of more than about one turn is summed up, not replayed.
    const summarize = shouldSummarize(events, resync);
    // Animate only on a drawn table, and not a backlog: a long queue is simply caught up.
    const animate = !summarize && Boolean(s.view) && root.querySelector(".rows") && feed.pending < 4;
    s.animating = true;
    try {
      if (summarize) say.announce(t("table.caught_up", { count: events.length }));
      for (const event of events) {
        if (!summarize || SEAT_EVENTS.includes(event.type)) announceEvent(event);
        // Play goes on: the sheet gives the players their place back (the toolbar reopens it).
        if (event.type === "cards_revealed" && s.sheetOpen) closeSheet();
        if (!animate) continue;
        talk.event(event); // its sound, when sounds are on
        await animateEvent(root, event, motion, { onScored: () => { s.sheetOpen = true; } });
        if (event.type === "rematch_started") s.sheetOpen = false;
      }
      if (!animate && events.some((event) => event.type === "round_scored")) s.sheetOpen = true;
      if (events.some((event) => event.type === "rematch_started")) s.sheetOpen = false;
    } finally {
      s.log = logEvents(s.log, events);
      s.animating = false;
    }
  }

  function closeSheet() {
    s.sheetOpen = false;
    render();
  }

  function announceEvent(event) {
    const sentence = eventSentence(event, words());
    // The server made this socket a spectator; the token is void.
    const me = mySeat(s);
    if (event.type === "seat_left" && event.seat === me) actions.forgetSeat();
    brief.say(event, sentence, me);
  }

  // ------------------------------------------------------------- the seat

  function leaveTexts() {
    return { waiting: !s.view || s.view.phase === "waiting", bots: s.bots };
  }

  async function openLeaveDialog() {
    if (!seated() || s.leaving) return;
    await actions.loadBots();
    if (destroyed || !seated()) return;
    leaveDialog.open(leaveTexts());
  }

  // ------------------------------------------------------------- the log

  function toggleLog(open = !s.logOpen) {
    if (!s.view || s.view.phase === "waiting") open = false;
    if (open === s.logOpen) return;
    s.logOpen = open;
    render();
    (open ? root.querySelector("#game-log-title") : root.querySelector("#open-log"))?.focus({ preventScroll: true });
  }

  function onLogKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (event.key === "l" || event.key === "L") {
      event.preventDefault();
      toggleLog();
    } else if (event.key === "Escape" && s.logOpen && !(s.sheetOpen && root.querySelector(".sheet"))) {
      toggleLog(false);
    }
  }

  // ------------------------------------------------------------- the coach

  function coachAllowedHere() {
    return coachAllowed(s.table, seated());
  }

  function askCoach(key) {
    if (!key) return;
    const requestId = feed.send({ type: "coach" });
    if (requestId !== null) noteAsked(s.coach, key, requestId); // else asked again once connected
  }

  /** C or the toggle: the coach on or off (false when this page may not use it). */
  function toggleCoach() {
    if (!coachAllowedHere()) return false;
    setCoachOn(s.coach, !s.coach.on);
    safeSet(coachKey(code), s.coach.on ? "on" : null);
    say.announce(s.coach.on ? t("coach.turned_on") : t("coach.turned_off"));
    askCoach(questionDue(s.coach, true));
    render();
    return true;
  }

  /** The coach's note for each choice of this `kind` ("card" or "row"), when it is on. */
  function coachAnnotation(kind) {
    const answer = s.coach.answer;
    if (!s.coach.on || !coachAllowedHere() || !answer || answer.kind !== kind) return null;
    const notes = figureNotes(answer, { t, lang: currentLanguage() });
    return (choice) => annotation(notes.get(choice));
  }

  /** "Your three costliest decisions" on the game-over sheet, loaded once per game and seat. */
  function coachReview() {
    const seat = mySeat(s);
    const game = s.table ? s.table.game : null;
    const key = `${game}:${seat}`;
    if (!s.coachReview || s.coachReview.key !== key) {
      const review = { key, status: "loading", items: [] };
      s.coachReview = review;
      const query = game ? `&game=${encodeURIComponent(game)}` : "";
      api("GET", `/api/tables/${code}/analysis?seat=${seat}${query}`)
        .then((analysis) => {
          review.items = costliest(analysis, 3);
          review.status = "done";
        })
        .catch(() => {
          review.status = "failed";
        })
        .finally(() => {
          if (s.coachReview === review) render();
        });
    }
    const review = s.coachReview;
    return renderCostliest({ status: review.status, items: review.items, code, game, lang: currentLanguage() });
  }

  // ------------------------------------------------------------------ start

  render();
  feed.start();
  const unbindDigits = bindRowDigits(root, () => Boolean(s.view && s.view.must_choose_row));
  document.addEventListener("keydown", onLogKey);
  const unbindCoachKey = bindCoachKey(toggleCoach);

  return {
    rerender: () => {
      render();
      talk.redraw();
    },
    destroy() {
      destroyed = true;
      talk.destroy();
      feed.destroy();
      leaveDialog.remove();
      say.reset();
      unbindDigits();
      document.removeEventListener("keydown", onLogKey);
      unbindCoachKey();
    },
  };
}
