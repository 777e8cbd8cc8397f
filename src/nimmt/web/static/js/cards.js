// Cards as the table draws them: number large in the middle, bullheads as small heads above, a
// colour per bullhead value (1, 2, 3, 5, 7) that also steps in lightness, so the values stay
// apart in greyscale and for colour-blind players. 55 (seven heads) stands out.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Bullheads on a card (the rules page, "Scoring"). */
export function bullheads(card) {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

export const totalBullheads = (cards) => cards.reduce((sum, card) => sum + bullheads(card), 0);

/** A card's name as a screen reader says it ("41, 1 bullhead"). */
export const cardName = (card) => t("card.label", { card, count: bullheads(card) });

/**
 * A face-up card element (a div, or the given tag such as "button"). Its name is a hidden text
 * inside it (`name`, by default cardName), never an `aria-label`: a div may not carry one, and a
 * button's name then starts with the number it shows.
 */
export function cardEl(card, { tag = "div", attrs = {}, name = null } = {}) {
  const heads = bullheads(card);
  const el = h(
    tag,
    {
      class: `card bh-${heads}${card >= 100 ? " n3" : ""}`,
      "data-card": card,
      ...attrs,
    },
    h(
      "span",
      { class: "heads", "aria-hidden": "true" },
      Array.from({ length: heads }, () => h("span", { class: "head" })),
    ),
    h("span", { class: "num", "aria-hidden": "true", text: String(card) }),
    h("span", { class: "corner", "aria-hidden": "true", text: String(card) }),
    h("span", { class: "visually-hidden card-name", text: name ?? cardName(card) }),
  );
  return el;
}

/** A card lying face down (a chosen card whose number nobody else may see). */
export function cardBackEl(attrs = {}) {
  return h("div", { class: "card back", "aria-hidden": "true", ...attrs }, h("span", { class: "back-mark" }));
}
