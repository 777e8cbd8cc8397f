// The assistant's page ("/t/{code}" of an assisted table): a game played with a real deck,
// entered on the device that started it, followed live by everyone else with the link.
//
// The device holding the table's token enters each round's four starting row cards and each
// turn's revealed cards (one number field per player, in order; see assist/fields.js), and,
// when a card is below every row, the row its player names. The server places the cards with
// the engine and sends the usual table messages (docs/protocol.md): an `events` message is
// animated (the cards lowest first, then one by one into their rows), then the `state` is
// drawn. The entry panel follows the newest state at once, so typing never waits for the
// animation. Undo (button or Ctrl+Z) takes back the last entry; a turn or the rows taken back
// come back into the fields, ready to be corrected (undo is also the way to edit).

import { errorText, tokenKey } from "./api.js";
import { cannotGrow, digitsOf, problemOf } from "./assist/fields.js";
import { clear, h } from "./dom.js";
import { createFeed } from "./feed.js";
import { formatList, has, safeGet, safeSet, t } from "./i18n.js";
import { STEP_MS, animateEvent } from "./kit/animate.js";
import { recordLink, renderNotReady, renderReveal, renderRows, renderScoreTable, renderSpeed, renderStatus } from "./kit/render.js";
import { rowKeydown } from "./kit/keys.js";
import { speedFrom } from "./kit/state.js";
import { eventSentence, winnersText as winnersSentence } from "./kit/text.js";

export function mountAssist(root, code) {
  const s = {
    token: safeGet(tokenKey(code)),
    version: null,
    table: null,
    view: null, // the newest state's view (the entry panel follows it)
    shown: null, // the view drawn on the board (after the animations)
    fatal: null,
    speed: speedFrom(safeGet("nimmt.speed")),
    entryKey: null, // which entry the fields are for ("cards/3/4", "rows/2", ...)
    values: [], // the fields' digits
    refill: null, // cards to put back in the fields after an undo
    problem: null, // {index, code, card} refused in place, or a server refusal {code, details}
    sending: false,
    undone: false, // the events before the next state took an entry back
    focusEntry: false, // a new entry (or a refusal): put the focus in its fields
    focusRows: false, // a new row question: put the focus on the first row once it is drawn
    sheetOpen: false,
    animating: false,
  };
  let destroyed = false;
  const announcer = document.getElementById("announcer");
  const banner = document.getElementById("banner");
  const toast = document.getElementById("toast");
  let toastTimer = null;

  // The socket's messages (feed.js): the entry panel follows each state at once, the board
  // animates the events in order and then draws the state after them.
  const feed = createFeed(code, s.token, {
    arrive: {
      events: (message) => {
        if ((message.events || []).some((event) => event.type === "entry_undone")) s.undone = true;
      },
      state: takeState,
    },
    play: {
      events: (message) => playEvents(message.events || []),
      state: (message) => {
        s.shown = message.view;
        renderBoard();
      },
    },
    onError: handleError,
    onStatus: connectionChanged,
    reconnectOnVisible: true,
  });

  // ------------------------------------------------------------------ helpers

  const enters = () => Boolean(s.token);
  const names = () => (s.view ? s.view.names : []);
  const nameOf = (seat) => names()[seat] || t("seat.empty_name", { number: seat + 1 });
  const words = { t, formatList, has, nameOf, me: null };
  const motion = { get speed() { return s.speed; }, nameOf, me: null };

  function announce(text) {
    announcer.append(h("p", { text }));
    while (announcer.childNodes.length > 6) announcer.firstChild.remove();
  }

  function showToast(text) {
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toast.hidden = true; }, 5000);
  }

  function setBanner(text) {
    banner.textContent = text || "";
    banner.hidden = !text;
  }

  /** The sentence for a refusal: the assistant's own words when it has them. */
  function problemText(problem) {
    const params = { card: "", row: "", count: 0, ...(problem.details || {}), ...problem };
    if (params.expected !== undefined) params.count = params.expected;
    if (has(`assist.errors.${problem.code}`)) return t(`assist.errors.${problem.code}`, params);
    return errorText(problem.code, problem.message);
  }

  // ----------------------------------------------------------- the connection

  function connectionChanged(status, info) {
    if (destroyed) return;
    if (status === "open") {
      if (info.again) announce(t("table.reconnected"));
      setBanner(null);
    } else if (status === "lost") {
      s.sending = false;
      setBanner(t("table.connection_lost"));
    } else if (status === "refused") {
      setBanner(null);
      if (!s.fatal) s.fatal = info.reason;
      render();
    }
  }

  function handleError(message) {
    if (message.code === "bad_token") {
      // This device does not enter this game (a token from elsewhere): it follows it.
      safeSet(tokenKey(code), null);
      s.token = null;
      feed.token = null;
      render();
      return;
    }
    s.sending = false;
    s.refill = null;
    s.problem = { code: message.code, details: message.details, message: message.message };
    s.focusEntry = true;
    renderEntry();
    announce(problemText(s.problem));
  }

  /** The newest state: the entry panel follows it at once (the board after the animations). */
  function takeState(message) {
    const before = s.view;
    s.version = message.version;
    s.table = message.table || s.table;
    s.view = message.view;
    s.sending = false;
    const key = entryKeyOf(s.view);
    if (key !== s.entryKey) {
      const refill = s.refill || (s.undone ? undoneCards(before, s.view) : null);
      s.refill = null;
      s.entryKey = key;
      s.values = refill ? refill.map(String) : [];
      s.problem = null;
      s.focusEntry = true;
      if (key.startsWith("row/")) s.focusRows = true;
      if (key.startsWith("cards/") && s.view.turn === 0) s.sheetOpen = false;
    }
    s.undone = false;
    if (before && before.phase !== "game_over" && s.view.phase === "game_over") s.sheetOpen = true;
    if (!s.shown) s.shown = s.view;
    renderEntry();
  }

  function entryKeyOf(view) {
    if (!view) return null;
    if (view.phase === "dealing") return `rows/${view.round}/${view.score_sheet.length}`;
    if (view.phase === "choosing_cards") return `cards/${view.round}/${view.turn}`;
    if (view.phase === "choosing_row") return `row/${view.round}/${view.turn}`;
    return view.phase;
  }

  /** The cards of the entry an undo took back, to correct them in the fields. */
  function undoneCards(before, after) {
    if (!before || !after || after.round !== before.round) return null;
    if (after.phase === "choosing_cards" && before.phase === "choosing_row" && before.turn === after.turn) return before.revealed;
    if (after.phase === "choosing_cards" && before.phase === "choosing_cards" && before.turn === after.turn + 1) {
      return before.played[after.turn] || null;
    }
    if (after.phase === "dealing" && before.phase === "choosing_cards" && before.turn === 0) return before.round_rows;
    return null;
  }

  // -------------------------------------------------------------- entering

  function send(message) {
    if (feed.send({ ...message, version: s.version }) === null) {
      s.problem = { code: "network" };
      renderEntry();
      return false;
    }
    s.sending = true;
    return true;
  }

  /** The cards that count as seen for the entry now: nothing for new rows, else the round's. */
  function seenCards() {
    const view = s.view;
    if (!view || view.phase !== "choosing_cards") return new Set();
    return new Set([...view.round_rows, ...view.played.flat()]);
  }

  const fieldCount = () => (s.view.phase === "dealing" ? 4 : s.view.names.length);
  const fields = () => [...root.querySelectorAll(".assist-field")];
  const numbers = () => Array.from({ length: fieldCount() }, (_, i) => (s.values[i] ? Number(s.values[i]) : null));

  /** Check field `index`; mark it; return its problem (null: fine or still empty). */
  function checkField(index) {
    const digits = s.values[index] || "";
    if (!digits) return null;
    const problem = problemOf(Number(digits), index, numbers(), seenCards());
    return problem ? { index, ...problem } : null;
  }

  function showProblem(problem, tell = true) {
    s.problem = problem;
    const box = root.querySelector("#assist-problem");
    if (box) {
      box.textContent = problem ? problemText(problem) : "";
      box.hidden = !problem;
    }
    fields().forEach((field, index) => {
      const bad = Boolean(problem && problem.index === index);
      field.classList.toggle("invalid", bad);
      field.setAttribute("aria-invalid", String(bad));
    });
    if (problem && tell) announce(problemText(problem));
  }

  /** Field `index` is done: check it, then move on (the next field, or the submit button). */
  function complete(index) {
    const problem = checkField(index);
    if (problem) {
      showProblem(problem);
      const field = fields()[index];
      field.focus();
      field.select();
      return false;
    }
    if (s.problem && (s.problem.index === index || s.problem.index === undefined)) showProblem(null);
    const next = fields().findIndex((_, at) => at > index && !s.values[at]);
    const target = next >= 0 ? fields()[next] : root.querySelector("#assist-submit");
    target?.focus();
    return true;
  }

  function onInput(event, index) {
    const field = event.target;
    const digits = digitsOf(field.value);
    if (field.value !== digits) field.value = digits;
    s.values[index] = digits;
    if (s.problem && s.problem.index === index) showProblem(null);
    if (s.problem && s.problem.index === undefined) showProblem(null);
    if (cannotGrow(digits)) complete(index);
  }

  /** Leaving a field by tapping another (a phone's number pad has no Enter): check it there. */
  function onBlur(index) {
    const problem = checkField(index);
    if (problem && !(s.problem && s.problem.index === index)) showProblem(problem);
  }

  function onFieldKey(event, index) {
    const field = event.target;
    if (event.key === "Enter") {
      event.preventDefault();
      if (!field.value) submit(); // says which card is missing
      else if (complete(index) && numbers().every((card) => card !== null)) submit();
    } else if (event.key === " ") {
      event.preventDefault();
      if (field.value) complete(index);
    } else if (event.key === "Backspace" && !field.value && index > 0) {
      event.preventDefault();
      const previous = fields()[index - 1];
      previous.focus();
      previous.setSelectionRange(previous.value.length, previous.value.length);
    }
  }

  function submit(event) {
    if (event) event.preventDefault();
    if (s.sending || !s.view) return;
    const cards = numbers();
    const missing = cards.findIndex((card) => card === null);
    if (missing >= 0) {
      showProblem({ index: missing, code: s.view.phase === "dealing" ? "rows_missing" : "card_missing", name: nameOf(missing) });
      fields()[missing].focus();
      return;
    }
    for (let index = 0; index < cards.length; index += 1) {
      const problem = checkField(index);
      if (problem) {
        showProblem(problem);
        fields()[index].focus();
        return;
      }
    }
    const type = s.view.phase === "dealing" ? "assist_rows" : "assist_turn";
    if (send({ type, cards })) renderEntry();
  }

  function chooseRow(row) {
    if (!enters() || s.sending || !s.view || s.view.phase !== "choosing_row") return;
    if (send({ type: "assist_row", row })) renderEntry();
  }

  function undo() {
    if (!enters() || s.sending || !s.view || !canUndo()) return;
    if (send({ type: "assist_undo" })) {
      announce(t("assist.undo_sent"));
      renderEntry();
    }
  }

  /** At the row question: back to the turn's cards, in the fields, to correct them. */
  function editTurn() {
    if (!s.view || s.view.phase !== "choosing_row") return;
    s.refill = s.view.revealed;
    undo();
  }

  const canUndo = () => Boolean(s.view && (s.view.round > 0 || s.view.phase !== "dealing"));

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
    if (event.type === "row_choice_required") announce(t("assist.row_question", { name: nameOf(event.seat), card: event.card }));
    else if (event.type === "round_scored") announce(t("assist.round_over", { round: event.round }));
    else if (event.type === "entry_undone") announce(t("assist.undone"));
    else {
      const said = eventSentence(event, words);
      if (said) announce(said.text);
    }
  }

  const winnersText = (winners, totals) => winnersSentence(winners, totals, words);

  // ------------------------------------------------------------- drawing

  function render() {
    if (destroyed) return;
    clear(root);
    const notReady = renderNotReady({ fatal: s.fatal, hasView: Boolean(s.view), errorText });
    if (notReady) {
      root.append(notReady);
      return;
    }
    root.append(h("div", { class: "assist-page table-page", style: { "--step": `${STEP_MS / s.speed}ms` } },
      h("div", { class: "assist-bar-holder" }),
      h("div", { class: "assist-board-holder" }),
      h("div", { class: "assist-entry-holder" }),
      h("div", { class: "assist-sheet-holder" })));
    renderBoard();
    renderEntry();
  }

  function renderBoard() {
    if (destroyed) return;
    if (!root.querySelector(".assist-page")) {
      render();
      return;
    }
    const holder = root.querySelector(".assist-board-holder");
    const focusKey = focusedKey(holder);
    clear(holder).append(playersSection(), board());
    clear(root.querySelector(".assist-bar-holder")).append(toolbar());
    clear(root.querySelector(".assist-sheet-holder")).append(sheetSection());
    const asked = s.focusRows && root.querySelector('.assist-board [data-focus="row-0"]');
    if (asked) {
      s.focusRows = false;
      asked.focus();
    } else if (focusKey) root.querySelector(`[data-focus="${focusKey}"]`)?.focus({ preventScroll: true });
  }

  function focusedKey(within) {
    const active = document.activeElement;
    if (!active || !root.contains(active)) return null;
    if (within && !within.contains(active) && !root.querySelector(".assist-bar-holder").contains(active) && !root.querySelector(".assist-sheet-holder").contains(active)) return null;
    return active.closest("[data-focus]")?.dataset.focus || null;
  }

  function toolbar() {
    const view = s.shown;
    const info = view.phase === "game_over"
      ? t("table.info_game_over", { round: view.round })
      : view.phase === "dealing"
        ? t("assist.info_rows", { round: view.round + 1 })
        : t("table.info_round", { round: view.round, turn: Math.min(view.turn + 1, 10) });
    return h("div", { class: "table-bar" },
      h("div", { class: "table-id" },
        h("span", { class: "muted", text: t("table.code_label") }),
        h("strong", { class: "code", id: "table-code", text: code }),
        h("button", { type: "button", class: "chip", "data-focus": "copy-link", text: t("table.copy_link"), on: { click: copyLink } })),
      h("div", { class: "table-info", text: info }),
      h("div", { class: "table-tools" },
        renderSpeed(s.speed, (value) => { s.speed = value; safeSet("nimmt.speed", String(value)); renderBoard(); }),
        view.score_sheet.length
          ? h("button", { type: "button", class: "chip", id: "open-sheet", "data-focus": "open-sheet", "aria-expanded": String(s.sheetOpen),
              text: t("table.score_sheet"), on: { click: () => { s.sheetOpen = !s.sheetOpen; renderBoard(); } } })
          : null,
        recordLink(code, { class: "chip", "data-focus": "download-bar" })));
  }

  function playersSection() {
    const view = s.shown;
    const best = view.phase === "game_over" && view.outcome ? view.outcome.winners : [];
    const pending = view.pending_row_choice;
    return h("ul", { class: "assist-players", "aria-label": t("table.players") },
      view.names.map((name, seat) => {
        const round = view.penalties[seat] || 0;
        const total = (view.totals[seat] || 0) + (view.phase === "game_over" ? 0 : round);
        return h("li", {
          class: `assist-player${pending && pending.seat === seat ? " asked" : ""}${best.includes(seat) ? " winner" : ""}`,
          "data-seat": seat, "aria-label": `${name}: ${t("seat.score_label", { round, total })}`,
        },
          h("span", { class: "assist-player-name", text: name }),
          h("span", { class: "pile-part", "aria-hidden": "true" },
            h("span", { class: "head" }), h("span", { class: "assist-round-number", text: String(round) })),
          h("span", { class: "pile-part total", "aria-hidden": "true" },
            h("span", { class: "sigma", text: "Σ" }), h("span", { class: "assist-total-number", text: String(total) })));
      }));
  }

  function statusText(view) {
    switch (view.phase) {
      // The device that enters reads what to type in its entry panel: no need to say it twice.
      case "dealing":
        return enters() ? "" : t("assist.watch_rows", { round: view.round + 1 });
      case "choosing_cards":
        return enters() ? "" : t("assist.watch_cards", { turn: view.turn + 1 });
      case "choosing_row": {
        const pending = view.pending_row_choice;
        return t("assist.row_question", { name: nameOf(pending.seat), card: pending.card });
      }
      case "game_over":
        return view.outcome ? winnersText(view.outcome.winners, view.outcome.totals) : "";
      default:
        return "";
    }
  }

  function board() {
    const view = s.shown;
    // The rows become choices only on the board of the newest state: a board still catching up
    // is redrawn soon, and a tap on it could be lost or answer an older question.
    const asking = view === s.view && view.phase === "choosing_row" && enters() && !s.sending;
    const said = statusText(view);
    const status = renderStatus(said, { urgent: view.phase === "choosing_row" });
    status.hidden = !said;
    return h("section", { class: "board assist-board", "aria-label": t("table.board") },
      status,
      renderReveal(view.revealed, { nameOf }),
      renderRows(view.rows, {
        choosable: asking,
        onChoose: (index) => chooseRow(index),
        onKeydown: (event, index) => rowKeydown(event, index, root),
      }));
  }

  function renderEntry() {
    const holder = root.querySelector(".assist-entry-holder");
    if (!holder || !s.view) {
      if (!root.querySelector(".assist-page") && s.view) render();
      return;
    }
    const active = document.activeElement;
    const hadFocus = holder.contains(active) ? active.closest("[data-focus]")?.dataset.focus : null;
    clear(holder).append(entrySection());
    if (s.problem) showProblem(s.problem, false);
    let target = null;
    let selectAll = false;
    if (s.focusEntry) {
      // A new entry (or a refused one): the first empty field, the refused card's field, or
      // the first field of cards put back by an undo.
      s.focusEntry = false;
      const all = fields();
      const refused = s.problem && s.problem.details && s.problem.details.card;
      const at = refused ? all.findIndex((field) => Number(field.value) === refused) : all.findIndex((field) => !field.value);
      target = all[at >= 0 ? at : 0] || holder.querySelector("#assist-edit") || null;
      selectAll = true; // a refused card or one put back is typed over
    } else if (hadFocus) {
      target = holder.querySelector(`[data-focus="${hadFocus}"]`);
    }
    if (target && !target.disabled) {
      target.focus();
      if (selectAll && target.select && target.value) target.select();
    }
  }

  function entrySection() {
    const view = s.view;
    if (!enters()) {
      return h("section", { class: "assist-entry spectator" },
        h("p", { class: "muted", text: view.phase === "game_over" ? t("assist.watch_over") : t("assist.watching") }));
    }
    const undoButton = h("button", {
      type: "button", class: "button small ghost", id: "assist-undo", "data-focus": "undo", "aria-keyshortcuts": "Control+Z",
      disabled: !canUndo() || s.sending, title: t("assist.undo_hint"), text: t("assist.undo"), on: { click: undo },
    });
    const problem = h("p", { class: "form-error", id: "assist-problem", role: "alert", hidden: true });
    if (view.phase === "game_over") {
      return h("section", { class: "assist-entry", "data-entry": s.entryKey },
        h("p", { class: "assist-entry-title", text: t("assist.over") }),
        h("div", { class: "assist-actions" },
          undoButton,
          recordLink(code, { class: "button primary", id: "download-record" }),
          h("a", { class: "button ghost", href: "/", text: t("assist.new_game") })),
        problem);
    }
    if (view.phase === "choosing_row") {
      const pending = view.pending_row_choice;
      return h("section", { class: "assist-entry", "data-entry": s.entryKey },
        h("p", { class: "assist-entry-title", text: t("assist.prompt_row", { name: nameOf(pending.seat) }) }),
        h("div", { class: "assist-actions" },
          h("button", { type: "button", class: "button small", id: "assist-edit", "data-focus": "edit", disabled: s.sending, text: t("assist.edit_turn"), on: { click: editTurn } }),
          undoButton),
        problem);
    }
    const rows = view.phase === "dealing";
    const count = rows ? 4 : view.names.length;
    const list = h("ol", { class: `assist-fields${rows ? " rows-entry" : ""}` });
    for (let index = 0; index < count; index += 1) {
      const id = `assist-card-${index}`;
      const label = rows ? t("assist.row_field", { row: index + 1 }) : view.names[index];
      list.append(h("li", { class: "assist-field-line" },
        h("label", { for: id, class: "assist-field-label", text: label }),
        h("input", {
          id, class: "assist-field", type: "text", inputmode: "numeric", pattern: "[0-9]*", maxlength: 3,
          autocomplete: "off", enterkeyhint: index === count - 1 ? "done" : "next", "data-focus": `field-${index}`,
          value: s.values[index] || "", "aria-invalid": "false", "aria-describedby": "assist-problem assist-hint",
          on: { input: (event) => onInput(event, index), keydown: (event) => onFieldKey(event, index), blur: () => onBlur(index) },
        })));
    }
    return h("form", { class: "assist-entry", id: "assist-form", "data-entry": s.entryKey, novalidate: true, on: { submit } },
      h("p", { class: "assist-entry-title", id: "assist-entry-title",
        text: rows ? t("assist.prompt_rows", { round: view.round + 1 }) : t("assist.prompt_cards", { turn: view.turn + 1 }) }),
      list,
      problem,
      h("div", { class: "assist-actions" },
        h("button", { type: "submit", class: "button primary", id: "assist-submit", "data-focus": "submit", disabled: s.sending,
          text: rows ? t("assist.submit_rows") : t("assist.submit_cards") }),
        undoButton),
      h("p", { class: "hint", id: "assist-hint", text: t("assist.typing_hint") }));
  }

  function sheetSection() {
    const view = s.shown;
    const rounds = view.score_sheet;
    if (!rounds.length || !(s.sheetOpen || view.phase === "game_over")) return h("div", { hidden: true });
    const over = view.phase === "game_over" && view.outcome;
    const totals = over ? view.outcome.totals : view.totals;
    const last = rounds[rounds.length - 1];
    return h("section", { class: "sheet assist-sheet", "aria-labelledby": "sheet-title" },
      h("h2", { id: "sheet-title", text: over ? t("sheet.game_over") : t("sheet.after_round", { round: rounds.length }) }),
      over
        ? h("p", { class: "winners", text: winnersText(view.outcome.winners, view.outcome.totals) })
        : h("p", { class: "muted", text: t("assist.round_penalties", { round: rounds.length, list: formatList(last.map((points, seat) => t("assist.penalty_item", { name: nameOf(seat), count: points }))) }) }),
      h("div", { class: "sheet-scroll" }, renderScoreTable({ names: view.names, rounds, totals })),
      over ? null : h("p", { class: "muted", text: t("sheet.rule_reminder") }));
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
    showToast(ok ? t("assist.link_copied") : t("assist.copy_failed", { url }));
  }

  // ------------------------------------------------------------------ start

  render();
  feed.start();
  const onKey = (event) => {
    if (!s.view || !enters()) return;
    const inField = event.target.closest && event.target.closest("input, select, textarea");
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "z") {
      // In a field with text, Ctrl+Z is the field's own undo; elsewhere it takes the entry back.
      if (inField && event.target.value) return;
      event.preventDefault();
      undo();
      return;
    }
    if (s.view.phase === "choosing_row" && !inField && /^[1-4]$/.test(event.key)) {
      event.preventDefault();
      root.querySelector(`[data-focus="row-${Number(event.key) - 1}"]`)?.focus();
    }
  };
  document.addEventListener("keydown", onKey);

  return {
    rerender: render,
    destroy() {
      destroyed = true;
      feed.destroy();
      document.removeEventListener("keydown", onKey);
      setBanner(null);
    },
  };
}
