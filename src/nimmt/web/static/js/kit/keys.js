// The table by keyboard: arrows, Home and End move along the hand, typed digits jump to a card
// ("4", "2": card 42); arrows move between the rows when one must be chosen, and the digits 1-4
// pick a row from anywhere on the page. The choices themselves are state.js handMove, typedCard
// and rowMove.

import { handMove, rowMove, typedCard } from "./state.js";

const TYPED_MS = 1200; // typed digits are forgotten after this pause

/** keydown on the hand: move the one tab stop (s.handFocus) and the focus. */
export function handKeydown(event, root, s) {
  const hand = s.view ? s.view.hand : [];
  if (!hand.length) return;
  let next = handMove(hand, s.handFocus, event.key);
  if (next === null && /^[0-9]$/.test(event.key)) {
    // Typing a card's number ("4", "2") moves to card 42.
    clearTimeout(s.typedTimer);
    s.typed = (s.typed + event.key).slice(-3);
    s.typedTimer = setTimeout(() => { s.typed = ""; }, TYPED_MS);
    next = typedCard(hand, s.typed);
  }
  if (next === null || next === undefined) return;
  event.preventDefault();
  s.handFocus = next;
  for (const button of root.querySelectorAll(".hand .card")) {
    button.tabIndex = Number(button.dataset.card) === next ? 0 : -1;
  }
  root.querySelector(`.hand .card[data-card="${next}"]`)?.focus();
}

/** keydown on a choosable row: arrows move to the next or previous row. */
export function rowKeydown(event, index, root) {
  const next = rowMove(index, event.key);
  if (next === null) return;
  event.preventDefault();
  root.querySelector(`[data-focus="row-${next}"]`)?.focus();
}

/** Digits 1 to 4 pick a row while `mustChoose()` (not while typing in a field). Returns the unbinding. */
export function bindRowDigits(root, mustChoose) {
  const onDigit = (event) => {
    if (!mustChoose() || event.target.closest("input, select, textarea")) return;
    if (/^[1-4]$/.test(event.key)) {
      event.preventDefault();
      root.querySelector(`[data-focus="row-${Number(event.key) - 1}"]`)?.focus();
    }
  };
  document.addEventListener("keydown", onDigit);
  return () => document.removeEventListener("keydown", onDigit);
}
