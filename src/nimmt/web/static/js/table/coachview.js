// The coach on the page: the badge every seat and spectator sees at a table that allows it, the
// toggle (and its key, C) of a seated person, the figures under each card or beside each row,
// and "your three costliest decisions" on the game-over sheet. The figures and decisions come
// from coach.js; nothing here selects, focuses or plays anything.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { costlyText, replayHref } from "./coach.js";

export const COACH_KEY = "c";

/** The badge that says the coach is allowed at this table (fairness is visible to all). */
export const renderCoachBadge = () =>
  h("span", { class: "badge coach-badge", id: "coach-badge", title: t("coach.badge_title") },
    t("coach.badge"),
    h("span", { class: "visually-hidden", text: ` ${t("coach.badge_title")}` }));

/**
 * The toggle of a seated person: on or off, and beside it a quiet "thinking" or "no answer"
 * (always there, empty when idle, so that the toolbar does not jump; on a phone only its dot).
 */
export function renderCoachToggle({ on, thinking = false, failed = false, onToggle }) {
  let state = "idle";
  if (thinking) state = "thinking";
  else if (failed) state = "failed";
  const text = { idle: "", thinking: t("coach.thinking"), failed: t("coach.failed") }[state];
  const note = h("span", { class: `coach-thinking ${state}`, id: "coach-thinking", role: "status", title: text || null },
    h("span", { class: "coach-thinking-text", text }));
  return h("span", { class: "coach-tools" },
    h("button", {
      type: "button", class: "chip coach-toggle", id: "coach-toggle", "data-focus": "coach-toggle",
      "aria-pressed": String(on), "aria-keyshortcuts": "C", title: t("coach.toggle_title"),
      on: { click: () => onToggle() },
    },
      t("coach.toggle"),
      h("kbd", { class: "coach-key", "aria-hidden": "true", text: "C" })),
    note);
}

/**
 * What a choice's figure adds to a card or a row (for render.js): the note drawn on it, a
 * class, its tooltip, and its accessible name with the coach's advice. `note`: coach.js figureNotes' item.
 */
export function annotation(note) {
  if (!note) return null;
  return {
    className: note.best ? "coach-best" : "coach-scored",
    title: note.advice,
    el: h("span", { class: `coach-note${note.best ? " best" : ""}`, "aria-hidden": "true", text: note.text }),
    label: (base) => t("coach.label", { label: base, advice: note.advice }),
  };
}

/** `C` turns the coach on or off (not while typing, nor with a modifier). Returns the unbinding. */
export function bindCoachKey(onToggle) {
  const onKey = (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || (target.closest && target.closest("input, select, textarea")))) return;
    if (event.key.toLowerCase() !== COACH_KEY) return;
    if (!onToggle()) return;
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

/**
 * The game-over sheet's "your three costliest decisions": `status` "loading", "failed" or
 * "done" with `items` (coach.js costliest), each linked to the replay viewer at that turn.
 */
export function renderCostliest({ status, items = [], code, game = null, lang = "en" }) {
  const parts = [h("h3", { id: "coach-review-title", text: t("coach.review_title") })];
  if (status === "loading") {
    parts.push(h("p", { class: "muted coach-review-loading", role: "status", text: t("coach.review_loading") }));
  } else if (status === "failed") {
    parts.push(h("p", { class: "muted", role: "status", text: t("coach.review_failed") }));
  } else if (!items.length) {
    parts.push(h("p", { class: "muted", role: "status", text: t("coach.review_none") }));
  } else {
    parts.push(h("ol", { class: "coach-review-list" }, items.map((item) =>
      h("li", { class: "coach-review-item", "data-anchor": item.anchor },
        h("span", { text: costlyText(item, { t, lang }) }),
        " ",
        h("a", {
          href: replayHref(code, item, game), class: "coach-review-link",
          text: t("coach.review_replay", { round: item.round, turn: item.turn }),
        })))));
    parts.push(h("p", { class: "muted coach-review-note", text: t("coach.review_note") }));
  }
  return h("section", { class: "coach-review", id: "coach-review", "aria-labelledby": "coach-review-title" }, parts);
}
