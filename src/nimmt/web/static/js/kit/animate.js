// A turn as it happens, on a board already drawn by render.js inside `root`: the chosen cards
// turn over and line up lowest first, then travel one by one to their rows; a row taken is swept
// into its player's pile. About half a second a step at speed 1, divided by the speed; nothing
// waits while the page is hidden; under prefers-reduced-motion cards fade instead of moving.
//
// `opts` everywhere: `{ speed, nameOf(seat), me, skipping, skipped }` (me: this page's seat,
// null when watching); `speed` is read at each step, so a getter follows a change made during
// the animation. `skipping` (true once a card is tapped during the animation) makes every step
// instant, and `skipped`, a promise that settles then, cuts short a pause under way (the caller
// finishes the movements under way itself).

import { cardEl, totalBullheads } from "../cards.js";
import { clear, h, prefersReducedMotion, sleep } from "../dom.js";
import { t } from "../i18n.js";
import { lowestFirst, stateKeyAtReveal } from "./state.js";
import { revealItem } from "./render.js";
import { seatStateText } from "./text.js";

export const STEP_MS = 520; // one card travelling to its row
export const REVEAL_MS = 900; // the cards turned over, then lined up
export const TAKE_MS = 520; // a row swept into a player's pile
export const SCORE_MS = 400; // a pause on the scored round before the sheet opens

/** How long a step of `ms` lasts at this speed (0 while the page is hidden). */
export const duration = (ms, speed) => (document.hidden ? 0 : ms / speed);

/** How long a step of `ms` lasts for these `opts` (0 once the animation is skipped). */
const stepMs = (ms, opts) => (opts.skipping ? 0 : duration(ms, opts.speed));

const never = new Promise(() => {});

/** Wait `ms`, or less if the animation is skipped meanwhile. */
const pause = (ms, opts) => (ms ? Promise.race([sleep(ms), opts.skipped || never]) : Promise.resolve());

const rowEl = (root, row) => root.querySelector(`.row[data-row="${row}"]`);
const seatEl = (root, seat) => root.querySelector(`.seat[data-seat="${seat}"]`);

function updateRowTotal(root, row) {
  const el = rowEl(root, row);
  if (!el) return;
  const cards = [...el.querySelectorAll(".slot .card")].map((card) => Number(card.dataset.card));
  const total = el.querySelector(".row-total-number");
  if (total) total.textContent = String(totalBullheads(cards));
}

function fly(el, from, opts) {
  if (!from) return Promise.resolve();
  const to = el.getBoundingClientRect();
  const ms = stepMs(STEP_MS, opts);
  if (!ms) return Promise.resolve();
  if (prefersReducedMotion()) {
    return el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: ms, easing: "ease-out" }).finished;
  }
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  const scale = from.width / (to.width || 1);
  return el.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 5 },
      { transform: "none", zIndex: 5 },
    ],
    { duration: ms, easing: "cubic-bezier(.3,.7,.3,1)" },
  ).finished;
}

/** `cards_revealed`: each card turns over in front of its player, then all line up. */
export async function revealCards(root, cards, opts) {
  const { nameOf, me = null } = opts;
  const strip = root.querySelector(".reveal");
  if (!strip) return;
  clear(strip);
  strip.hidden = false;
  // Every card is chosen: nobody is thinking any more.
  for (const seat of root.querySelectorAll(".seat")) {
    const key = [...seat.classList].find((name) => name.startsWith("state-"))?.slice("state-".length);
    if (!key || stateKeyAtReveal(key) === key) continue;
    seat.classList.replace(`state-${key}`, `state-${stateKeyAtReveal(key)}`);
    const text = seat.querySelector(".seat-state");
    if (text && !seat.classList.contains("offline")) {
      text.textContent = seatStateText(stateKeyAtReveal(key), t);
      text.title = text.textContent; // cut short in a narrow seat: the tooltip holds it all
    }
  }
  // Each player's card turns over in front of them ...
  cards.forEach((card, seat) => {
    const slot = seatEl(root, seat)?.querySelector(".seat-card");
    if (!slot) return;
    const face = cardEl(card);
    face.classList.add("flip");
    clear(slot).append(face);
  });
  if (me !== null && me !== undefined) root.querySelector(`.hand .card[data-card="${cards[me]}"]`)?.classList.add("played");
  // ... then all line up, lowest first, each with its player's name.
  const order = lowestFirst(cards);
  for (const { card, seat } of order) strip.append(revealItem(card, seat, { name: nameOf(seat), mine: seat === me }));
  const ms = stepMs(REVEAL_MS, opts);
  if (ms && !prefersReducedMotion()) {
    strip.querySelectorAll(".reveal-item").forEach((item, index) => {
      item.animate([{ opacity: 0, transform: "translateY(-24px) rotateY(90deg)" }, { opacity: 1, transform: "none" }], {
        duration: ms / 2,
        delay: (index * ms) / (2 * order.length),
        fill: "backwards",
      });
    });
  }
  await pause(ms, opts);
}

/** `row_taken`: the row's cards sweep into the player's pile, whose counters go up. */
export async function takeRow(root, event, opts) {
  const el = rowEl(root, event.row);
  if (!el) return;
  el.classList.add("taking");
  const target = seatEl(root, event.seat)?.querySelector(".seat-pile") || seatEl(root, event.seat);
  const to = target ? target.getBoundingClientRect() : null;
  const ms = stepMs(TAKE_MS, opts);
  const sweeps = [...el.querySelectorAll(".slot .card")].map((card) => {
    if (!ms) return Promise.resolve();
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
    return card.animate(frames, { duration: ms, easing: "ease-in", fill: "forwards" }).finished;
  });
  await Promise.all(sweeps);
  el.querySelectorAll(".slot").forEach((slot) => clear(slot));
  el.classList.remove("taking");
  updateRowTotal(root, event.row);
  const pile = seatEl(root, event.seat);
  if (pile) {
    const counter = pile.querySelector(".seat-round-number");
    if (counter) counter.textContent = String(Number(counter.textContent || 0) + event.bullheads);
    const total = pile.querySelector(".seat-total-number");
    if (total) total.textContent = String(Number(total.textContent || 0) + event.bullheads);
    const said = pile.querySelector(".seat-pile > .visually-hidden");
    if (said && counter && total) said.textContent = t("seat.score_label", { round: counter.textContent, total: total.textContent });
    pile.classList.remove("hit");
    void pile.offsetWidth; // restart the pulse
    pile.classList.add("hit");
  }
}

/** `card_placed`: the card travels from the revealed strip to the next free slot of its row. */
export async function placeCard(root, event, opts) {
  const el = rowEl(root, event.row);
  if (!el) return;
  const slots = [...el.querySelectorAll(".slot")];
  const free = slots.find((slot) => !slot.querySelector(".card"));
  if (!free) return;
  const source = root.querySelector(`.reveal-item[data-card="${event.card}"]`);
  const from = source ? source.querySelector(".card").getBoundingClientRect() : null;
  const card = cardEl(event.card);
  card.append(h("span", { class: "card-owner", text: opts.nameOf(event.seat) }));
  free.append(card);
  if (source) source.classList.add("gone");
  updateRowTotal(root, event.row);
  await fly(card, from, opts);
  card.querySelector(".card-owner")?.remove();
  await pause(stepMs(STEP_MS, opts) * 0.2, opts);
}

/**
 * Show one event on the board (those that move nothing return at once). `onScored()` is called
 * when a round is scored, before the pause that precedes the score sheet.
 */
export async function animateEvent(root, event, opts, { onScored = () => {} } = {}) {
  if (event.type === "cards_revealed") await revealCards(root, event.cards, opts);
  else if (event.type === "row_taken") await takeRow(root, event, opts);
  else if (event.type === "card_placed") await placeCard(root, event, opts);
  else if (event.type === "round_scored") {
    onScored();
    await pause(stepMs(SCORE_MS, opts), opts);
  }
}
