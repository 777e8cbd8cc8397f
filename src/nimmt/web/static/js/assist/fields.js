// The number fields of the assistant: one card per field, typed on a phone's number pad.
//
// When is a card complete? As soon as no further digit could make it a card: cards go from 1
// to 104, so "11" to "99" are complete at once (a third digit would pass 104), as is any
// three-digit number; "1" to "9" and "10" could still grow ("10" into 100 to 104), so they wait
// for Enter, Space or Tab. A complete card is checked at once: outside 1 to 104, already seen
// this round, or typed twice in this entry, it is refused in place and the focus stays.

export const MAX_CARD = 104;

/** The digits of what was typed (a pasted "42 " or a stray letter leaves only "42"). */
export const digitsOf = (text) => String(text).replace(/\D/g, "").slice(0, 3);

/** True when no further digit could turn `digits` into a card number. */
export function cannotGrow(digits) {
  if (!digits) return false;
  return digits.length >= 3 || Number(digits) * 10 > MAX_CARD || digits.startsWith("0");
}

/**
 * Why `card` cannot be entered in field `index`, or null: {code, card}. `seen` holds the cards
 * already on the table or played this round; `values` the numbers in the entry's fields.
 */
export function problemOf(card, index, values, seen) {
  if (!Number.isInteger(card) || card < 1 || card > MAX_CARD) return { code: "card_out_of_range", card };
  if (seen.has(card)) return { code: "card_seen", card };
  if (values.some((other, at) => at !== index && other === card)) return { code: "card_twice", card };
  return null;
}
