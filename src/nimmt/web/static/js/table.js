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

import { api, apiErrorText, errorText, tokenKey } from "./api.js";
import { bullheads, cardBackEl, cardEl, totalBullheads } from "./cards.js";
import { clear, h, prefersReducedMotion, sleep } from "./dom.js";
import { formatList, has, safeGet, safeSet, t } from "./i18n.js";
import { CLOSE_FORBIDDEN_ORIGIN, CLOSE_SLOW_CONSUMER, TableSocket } from "./socket.js";

const SPEEDS = [1, 2, 4];
const STEP_MS = 520; // one card travelling to its row
const REVEAL_MS = 900; // the cards turned over, then lined up
const TAKE_MS = 520; // a row swept into a player's pile
const NOTICE_MS = 6000; // how long a "left"/"joined" notice stays on screen
const RESYNC_ANIMATE_MAX = 12; // more missed events than this are summed up, not animated

export function mountTable(root, code) {
  const s = {
    code,
    token: safeGet(tokenKey(code)),
    version: null,
    you: null,
    table: null,
    view: null,
    connection: "connecting", // "open" | "lost"
    everOpen: false,
    fatal: null, // an error code that ends this page (table_not_found, forbidden_origin)
    pendingCard: null, // the card sent and not yet confirmed by a state
    outbox: null, // an action made while the connection was lost
    sheetOpen: false,
    joinName: safeGet("nimmt.name") || "",
    joinError: null,
    joining: false,
    speed: SPEEDS.includes(Number(safeGet("nimmt.speed"))) ? Number(safeGet("nimmt.speed")) : 1,
    handFocus: null,
    typed: "",
    typedTimer: null,
    lastMustChoose: false,
    animating: false,
    lastEventsVersion: -1, // the newest `events` message taken in (a catch-up may repeat some)
    bots: null, // the bot levels (GET /api/bots), loaded when the leave dialog first opens
    leaving: false, // a `leave` was sent and its `seat_left` has not come yet
    leaveRequest: null,
  };
  const queue = [];
  let running = false;
  let destroyed = false;

  const announcer = document.getElementById("announcer");
  const banner = document.getElementById("banner");
  const toast = document.getElementById("toast");
  const notice = document.getElementById("notice");
  let toastTimer = null;
  let leaveDialog = null; // the <dialog>, made on first use, kept outside the redrawn page

  const socket = new TableSocket(code, s.token, { onMessage: receive, onStatus: connectionChanged });

  // ------------------------------------------------------------------ helpers

  const mySeat = () => (s.you ? s.you.seat : null);
  const seated = () => mySeat() !== null && mySeat() !== undefined;
  const players = () => (s.view && s.view.names ? s.view.names.length : s.table ? s.table.seats.length : 0);

  function nameOf(seat) {
    const names = s.view && s.view.names;
    const fromView = names && names[seat];
    if (fromView) return fromView;
    const info = s.table && s.table.seats[seat];
    if (info && info.name) return info.name;
    return t("seat.empty_name", { number: seat + 1 });
  }

  const dur = (ms) => (document.hidden ? 0 : ms / s.speed);

  function announce(text) {
    // A fresh node per message, so screen readers read each one once.
    announcer.append(h("p", { text }));
    while (announcer.childNodes.length > 6) announcer.firstChild.remove();
  }

  function showToast(text) {
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      toast.hidden = true;
    }, 5000);
  }

  /** A short visible line (someone left or joined) that also goes to the screen reader once. */
  function showNotice(text) {
    announce(text);
    if (!notice) return;
    const line = h("p", { class: "notice-line", text });
    notice.append(line);
    while (notice.childNodes.length > 3) notice.firstChild.remove();
    notice.hidden = false;
    setTimeout(() => {
      line.remove();
      if (!notice.childNodes.length) notice.hidden = true;
    }, NOTICE_MS);
  }

  const botLabel = (name) => (name && has(`bots.${name}`) ? t(`bots.${name}`) : String(name));

  function setBanner(text) {
    banner.textContent = text || "";
    banner.hidden = !text;
  }

  // ----------------------------------------------------------- the connection

  function connectionChanged(status, event) {
    if (destroyed) return;
    if (status === "open") {
      s.connection = "open";
      if (s.everOpen) announce(t("table.reconnected"));
      s.everOpen = true;
      setBanner(null);
    } else if (status === "lost") {
      s.connection = "lost";
      // 4408: the page fell behind the table; it reconnects and catches up like after any loss.
      setBanner(event && event.code === CLOSE_SLOW_CONSUMER ? t("errors.slow_consumer") : t("table.connection_lost"));
    } else if (status === "refused") {
      // Reconnecting would be refused again: say why and stop.
      s.connection = "closed";
      setBanner(null);
      if (!s.fatal) s.fatal = event && event.code === CLOSE_FORBIDDEN_ORIGIN ? "forbidden_origin" : "table_not_found";
      closeLeaveDialog();
      render();
    }
  }

  function receive(message, { resync = false } = {}) {
    if (destroyed) return;
    if (message.type === "error") {
      handleError(message);
      return;
    }
    if (message.type === "events") {
      // A catch-up after a reconnection can repeat events still waiting in the queue.
      if (Number.isInteger(message.version)) {
        if (message.version <= s.lastEventsVersion) return;
        s.lastEventsVersion = message.version;
      }
      queue.push({ ...message, resync });
      if (!running) drain();
    } else if (message.type === "state") {
      // Every state taken in is applied, in order: the next connection asks for what follows
      // it (asking from the last one drawn would repeat what still waits in the queue).
      socket.setVersion(message.version);
      queue.push(message);
      if (!running) drain();
    }
  }

  async function drain() {
    running = true;
    while (queue.length && !destroyed) {
      const message = queue.shift();
      try {
        if (message.type === "events") await playEvents(message.events || [], message.resync);
        else applyState(message);
      } catch (err) {
        console.error(err); // a drawing hiccup must not stop the table: the next state redraws
      }
    }
    running = false;
  }

  function handleError(message) {
    if (message.code === "table_not_found" || message.code === "forbidden_origin") {
      s.fatal = message.code;
      socket.close();
      closeLeaveDialog();
      render();
      return;
    }
    if (message.code === "slow_consumer") {
      // The server closes the socket next (4408); the page reconnects and catches up.
      setBanner(errorText("slow_consumer"));
      return;
    }
    if (message.code === "bad_token") {
      // The stored seat is not valid here (another server, a wiped database, or a seat this
      // page has just left while the connection was down): watch instead.
      const left = s.leaving;
      forgetSeat();
      if (!left) showToast(errorText("bad_token"));
      render();
      return;
    }
    if (s.leaveRequest !== null && message.request_id === s.leaveRequest) {
      s.leaving = false;
      s.leaveRequest = null;
    }
    s.pendingCard = null;
    showToast(errorText(message.code, message.message));
    render();
  }

  function applyState(message) {
    const before = s.view;
    s.version = message.version;
    s.you = message.you || { seat: null };
    // Left, and the seat_left event was not seen (say, lost with the connection): the seat is
    // gone all the same.
    if (s.leaving && !seated()) forgetSeat();
    s.table = message.table || s.table;
    s.view = message.view || null;
    if (s.pendingCard !== null && s.view) {
      if (s.view.chosen_card === s.pendingCard || !s.view.hand.includes(s.pendingCard)) s.pendingCard = null;
    }
    if (before && before.phase !== "game_over" && s.view && s.view.phase === "game_over") s.sheetOpen = true;
    if (s.view && s.view.phase === "waiting") s.sheetOpen = false;
    sendOutbox();
    render();
  }

  function send(message) {
    const withVersion = { ...message, version: s.version };
    if (socket.send(withVersion) === null) {
      s.outbox = message; // sent again once the connection is back
      return false;
    }
    return true;
  }

  function sendOutbox() {
    const waiting = s.outbox;
    if (!waiting || !socket.isOpen || !s.view) return;
    s.outbox = null;
    const view = s.view;
    if (waiting.type === "play" && view.legal_cards.includes(waiting.card)) send(waiting);
    else if (waiting.type === "choose_row" && view.must_choose_row) send(waiting);
    else if (waiting.type === "play" && view.chosen_card !== waiting.card && view.phase === "choosing_cards") {
      if (view.hand.includes(waiting.card)) send(waiting);
    }
  }

  // -------------------------------------------------------------- actions

  function playCard(card) {
    const view = s.view;
    if (!view || !seated() || view.phase !== "choosing_cards" || !view.hand.includes(card)) return;
    if (s.animating) return; // the table is still showing the last turn: decide on what is current
    const current = s.pendingCard ?? view.chosen_card;
    s.handFocus = card;
    if (current === card) {
      // Tapping the lifted card again takes it back.
      s.pendingCard = null;
      send({ type: "retract" });
      announce(t("table.you_took_back", { card }));
    } else {
      s.pendingCard = card;
      send({ type: "play", card });
      announce(t("table.you_chose", { card }));
    }
    render();
  }

  function chooseRow(row) {
    if (!s.view || !s.view.must_choose_row) return;
    send({ type: "choose_row", row });
  }

  function rematch() {
    send({ type: "rematch" });
  }

  async function takeSeat(event) {
    event.preventDefault();
    const name = s.joinName.trim();
    if (!name) {
      s.joinError = t("start.name_missing");
      render();
      root.querySelector("#seat-name")?.focus();
      return;
    }
    s.joining = true;
    s.joinError = null;
    render();
    try {
      const seat = await api("POST", `/api/tables/${code}/join`, { name });
      safeSet("nimmt.name", name);
      safeSet(tokenKey(code), seat.token);
      s.token = seat.token;
      s.joining = false;
      socket.reconnectAs(seat.token);
    } catch (err) {
      s.joining = false;
      s.joinError = apiErrorText(err);
      render();
      root.querySelector("#seat-name")?.focus();
    }
  }

  /** This page holds no seat any more: forget the token, and reconnect as a spectator later. */
  function forgetSeat() {
    safeSet(tokenKey(code), null);
    s.token = null;
    socket.token = null;
    s.leaving = false;
    s.leaveRequest = null;
    s.pendingCard = null;
    s.outbox = null;
    closeLeaveDialog();
  }

  function leaveSeat(bot) {
    if (!seated()) return;
    const message = { type: "leave" };
    if (bot) message.bot = bot;
    // No version: leaving is not an answer to the current decision, so it is never stale.
    const requestId = socket.send(message);
    if (requestId === null) {
      showToast(t("table.leave_offline"));
      return;
    }
    s.leaving = true;
    s.leaveRequest = requestId;
    announce(t("table.leave_sent"));
  }

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

  function makeLeaveDialog() {
    const select = h("select", { id: "leave-bot", name: "bot" });
    const dialog = h("dialog", { class: "dialog", id: "leave-dialog", "aria-labelledby": "leave-title", "aria-describedby": "leave-explain" },
      h("form", { method: "dialog", class: "dialog-form" },
        h("h2", { id: "leave-title" }),
        h("p", { id: "leave-explain" }),
        h("div", { class: "field", id: "leave-bot-field" },
          h("label", { for: "leave-bot", id: "leave-bot-label" }),
          select),
        h("div", { class: "dialog-actions" },
          h("button", { type: "submit", value: "stay", class: "button ghost", id: "leave-cancel", autofocus: true }),
          h("button", { type: "submit", value: "leave", class: "button danger", id: "leave-confirm" }))));
    dialog.addEventListener("close", () => {
      const choice = dialog.returnValue;
      dialog.returnValue = "";
      if (choice === "leave" && !destroyed) leaveSeat(select.value);
      if (!destroyed) root.querySelector('[data-focus="leave-seat"]')?.focus();
    });
    document.body.append(dialog);
    return dialog;
  }

  /** Fill the dialog's texts for the current phase (the game may start while it is open). */
  function updateLeaveDialog() {
    if (!leaveDialog) return;
    const waiting = !s.view || s.view.phase === "waiting";
    const select = leaveDialog.querySelector("#leave-bot");
    const bots = s.bots || ["medium"];
    const chosen = select.value || (bots.includes("medium") ? "medium" : bots[0]);
    if (select.options.length !== bots.length || [...select.options].some((option, i) => option.value !== bots[i]) || select.dataset.lang !== document.documentElement.lang) {
      clear(select);
      for (const bot of bots) select.append(h("option", { value: bot, text: botLabel(bot) }));
      select.dataset.lang = document.documentElement.lang;
    }
    select.value = bots.includes(chosen) ? chosen : bots[0];
    leaveDialog.querySelector("#leave-title").textContent = t("leave.title");
    leaveDialog.querySelector("#leave-explain").textContent = waiting ? t("leave.explain_waiting") : t("leave.explain_game");
    leaveDialog.querySelector("#leave-bot-field").hidden = waiting;
    leaveDialog.querySelector("#leave-bot-label").textContent = t("leave.bot_label");
    leaveDialog.querySelector("#leave-cancel").textContent = t("leave.stay");
    leaveDialog.querySelector("#leave-confirm").textContent = waiting ? t("leave.confirm_waiting") : t("leave.confirm_game");
  }

  async function openLeaveDialog() {
    if (!seated() || s.leaving) return;
    await loadBots();
    if (destroyed || !seated()) return;
    if (!leaveDialog) leaveDialog = makeLeaveDialog();
    leaveDialog.querySelector("#leave-bot").value = "";
    updateLeaveDialog();
    leaveDialog.returnValue = "";
    if (!leaveDialog.open) leaveDialog.showModal();
    leaveDialog.querySelector("#leave-cancel").focus();
  }

  function closeLeaveDialog() {
    if (leaveDialog && leaveDialog.open) leaveDialog.close("stay");
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
    showToast(ok ? t("table.link_copied") : t("table.copy_failed"));
  }

  function setSpeed(speed) {
    s.speed = speed;
    safeSet("nimmt.speed", String(speed));
    render();
  }

  // ------------------------------------------------------------ animation

  function rowEl(row) {
    return root.querySelector(`.row[data-row="${row}"]`);
  }

  function seatEl(seat) {
    return root.querySelector(`.seat[data-seat="${seat}"]`);
  }

  function updateRowTotal(row) {
    const el = rowEl(row);
    if (!el) return;
    const cards = [...el.querySelectorAll(".slot .card")].map((card) => Number(card.dataset.card));
    const total = el.querySelector(".row-total-number");
    if (total) total.textContent = String(totalBullheads(cards));
  }

  function fly(el, from) {
    if (!from) return Promise.resolve();
    const to = el.getBoundingClientRect();
    const duration = dur(STEP_MS);
    if (!duration) return Promise.resolve();
    if (prefersReducedMotion()) {
      return el.animate([{ opacity: 0 }, { opacity: 1 }], { duration, easing: "ease-out" }).finished;
    }
    const dx = from.left - to.left;
    const dy = from.top - to.top;
    const scale = from.width / (to.width || 1);
    return el.animate(
      [
        { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 5 },
        { transform: "none", zIndex: 5 },
      ],
      { duration, easing: "cubic-bezier(.3,.7,.3,1)" },
    ).finished;
  }

  async function revealCards(cards) {
    const strip = root.querySelector(".reveal");
    if (!strip) return;
    clear(strip);
    strip.hidden = false;
    // Each player's card turns over in front of them ...
    cards.forEach((card, seat) => {
      const slot = seatEl(seat)?.querySelector(".seat-card");
      if (!slot) return;
      const face = cardEl(card);
      face.classList.add("flip");
      clear(slot).append(face);
    });
    if (seated()) root.querySelector(`.hand .card[data-card="${cards[mySeat()]}"]`)?.classList.add("played");
    // ... then all line up, lowest first, each with its player's name.
    const order = cards.map((card, seat) => ({ card, seat })).sort((a, b) => a.card - b.card);
    for (const { card, seat } of order) strip.append(revealItem(card, seat));
    const duration = dur(REVEAL_MS);
    if (duration && !prefersReducedMotion()) {
      strip.querySelectorAll(".reveal-item").forEach((item, index) => {
        item.animate([{ opacity: 0, transform: "translateY(-24px) rotateY(90deg)" }, { opacity: 1, transform: "none" }], {
          duration: duration / 2,
          delay: (index * duration) / (2 * order.length),
          fill: "backwards",
        });
      });
    }
    await sleep(duration);
  }

  async function takeRow(event) {
    const el = rowEl(event.row);
    if (!el) return;
    el.classList.add("taking");
    const target = seatEl(event.seat)?.querySelector(".seat-pile") || seatEl(event.seat);
    const to = target ? target.getBoundingClientRect() : null;
    const duration = dur(TAKE_MS);
    const sweeps = [...el.querySelectorAll(".slot .card")].map((card) => {
      if (!duration) return Promise.resolve();
      const from = card.getBoundingClientRect();
      const frames = prefersReducedMotion() || !to
        ? [{ opacity: 1 }, { opacity: 0 }]
        : [
            { transform: "none", opacity: 1 },
            {
              transform: `translate(${to.left + to.width / 2 - (from.left + from.width / 2)}px, ${to.top + to.height / 2 - (from.top + from.height / 2)}px) scale(.3)`,
              opacity: 0.2,
            },
          ];
      return card.animate(frames, { duration, easing: "ease-in", fill: "forwards" }).finished;
    });
    await Promise.all(sweeps);
    el.querySelectorAll(".slot").forEach((slot) => clear(slot));
    el.classList.remove("taking");
    updateRowTotal(event.row);
    const pile = seatEl(event.seat);
    if (pile) {
      const counter = pile.querySelector(".seat-round-number");
      if (counter) counter.textContent = String(Number(counter.textContent || 0) + event.bullheads);
      const total = pile.querySelector(".seat-total-number");
      if (total) total.textContent = String(Number(total.textContent || 0) + event.bullheads);
      pile.classList.remove("hit");
      void pile.offsetWidth; // restart the pulse
      pile.classList.add("hit");
    }
  }

  async function placeCard(event) {
    const el = rowEl(event.row);
    if (!el) return;
    const slots = [...el.querySelectorAll(".slot")];
    const free = slots.find((slot) => !slot.querySelector(".card"));
    if (!free) return;
    const source = root.querySelector(`.reveal-item[data-card="${event.card}"]`);
    const from = source ? source.querySelector(".card").getBoundingClientRect() : null;
    const card = cardEl(event.card);
    card.append(h("span", { class: "card-owner", text: nameOf(event.seat) }));
    free.append(card);
    if (source) source.classList.add("gone");
    updateRowTotal(event.row);
    await fly(card, from);
    card.querySelector(".card-owner")?.remove();
    await sleep(dur(STEP_MS) * 0.2);
  }

  async function playEvents(events, resync = false) {
    // A catch-up after a reconnection of more than about one turn is summed up, not replayed.
    const summarize = resync && (events.length > RESYNC_ANIMATE_MAX || events.filter((event) => event.type === "cards_revealed").length > 1);
    // Animate only on a drawn table, and not a backlog: a long queue is simply caught up.
    const animate = !summarize && Boolean(s.view) && root.querySelector(".rows") && queue.length < 4;
    s.animating = true;
    root.querySelector(".hand")?.classList.add("idle");
    try {
      if (summarize) announce(t("table.caught_up", { count: events.length }));
      await animateEvents(events, animate, summarize);
    } finally {
      s.animating = false;
    }
  }

  const SEAT_EVENTS = ["seat_left", "player_joined", "rematch_started", "game_over"];

  async function animateEvents(events, animate, quiet = false) {
    for (const event of events) {
      if (!quiet || SEAT_EVENTS.includes(event.type)) announceEvent(event);
      if (!animate) continue;
      if (event.type === "cards_revealed") await revealCards(event.cards);
      else if (event.type === "row_taken") await takeRow(event);
      else if (event.type === "card_placed") await placeCard(event);
      else if (event.type === "round_scored") {
        s.sheetOpen = true;
        await sleep(dur(400));
      } else if (event.type === "rematch_started") s.sheetOpen = false;
    }
    if (!animate && events.some((event) => event.type === "round_scored")) s.sheetOpen = true;
    if (events.some((event) => event.type === "rematch_started")) s.sheetOpen = false;
  }

  function announceEvent(event) {
    const me = mySeat();
    switch (event.type) {
      case "round_dealt":
        announce(t("events.round_dealt", { round: event.round }));
        break;
      case "cards_revealed": {
        const items = event.cards
          .map((card, seat) => ({ card, seat }))
          .sort((a, b) => a.card - b.card)
          .map(({ card, seat }) => t("events.revealed_item", { name: nameOf(seat), card }));
        announce(t("events.cards_revealed", { cards: formatList(items) }));
        break;
      }
      case "row_choice_required":
        announce(
          event.seat === me
            ? t("table.prompt_choose_row", { card: event.card })
            : t("events.row_choice_required", { name: nameOf(event.seat), card: event.card }),
        );
        break;
      case "row_taken":
        announce(
          t(event.seat === me ? "events.row_taken_you" : "events.row_taken", {
            name: nameOf(event.seat),
            row: event.row + 1,
            count: event.bullheads,
          }),
        );
        break;
      case "card_placed":
        announce(t("events.card_placed", { name: nameOf(event.seat), card: event.card, row: event.row + 1 }));
        break;
      case "round_scored":
        announce(t("events.round_scored", { round: event.round }));
        break;
      case "game_over":
        announce(winnersText(event.winners, event.totals));
        break;
      case "rematch_started":
        announce(t("events.rematch_started"));
        break;
      case "player_joined":
        showNotice(t("events.player_joined", { name: event.name || nameOf(event.seat) }));
        break;
      case "seat_left":
        seatLeft(event);
        break;
      default:
        break;
    }
  }

  function seatLeft(event) {
    const name = event.name || nameOf(event.seat);
    const mine = event.seat === mySeat();
    if (mine) forgetSeat(); // the server made this socket a spectator; the token is void
    if (event.bot) {
      const bot = botLabel(event.bot);
      showNotice(mine ? t("events.you_left_bot", { bot }) : t("events.seat_left_bot", { name, bot }));
    } else {
      showNotice(mine ? t("events.you_left") : t("events.seat_left", { name }));
    }
  }

  function winnersText(winners, totals) {
    const total = totals[winners[0]];
    const names = formatList(winners.map((seat) => (seat === mySeat() ? t("table.you") : nameOf(seat))));
    if (winners.length === 1 && winners[0] === mySeat()) return t("table.winner_you", { count: total });
    if (winners.length === 1) return t("table.winner_one", { name: names, count: total });
    return t("table.winners_many", { names, count: total });
  }

  // ------------------------------------------------------------- drawing

  function focusKeyOf(el) {
    const holder = el && el.closest && el.closest("[data-focus]");
    return holder ? holder.dataset.focus : null;
  }

  function render() {
    if (destroyed) return;
    const active = document.activeElement;
    const focusWasHere = !active || active === document.body || root.contains(active);
    const key = focusWasHere ? focusKeyOf(active) : null;
    const mustChoose = Boolean(s.view && s.view.must_choose_row);
    const newDecision = mustChoose && !s.lastMustChoose;
    s.lastMustChoose = mustChoose;

    clear(root);
    if (s.fatal) {
      const title = has(`errors.${s.fatal}_title`) ? t(`errors.${s.fatal}_title`) : t("errors.table_not_found_title");
      root.append(
        h("section", { class: "page-message" },
          h("h1", { text: title }),
          h("p", { text: errorText(s.fatal) }),
          h("p", {}, h("a", { class: "button primary", href: "/", text: t("app.home") }))),
      );
      return;
    }
    if (!s.view) {
      root.append(h("p", { class: "page-message loading", text: t("table.connecting") }));
      return;
    }
    if (leaveDialog && leaveDialog.open) {
      if (seated() && !s.leaving) updateLeaveDialog();
      else closeLeaveDialog();
    }
    const page = h("div", { class: "table-page", style: { "--step": `${STEP_MS / s.speed}ms` } },
      toolbar(), seatsSection(), board(), handSection());
    root.append(page);
    if (s.sheetOpen && (s.view.score_sheet.length || s.view.outcome)) root.append(scoreSheet());

    // Focus: keep it where it was; follow a new decision; never leave it on nothing.
    let target = null;
    if (s.sheetOpen && root.querySelector(".sheet")) {
      target = root.querySelector(`.sheet [data-focus="${key}"]`) || root.querySelector(".sheet [data-focus=sheet-main]");
    } else if (newDecision) {
      target = root.querySelector('[data-focus="row-0"]');
    } else if (key) {
      target = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (!target && key.startsWith("card-")) target = root.querySelector('.hand [tabindex="0"]');
      if (!target && key.startsWith("row-")) target = root.querySelector('.hand [tabindex="0"]');
      if (!target) target = root.querySelector(".status");
    }
    if (target && focusWasHere) target.focus({ preventScroll: true });
  }

  function toolbar() {
    const view = s.view;
    const info =
      view.phase === "waiting"
        ? t("table.info_waiting")
        : view.phase === "game_over"
          ? t("table.info_game_over", { round: view.round })
          : t("table.info_round", { round: view.round, turn: Math.min(view.turn + 1, 10) });
    const speed = h("div", { class: "speed", role: "group", "aria-label": t("table.speed") },
      h("span", { class: "speed-label", "aria-hidden": "true", text: t("table.speed") }),
      SPEEDS.map((value) =>
        h("button", {
          type: "button", class: "chip", "aria-pressed": String(value === s.speed), "data-focus": `speed-${value}`,
          "aria-label": t("table.speed_value", { speed: value }), text: `${value}×`, on: { click: () => setSpeed(value) },
        })));
    return h("div", { class: "table-bar" },
      h("div", { class: "table-id" },
        h("span", { class: "muted", text: t("table.code_label") }),
        h("strong", { class: "code", id: "table-code", text: code }),
        h("button", { type: "button", class: "chip", "data-focus": "copy-link", text: t("table.copy_link"), on: { click: copyLink } })),
      h("div", { class: "table-info", text: info }),
      h("div", { class: "table-tools" },
        speed,
        view.score_sheet.length
          ? h("button", { type: "button", class: "chip", "data-focus": "open-sheet", text: t("table.score_sheet"),
              on: { click: () => { s.sheetOpen = true; render(); } } })
          : null,
        view.phase === "game_over"
          ? h("a", { class: "chip", href: `/api/tables/${code}/record`, download: `nimmt-${code}.json`, "data-focus": "download-bar", text: t("table.download") })
          : null,
        seated()
          ? h("button", {
              type: "button", class: "chip leave", id: "leave-seat", "data-focus": "leave-seat", "aria-haspopup": "dialog",
              disabled: s.leaving, text: s.leaving ? t("table.leaving") : t("table.leave_seat"), on: { click: openLeaveDialog },
            })
          : null));
  }

  function seatState(seat) {
    const view = s.view;
    const info = s.table ? s.table.seats[seat] : null;
    if (info && info.kind === "human" && !info.occupied) return { key: "empty", text: t("seat.state_empty") };
    if (view.pending_row_choice && view.pending_row_choice.seat === seat) return { key: "row", text: t("seat.state_row") };
    if (view.phase === "choosing_cards") {
      if (view.has_chosen[seat]) return { key: "chosen", text: t("seat.state_chosen") };
      return { key: "thinking", text: t("seat.state_thinking") };
    }
    if (view.phase === "choosing_row") return { key: "waiting", text: t("seat.state_waiting") };
    if (view.phase === "waiting") return { key: "ready", text: t("seat.state_ready") };
    return { key: "idle", text: "" };
  }

  function seatsSection() {
    const view = s.view;
    const count = players();
    const list = h("ul", { class: "seats", "aria-label": t("table.players") });
    const best = view.phase === "game_over" && view.outcome ? view.outcome.winners : [];
    for (let seat = 0; seat < count; seat += 1) {
      const info = s.table ? s.table.seats[seat] : null;
      const state = seatState(seat);
      const roundPoints = view.penalties[seat] || 0;
      const total = (view.totals[seat] || 0) + (view.phase === "game_over" ? 0 : roundPoints);
      const isMe = seat === mySeat();
      const offline = info && info.kind === "human" && info.occupied && !info.connected;
      let cardSlot = null;
      if (view.revealed) cardSlot = cardEl(view.revealed[seat]);
      else if (state.key === "chosen") cardSlot = cardBackEl();
      list.append(
        h("li", {
          class: `seat state-${state.key}${isMe ? " me" : ""}${offline ? " offline" : ""}${best.includes(seat) ? " winner" : ""}`,
          "data-seat": seat,
        },
          h("div", { class: "seat-card" }, cardSlot),
          h("div", { class: "seat-info" },
            h("div", { class: "seat-name" },
              h("span", { class: "seat-name-text", text: nameOf(seat) }),
              isMe ? h("span", { class: "badge", text: t("seat.you") }) : null,
              info && info.kind === "bot" ? h("span", { class: "badge bot", text: t("seat.bot") }) : null),
            h("div", { class: "seat-state", text: offline ? t("seat.state_offline") : state.text }),
            h("div", { class: "seat-pile", "aria-label": t("seat.score_label", { round: roundPoints, total }) },
              h("span", { class: "pile-part", "aria-hidden": "true" },
                h("span", { class: "head" }), h("span", { class: "seat-round-number", text: String(roundPoints) })),
              h("span", { class: "pile-part total", "aria-hidden": "true" },
                h("span", { class: "sigma", text: "Σ" }), h("span", { class: "seat-total-number", text: String(total) }))))),
      );
    }
    return h("section", { class: "seats-area", "aria-label": t("table.players") }, list);
  }

  function statusText() {
    const view = s.view;
    const me = mySeat();
    const waitingNames = formatList((view.waiting_for || []).filter((seat) => seat !== me).map(nameOf));
    switch (view.phase) {
      case "waiting": {
        const seats = s.table ? s.table.seats.filter((seat) => seat.kind === "human") : [];
        const taken = seats.filter((seat) => seat.occupied).length;
        return t("table.prompt_waiting_players", { count: taken, total: seats.length });
      }
      case "choosing_cards": {
        if (!seated()) return waitingNames ? t("table.prompt_others_choosing", { names: waitingNames }) : t("table.prompt_revealing");
        const chosen = s.pendingCard ?? view.chosen_card;
        if (chosen === null || chosen === undefined) return t("table.prompt_choose_card");
        return waitingNames
          ? t("table.prompt_chosen_wait", { card: chosen, names: waitingNames })
          : t("table.prompt_revealing");
      }
      case "choosing_row": {
        const pending = view.pending_row_choice;
        if (pending && pending.seat === me) return t("table.prompt_choose_row", { card: pending.card });
        if (pending) return t("table.prompt_waits_for_row", { name: nameOf(pending.seat), card: pending.card });
        return "";
      }
      case "dealing":
        return t("table.prompt_dealing");
      case "game_over":
        return view.outcome ? winnersText(view.outcome.winners, view.outcome.totals) : t("table.info_game_over", { round: view.round });
      default:
        return "";
    }
  }

  function revealItem(card, seat) {
    return h("div", { class: `reveal-item${seat === mySeat() ? " mine" : ""}`, "data-card": card, "data-seat": seat },
      cardEl(card),
      h("span", { class: "reveal-name", text: seat === mySeat() ? t("seat.you") : nameOf(seat) }));
  }

  function board() {
    const view = s.view;
    const must = Boolean(view.must_choose_row);
    const status = h("p", {
      class: `status${must ? " urgent" : ""}`, id: "status", tabindex: "-1", "data-focus": "status",
      text: statusText(),
    });
    const reveal = h("div", { class: "reveal", "aria-label": t("table.revealed"), hidden: !view.revealed });
    if (view.revealed) {
      view.revealed
        .map((card, seat) => ({ card, seat }))
        .sort((a, b) => a.card - b.card)
        .forEach(({ card, seat }, index) => {
          const item = revealItem(card, seat);
          if (index === 0) item.classList.add("too-low");
          reveal.append(item);
        });
    }
    const rows = h("div", { class: `rows${must ? " choosing" : ""}`, role: must ? "group" : null, "aria-label": t("table.rows") });
    const cardsRows = view.rows.length ? view.rows : [[], [], [], []];
    cardsRows.forEach((cards, index) => {
      const total = totalBullheads(cards);
      const slots = Array.from({ length: 6 }, (_, place) =>
        h("div", { class: `slot${place === 5 ? " sixth" : ""}` }, cards[place] ? cardEl(cards[place]) : null));
      const totalEl = h("span", { class: "row-side" },
        h("span", { class: "row-total", title: t("table.row_total", { count: total }) },
          h("span", { class: "head big", "aria-hidden": "true" }),
          h("span", { class: "row-total-number", text: String(total) })),
        must ? h("span", { class: "row-cost", "aria-hidden": "true", text: t("table.row_cost", { count: total }) }) : null);
      const label = t("table.row_label", { row: index + 1, cards: cards.join(", ") || "–", count: total });
      if (must) {
        rows.append(
          h("button", {
            type: "button", class: "row choosable", "data-row": index, "data-focus": `row-${index}`,
            "aria-label": t("table.row_choice_label", { row: index + 1, count: total, cards: cards.join(", ") }),
            on: { click: () => chooseRow(index), keydown: (event) => rowKeys(event, index) },
          },
            h("span", { class: "row-slots" }, slots), totalEl),
        );
      } else {
        rows.append(h("div", { class: "row", "data-row": index, role: "group", "aria-label": label },
          h("span", { class: "row-slots" }, slots), totalEl));
      }
    });
    const parts = [status];
    if (view.phase === "waiting") parts.push(invitePanel());
    parts.push(reveal, rows);
    return h("section", { class: "board", "aria-label": t("table.board") }, parts);
  }

  function rowKeys(event, index) {
    const moves = { ArrowUp: -1, ArrowLeft: -1, ArrowDown: 1, ArrowRight: 1 };
    if (event.key in moves) {
      event.preventDefault();
      root.querySelector(`[data-focus="row-${(index + moves[event.key] + 4) % 4}"]`)?.focus();
    }
  }

  function invitePanel() {
    const url = `${location.origin}/t/${code}`;
    return h("div", { class: "invite" },
      h("p", { text: t("table.invite_text") }),
      h("div", { class: "invite-line" },
        h("label", { class: "visually-hidden", for: "share-url", text: t("table.invite_link") }),
        h("input", { id: "share-url", type: "text", readonly: true, value: url, "data-focus": "share-url", on: { focus: (event) => event.target.select() } }),
        h("button", { type: "button", class: "button primary", "data-focus": "copy-invite", text: t("table.copy_link"), on: { click: copyLink } })),
      h("p", { class: "muted" }, t("table.invite_code", { code })));
  }

  function handSection() {
    const view = s.view;
    if (!seated()) return spectatorPanel();
    const chosen = s.pendingCard ?? view.chosen_card;
    const canPlay = view.phase === "choosing_cards";
    const hand = view.hand;
    if (!hand.includes(s.handFocus)) s.handFocus = chosen ?? hand[0] ?? null;
    const cards = hand.map((card) => {
      const lifted = card === chosen;
      return cardEl(card, {
        tag: "button",
        attrs: {
          type: "button",
          class: `card bh-${bullheads(card)}${card >= 100 ? " n3" : ""}${lifted ? " lifted" : ""}`,
          tabindex: card === s.handFocus ? "0" : "-1",
          "aria-pressed": String(lifted),
          "aria-disabled": canPlay ? null : "true",
          "data-focus": `card-${card}`,
          on: {
            click: () => playCard(card),
            focus: () => { s.handFocus = card; },
          },
        },
      });
    });
    const handEl = h("div", {
      class: `hand${canPlay ? "" : " idle"}`, role: "group", "aria-label": t("table.your_hand"),
      on: { keydown: handKeys },
    }, cards);
    return h("section", { class: "hand-area", "aria-label": t("table.your_hand") },
      h("h2", { class: "visually-hidden", text: t("table.your_hand") }),
      hand.length ? handEl : h("p", { class: "muted hand-empty", text: emptyHandText(view.phase) }),
      canPlay && hand.length ? h("p", { class: "hint", text: t("table.keyboard_hint") }) : null);
  }

  function emptyHandText(phase) {
    if (phase === "waiting") return t("table.hand_waiting");
    if (phase === "game_over") return t("table.hand_game_over");
    return t("table.hand_empty");
  }

  function handKeys(event) {
    const hand = s.view ? s.view.hand : [];
    if (!hand.length) return;
    const index = Math.max(0, hand.indexOf(s.handFocus));
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = hand[Math.min(hand.length - 1, index + 1)];
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = hand[Math.max(0, index - 1)];
    else if (event.key === "Home") next = hand[0];
    else if (event.key === "End") next = hand[hand.length - 1];
    else if (/^[0-9]$/.test(event.key)) {
      // Typing a card's number ("4", "2") moves to card 42.
      clearTimeout(s.typedTimer);
      s.typed = (s.typed + event.key).slice(-3);
      s.typedTimer = setTimeout(() => { s.typed = ""; }, 1200);
      const wanted = Number(s.typed);
      next = hand.find((card) => card === wanted) ?? hand.find((card) => String(card).startsWith(s.typed)) ?? null;
    }
    if (next === null || next === undefined) return;
    event.preventDefault();
    s.handFocus = next;
    for (const button of root.querySelectorAll(".hand .card")) {
      button.tabIndex = Number(button.dataset.card) === next ? 0 : -1;
    }
    root.querySelector(`.hand .card[data-card="${next}"]`)?.focus();
  }

  function spectatorPanel() {
    const seats = s.table ? s.table.seats : [];
    const free = seats.some((seat) => seat.kind === "human" && !seat.occupied);
    if (!free || s.view.phase === "game_over") {
      return h("section", { class: "hand-area spectator" }, h("p", { class: "muted", text: t("table.watching") }));
    }
    return h("section", { class: "hand-area spectator" },
      h("form", { class: "take-seat", on: { submit: takeSeat } },
        h("h2", { text: t("table.take_seat_title") }),
        h("div", { class: "field inline" },
          h("label", { for: "seat-name", text: t("start.your_name") }),
          h("input", { id: "seat-name", type: "text", maxlength: 24, value: s.joinName, autocomplete: "nickname", "data-focus": "seat-name",
            on: { input: (event) => { s.joinName = event.target.value; } } }),
          h("button", { type: "submit", class: "button primary", id: "take-seat", disabled: s.joining, "data-focus": "take-seat", text: t("table.take_seat") })),
        s.joinError ? h("p", { class: "form-error", role: "alert", text: s.joinError }) : null,
        h("p", { class: "muted", text: t("table.watching_until") })));
  }

  function scoreSheet() {
    const view = s.view;
    const over = view.phase === "game_over" && view.outcome;
    const rounds = view.score_sheet;
    const totals = over ? view.outcome.totals : view.totals;
    const lowest = Math.min(...totals);
    const close = () => {
      s.sheetOpen = false;
      render();
      (root.querySelector('.hand [tabindex="0"]') || root.querySelector(".status"))?.focus();
    };
    const table = h("table", { class: "sheet-table" },
      h("caption", { class: "visually-hidden", text: t("sheet.caption") }),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: t("sheet.player") }),
        rounds.map((_, index) => h("th", { scope: "col", text: t("sheet.round_short", { round: index + 1 }) })),
        h("th", { scope: "col", class: "total", text: t("sheet.total") }))),
      h("tbody", {}, totals.map((total, seat) =>
        h("tr", { class: total === lowest ? "best" : "" },
          h("th", { scope: "row" }, nameOf(seat), seat === mySeat() ? h("span", { class: "badge", text: t("seat.you") }) : null),
          rounds.map((line) => h("td", { text: String(line[seat]) })),
          h("td", { class: "total" },
            h("span", { text: String(total) }),
            total === lowest ? h("span", { class: "lowest-mark", title: t("sheet.lowest"), text: " ★" }) : null,
            total === lowest ? h("span", { class: "visually-hidden", text: t("sheet.lowest") }) : null)))));
    const title = over ? t("sheet.game_over") : t("sheet.after_round", { round: rounds.length });
    const actions = over
      ? [
          seated() ? h("button", { type: "button", class: "button primary", id: "rematch", "data-focus": "sheet-main", text: t("sheet.rematch"), on: { click: rematch } }) : null,
          h("a", { class: "button", href: `/api/tables/${code}/record`, download: `nimmt-${code}.json`, id: "download-record", "data-focus": seated() ? "download" : "sheet-main", text: t("table.download") }),
          h("button", { type: "button", class: "button ghost", "data-focus": "sheet-close", text: t("sheet.show_table"), on: { click: close } }),
        ]
      : [h("button", { type: "button", class: "button primary", id: "sheet-continue", "data-focus": "sheet-main", text: t("sheet.continue"), on: { click: close } })];
    const sheet = h("section", {
      class: `sheet${over ? " final" : ""}`, role: "dialog", "aria-modal": "false", "aria-labelledby": "sheet-title",
      on: { keydown: (event) => { if (event.key === "Escape") close(); } },
    },
      h("h2", { id: "sheet-title", text: title }),
      over ? h("p", { class: "winners", text: winnersText(view.outcome.winners, view.outcome.totals) }) : h("p", { class: "muted", text: t("sheet.rule_reminder") }),
      h("div", { class: "sheet-scroll" }, table),
      h("div", { class: "sheet-actions" }, actions));
    return h("div", { class: "sheet-backdrop" }, sheet);
  }

  // ------------------------------------------------------------------ start

  render();
  socket.connect();
  const onVisible = () => {
    if (!document.hidden && !socket.isOpen && s.connection === "lost") socket.connect();
  };
  document.addEventListener("visibilitychange", onVisible);
  const onDigit = (event) => {
    // Numbers 1 to 4 pick a row when the table waits for your row choice.
    if (!s.view || !s.view.must_choose_row || event.target.closest("input, select, textarea")) return;
    if (/^[1-4]$/.test(event.key)) {
      event.preventDefault();
      root.querySelector(`[data-focus="row-${Number(event.key) - 1}"]`)?.focus();
    }
  };
  document.addEventListener("keydown", onDigit);

  return {
    rerender: render,
    destroy() {
      destroyed = true;
      socket.close();
      if (leaveDialog) {
        if (leaveDialog.open) leaveDialog.close();
        leaveDialog.remove();
      }
      if (notice) {
        clear(notice);
        notice.hidden = true;
      }
      document.removeEventListener("visibilitychange", onVisible);
      document.removeEventListener("keydown", onDigit);
      setBanner(null);
    },
  };
}
