// The table's pieces as DOM elements, built from plain data (rows as arrays of cards, names,
// totals) and callbacks. Nothing here knows the socket or the live table, so a replay or a
// board view can draw a recorded position with the same functions. Texts come through i18n.js;
// sentences that need names come from text.js.

import { bullheads, cardBackEl, cardEl, cardName, totalBullheads } from "../cards.js";
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { setPageTitle } from "../title.js";
import { sheetScroll } from "./sheetscroll.js";
import { GAME_END, SPEEDS, lowestFirst, nearEnd } from "./state.js";
import { emptyHandText, seatStateText } from "./text.js";

/** A face-up card (cards.js); `opts` as for cardEl: `{ tag, attrs }`. */
export const renderCard = (card, opts) => cardEl(card, opts);

/**
 * One row of the board: six slots (the sixth marked), its bullhead total at the side. A plain
 * group, or with `choosable` a button that takes the row (`onChoose()`, `onKeydown(event)`).
 * `note`: an optional annotation of the choice (`{ el, className, label(base), title }`, the coach's;
 * its `title`, the advice, ends the button's name).
 */
export function renderRow(cards, index, { choosable = false, onChoose = null, onKeydown = null, note = null } = {}) {
  const total = totalBullheads(cards);
  const slots = Array.from({ length: 6 }, (_, place) =>
    h("div", { class: `slot${place === 5 ? " sixth" : ""}` }, cards[place] ? cardEl(cards[place]) : null));
  const totalEl = h("span", { class: "row-side" },
    h("span", { class: "row-total", title: t("table.row_total", { count: total }), "aria-hidden": choosable ? "true" : null },
      h("span", { class: "head big", "aria-hidden": "true" }),
      h("span", { class: "row-total-number", text: String(total) })),
    choosable ? h("span", { class: "row-cost", text: t("table.row_cost", { count: total }) }) : null,
    choosable && note ? note.el : null);
  if (choosable) {
    // The button's name is what it shows ("Take it: 9 bullheads"), after a hidden "Row 1 (…):"
    // that says which row; the coach's advice, if any, follows. No aria-label: the name must
    // contain the visible words (voice control users say them).
    const which = t("table.row_choice_name", { row: index + 1, cards: cards.join(", ") });
    const advice = note ? note.title : "";
    return h("button", {
      type: "button", class: `row choosable${note ? ` ${note.className}` : ""}`, "data-row": index, "data-focus": `row-${index}`,
      title: note ? note.title : null,
      on: { click: () => onChoose && onChoose(), keydown: (event) => onKeydown && onKeydown(event) },
    },
      h("span", { class: "visually-hidden", text: `${which} ` }),
      h("span", { class: "row-slots", "aria-hidden": "true" }, slots), totalEl,
      advice ? h("span", { class: "visually-hidden", text: `. ${advice}` }) : null);
  }
  const label = t("table.row_label", { row: index + 1, cards: cards.join(", ") || "–", count: total });
  return h("div", { class: "row", "data-row": index, role: "group", "aria-label": label },
    h("span", { class: "row-slots" }, slots), totalEl);
}

/**
 * The four rows (empty ones before the first deal). With `choosable`, each is a button:
 * `onChoose(index)`, `onKeydown(event, index)`, and `annotate(index)` may add a note to it.
 */
export function renderRows(rows, { choosable = false, onChoose = null, onKeydown = null, annotate = null } = {}) {
  const el = h("div", { class: `rows${choosable ? " choosing" : ""}`, role: choosable ? "group" : null, "aria-label": t("table.rows") });
  const cardsRows = rows.length ? rows : [[], [], [], []];
  cardsRows.forEach((cards, index) => {
    el.append(renderRow(cards, index, {
      choosable,
      onChoose: onChoose && (() => onChoose(index)),
      onKeydown: onKeydown && ((event) => onKeydown(event, index)),
      note: choosable && annotate ? annotate(index) : null,
    }));
  });
  return el;
}

/** A revealed card with its player's name under it (`mine`: "You" and marked). The name may
 * be cut short (an ellipsis): its tooltip holds the whole of it, as every such label's does. */
export function revealItem(card, seat, { name, mine = false }) {
  const text = mine ? t("seat.you") : name;
  return h("div", { class: `reveal-item${mine ? " mine" : ""}`, "data-card": card, "data-seat": seat },
    cardEl(card),
    h("span", { class: "reveal-name", text, title: text }));
}

/** The strip of revealed cards, lowest first (hidden when `revealed` is null). */
export function renderReveal(revealed, { nameOf, me = null }) {
  const reveal = h("div", { class: "reveal", "aria-label": t("table.revealed"), hidden: !revealed });
  if (revealed) {
    lowestFirst(revealed).forEach(({ card, seat }, index) => {
      const item = revealItem(card, seat, { name: nameOf(seat), mine: seat === me });
      if (index === 0) item.classList.add("too-low");
      reveal.append(item);
    });
  }
  return reveal;
}

/** The line above the rows (focusable, `urgent` when this page must choose a row). */
export const renderStatus = (text, { urgent = false } = {}) =>
  h("p", { class: `status${urgent ? " urgent" : ""}`, id: "status", tabindex: "-1", "data-focus": "status", text });

/**
 * The board: status line, anything in `extra` (the invite before the deal), the revealed cards
 * and the rows; `fit`: scaled to the window (the table page). `rows`, `revealed` as in the
 * view; `onChooseRow(index)`, `onRowKey(event, index)` and `annotateRow(index)` (renderRows'
 * `annotate`) when `mustChoose`.
 */
export function renderBoard({ rows, revealed = null, status = "", mustChoose = false, nameOf, me = null, onChooseRow = null, onRowKey = null, extra = null, fit = false, annotateRow = null }) {
  const parts = [renderStatus(status, { urgent: mustChoose })];
  if (extra) parts.push(extra);
  const play = [
    renderReveal(revealed, { nameOf, me }),
    renderRows(rows, { choosable: mustChoose, onChoose: onChooseRow, onKeydown: onRowKey, annotate: annotateRow }),
  ];
  // With `fit` (the table page), the revealed cards and the rows lie in a play area whose size
  // the cards scale to (style.css: a size container).
  parts.push(...(fit ? [h("div", { class: "play-area" }, play)] : play));
  return h("section", { class: "board", "aria-label": t("table.board") }, parts);
}

/**
 * A seat's name; with `short` (a bot's "Bot 2" of "Bot 2 (greedy)"), the rest after it goes
 * to a second line that is clipped away where the line has no room (style.css), so a narrow seat
 * still reads "Bot 2", not "Bot…".
 */
function seatNameText(name, short = null) {
  if (!short || short === name || !name.startsWith(short)) return h("span", { class: "seat-name-text", text: name, title: name });
  return h("span", { class: "seat-name-text parts", title: name },
    h("span", { class: "name-main", text: short }), h("span", { class: "name-more", text: name.slice(short.length) }));
}

/** A seat's state ("Has chosen"), cut short where the seat is narrow: the tooltip says it all. */
const seatStateEl = (text) => h("div", { class: "seat-state", text, title: text });

/**
 * The players around the table. `seats`: one plain object per seat, as state.js seatSummaries
 * makes them: `{ seat, name, bot, stateKey, offline, round, total, isMe, winner, card, back }`
 * and optionally `short` (the short form of a long name, state.js shortNameOf)
 * (`card`: the revealed card, `back`: a chosen card shown face down).
 */
export function renderSeats(seats) {
  const list = h("ul", { class: "seats", "aria-label": t("table.players") });
  for (const info of seats) {
    let cardSlot = null;
    if (info.card !== null && info.card !== undefined) cardSlot = cardEl(info.card);
    else if (info.back) cardSlot = cardBackEl();
    list.append(
      h("li", {
        class: `seat state-${info.stateKey}${info.isMe ? " me" : ""}${info.offline ? " offline" : ""}${info.winner ? " winner" : ""}${info.nearEnd ? " near-end" : ""}`,
        "data-seat": info.seat,
      },
        h("div", { class: "seat-card" }, cardSlot),
        h("div", { class: "seat-info" },
          h("div", { class: "seat-name" },
            seatNameText(info.name, info.short),
            info.isMe ? h("span", { class: "badge", text: t("seat.you") }) : null,
            info.bot ? h("span", { class: "badge bot", text: t("seat.bot") }) : null),
          seatStateEl(info.offline ? t("seat.state_offline") : seatStateText(info.stateKey, t)),
          h("div", { class: "seat-pile" },
            h("span", { class: "visually-hidden", text: t("seat.score_label", { round: info.round, total: info.total }) }),
            h("span", { class: "pile-part round", "aria-hidden": "true" },
              h("span", { class: "head" }), h("span", { class: "seat-round-number", text: String(info.round) })),
            h("span", { class: "pile-part total", "aria-hidden": "true" },
              h("span", { class: "sigma", text: "Σ" }), h("span", { class: "seat-total-number", text: String(info.total) }))),
          info.nearEnd ? h("span", { class: "visually-hidden", text: t("seat.near_end") }) : null)),
    );
  }
  return h("section", { class: "seats-area", "aria-label": t("table.players") }, list);
}

/**
 * Your hand: a button per card (the chosen one lifted), one tab stop (`focus`), arrows and
 * digits through `onKeydown`. `onPlay(card)`, `onFocus(card)`. `annotate(card)` may add a
 * note to a card (`{ el, className, label(base), title }`: the coach's figure and its words).
 */
export function renderHand({ hand, chosen = null, canPlay = false, focus = null, phase, onPlay, onFocus, onKeydown, annotate = null, emptyText = null }) {
  const cards = hand.map((card) => {
    const lifted = card === chosen;
    const note = annotate ? annotate(card) : null;
    const el = cardEl(card, {
      tag: "button",
      name: note ? note.label(cardName(card)) : null,
      attrs: {
        type: "button",
        class: `card bh-${bullheads(card)}${card >= 100 ? " n3" : ""}${lifted ? " lifted" : ""}${note ? ` ${note.className}` : ""}`,
        tabindex: card === focus ? "0" : "-1",
        "aria-pressed": String(lifted),
        "aria-disabled": canPlay ? null : "true",
        "data-focus": `card-${card}`,
        on: {
          click: () => onPlay(card),
          focus: () => onFocus(card),
        },
      },
    });
    if (note) {
      if (note.title) el.title = note.title;
      el.append(note.el);
    }
    return el;
  });
  const handEl = h("div", {
    class: `hand${canPlay ? "" : " idle"}`, role: "group", "aria-label": t("table.your_hand"),
    on: { keydown: onKeydown },
  }, cards);
  return h("section", { class: "hand-area", "aria-label": t("table.your_hand") },
    h("h2", { class: "visually-hidden", text: t("table.your_hand") }),
    hand.length ? handEl : h("p", { class: "muted hand-empty", text: emptyText ?? emptyHandText(phase, t) }),
    canPlay && hand.length ? h("p", { class: "hint", text: t("table.keyboard_hint") }) : null);
}

/** The score table: a line per player (`names`), a column per round, the totals (lowest starred). */
export function renderScoreTable({ names, rounds, totals, me = null }) {
  const lowest = Math.min(...totals);
  return h("table", { class: "sheet-table" },
    h("caption", { class: "visually-hidden", text: t("sheet.caption") }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: t("sheet.player") }),
      rounds.map((_, index) => h("th", { scope: "col", text: t("sheet.round_short", { round: index + 1 }) })),
      h("th", { scope: "col", class: "total", text: t("sheet.total") }))),
    h("tbody", {}, totals.map((total, seat) =>
      h("tr", { class: [total === lowest ? "best" : "", total > GAME_END ? "over" : nearEnd(total) ? "near-end" : ""].join(" ").trim() },
        h("th", { scope: "row" }, names[seat], seat === me ? h("span", { class: "badge", text: t("seat.you") }) : null),
        rounds.map((line) => h("td", { text: String(line[seat]) })),
        h("td", { class: "total" },
          h("span", { text: String(total) }),
          total === lowest ? h("span", { class: "lowest-mark", title: t("sheet.lowest"), text: " ★" }) : null,
          total === lowest ? h("span", { class: "visually-hidden", text: t("sheet.lowest") }) : null)))));
}

/**
 * The score sheet, a panel beside the table (never over it): after a round (a reminder, and
 * `warning` when the next round may be the last), or after the game (`winners`, and `overLine`:
 * who went over 66), with the `actions` the caller gives and `extra` below them (the coach's
 * review). Escape calls `onClose`.
 */
export function renderScoreSheet({ names, rounds, totals, me = null, over = false, winners = "", warning = "", overLine = "", actions, onClose, extra = null }) {
  const title = over ? t("sheet.game_over") : t("sheet.after_round", { round: rounds.length });
  return h("section", {
    class: `sheet${over ? " final" : ""}`, role: "region", "aria-labelledby": "sheet-title",
    on: { keydown: (event) => { if (event.key === "Escape") onClose(); } },
  },
    h("h2", { id: "sheet-title", text: title }),
    over ? h("p", { class: "winners", text: winners }) : null,
    over && overLine ? h("p", { class: "over-line", text: overLine }) : null,
    !over && warning ? h("p", { class: "last-warning", text: warning }) : null,
    over ? null : h("p", { class: "muted", text: t("sheet.rule_reminder") }),
    sheetScroll(renderScoreTable({ names, rounds, totals, me })),
    h("div", { class: "sheet-actions" }, actions),
    extra);
}

/** The speed buttons (1×, 2×, 4×); `onSpeed(value)`. */
export function renderSpeed(speed, onSpeed) {
  return h("div", { class: "speed", role: "group", "aria-label": t("table.speed") },
    h("span", { class: "speed-label", "aria-hidden": "true", text: t("table.speed") }),
    SPEEDS.map((value) =>
      h("button", {
        type: "button", class: "chip", "aria-pressed": String(value === speed), "data-focus": `speed-${value}`,
        "aria-label": t("table.speed_value", { speed: value }), text: `${value}×`, on: { click: () => onSpeed(value) },
      })));
}

/**
 * The link to download a finished game's record (`attrs`: class, id, data-focus, text, ...);
 * `game`: that game of the table (default: the current one).
 */
export const recordLink = (code, attrs, game = null) =>
  h("a", {
    href: game ? `/api/tables/${code}/record?game=${game}` : `/api/tables/${code}/record`,
    download: game ? `nimmt-${code}-${game}.json` : `nimmt-${code}.json`,
    text: t("table.download"),
    ...attrs,
  });

/** The invitation before the first deal: the table's link to copy (`onCopy`) and its code. */
export function renderInvite(code, url, { onCopy }) {
  return h("div", { class: "invite" },
    h("p", { text: t("table.invite_text") }),
    h("div", { class: "invite-line" },
      h("label", { class: "visually-hidden", for: "share-url", text: t("table.invite_link") }),
      h("input", { id: "share-url", type: "text", readonly: true, value: url, "data-focus": "share-url", on: { focus: (event) => event.target.select() } }),
      h("button", { type: "button", class: "button primary", "data-focus": "copy-invite", text: t("table.copy_link"), on: { click: onCopy } })),
    h("p", { class: "muted" }, t("table.invite_code", { code })));
}

/** A whole-page message (a table that is gone, say) with a link home. */
export function renderPageMessage(title, text) {
  return h("section", { class: "page-message" },
    h("h1", { text: title }),
    h("p", { text }),
    h("p", {}, h("a", { class: "button primary", href: "/", text: t("app.home") })));
}

/**
 * What a live page (table, assistant, board) shows before it can draw the table: the page
 * message for a fatal error (`fatal` is its code), "connecting…" while no state came yet, or null
 * once there is a view to draw.
 */
export function renderNotReady({ fatal, hasView, errorText }) {
  if (fatal) {
    const title = has(`errors.${fatal}_title`) ? t(`errors.${fatal}_title`) : t("errors.table_not_found_title");
    setPageTitle(title); // "Table not found" in the tab too
    return renderPageMessage(title, errorText(fatal));
  }
  if (!hasView) return h("p", { class: "page-message loading", text: t("table.connecting") });
  return null;
}

/** What a spectator sees instead of a hand: a form to take a free seat, or "watching". */
export function renderSpectator({ canJoin, name, joining, error, onName, onSubmit }) {
  if (!canJoin) {
    return h("section", { class: "hand-area spectator" }, h("p", { class: "muted", text: t("table.watching") }));
  }
  return h("section", { class: "hand-area spectator" },
    h("form", { class: "take-seat", on: { submit: onSubmit } },
      h("h2", { text: t("table.take_seat_title") }),
      h("div", { class: "field inline" },
        h("label", { for: "seat-name", text: t("start.your_name") }),
        h("input", { id: "seat-name", type: "text", value: name, autocomplete: "nickname", "data-focus": "seat-name",
          on: { input: (event) => onName(event.target.value) } }),
        h("button", { type: "submit", class: "button primary", id: "take-seat", disabled: joining, "data-focus": "take-seat", text: t("table.take_seat") })),
      error ? h("p", { class: "form-error", role: "alert", text: error }) : null,
      h("p", { class: "muted", text: t("table.watching_until") })));
}
