// The coach at the table, without the DOM: which decision a seat faces, when to ask the server's
// coach about it, which answer still counts, and the figures as a person reads them. The coach
// only ever scores a decision (docs/protocol.md, "coach"): nothing here selects, focuses or plays.
//
// A decision is named by a key ("card:2:5": round 2, turn 5, choose a card; "row:2:5": take a
// row). The page asks once per decision, as soon as a state showing it arrives, so the coach
// thinks while the last turn is still being animated. An answer is kept only when the state it
// analysed belongs to the decision the page now shows: its `version` is at least the version at
// which that decision began (answers are handled in socket order, after the states before them).
// Within one decision the seat's view does not change but for who has chosen, so an answer
// analysed a few versions earlier in the same decision is still about this very hand and rows.
//
// After the game, `costliest` picks the person's three costliest decisions from the game's
// analysis (`GET /api/tables/{code}/analysis?seat=N`, docs/formats.md section 4).

/** localStorage key remembering whether the coach is on at table `code`. */
export const coachKey = (code) => `nimmt.coach.${code}`;

/** The decision a seat's `view` asks of it, as a key, or null when it has none to make. */
export function decisionKey(view) {
  if (!view) return null;
  if (view.must_choose_row) return `row:${view.round}:${view.turn}`;
  if (view.phase === "choosing_cards" && view.hand && view.hand.length) return `card:${view.round}:${view.turn}`;
  return null;
}

/** The coach's part of the table's model; `on`: the person turned it on (remembered per table). */
export function createCoach({ on = false } = {}) {
  return {
    on,
    latest: null, // the decision of the newest state received (maybe not drawn yet)
    asked: null, // the decision the last question was about
    requests: new Set(), // request_ids of questions sent, to tell their refusals apart
    decision: null, // the decision of the state drawn
    since: null, // the version at which that decision began
    answer: null, // the coach's answer for that decision
    failed: null, // a decision the coach could not answer (asked again only when turned on again)
  };
}

/** The coach may be asked at all: the table allows it and this page holds a seat. */
export const coachAllowed = (table, seated) => Boolean(table && table.coach && seated);

/**
 * A state arrived (before it is drawn): remember its decision. Returns the decision to ask the
 * coach about now, or null (coach off or not allowed, no decision, or already asked).
 */
export function noteReceived(c, view, allowed) {
  c.latest = decisionKey(view);
  return questionDue(c, allowed);
}

/** The decision to ask about now (see noteReceived), or null. */
export function questionDue(c, allowed) {
  if (!c.on || !allowed || !c.latest || c.asked === c.latest || c.failed === c.latest) return null;
  return c.latest;
}

/** A question about `key` went out with `requestId`. */
export function noteAsked(c, key, requestId) {
  c.asked = key;
  if (requestId !== null && requestId !== undefined) c.requests.add(requestId);
}

/** The connection was lost or changed: questions still waiting are gone with it. */
export function forgetQuestions(c) {
  c.asked = null;
  c.requests.clear();
}

/** A state was drawn: a new decision forgets the figures of the last one. */
export function noteDrawn(c, view, version) {
  const key = decisionKey(view);
  if (key !== c.decision) {
    c.decision = key;
    c.since = version;
    c.answer = null;
  }
}

/** Take in a `coach` message; true when it is about the decision drawn now (and kept). */
export function takeAnswer(c, message) {
  if (!c.decision || !Number.isInteger(message.version) || message.version < c.since) return false;
  if (message.kind !== c.decision.split(":")[0] || !Array.isArray(message.candidates)) return false;
  c.answer = message;
  return true;
}

/**
 * An `error` message: true when it refuses one of the coach's questions (the caller then shows
 * no toast). A refusal other than "nothing to decide" marks the decision as failed.
 */
export function takeRefusal(c, message) {
  if (!c.requests.has(message.request_id)) return false;
  c.requests.delete(message.request_id);
  if (message.code !== "no_decision" && message.code !== "not_seated") c.failed = c.asked;
  return true;
}

/** Turn the coach on or off; turning it on again forgets an earlier failure. */
export function setCoachOn(c, on) {
  c.on = on;
  if (on) c.failed = null;
}

/** The coach is on and still thinking about the decision drawn. */
export const coachThinking = (c, allowed) =>
  Boolean(c.on && allowed && c.decision && !c.answer && c.failed !== c.decision);

/** The coach could not answer about the decision drawn. */
export const coachFailed = (c, allowed) => Boolean(c.on && allowed && c.decision && c.failed === c.decision);

// ------------------------------------------------------------------ figures

/** A figure of bullheads with one decimal in the reader's language ("2.4", "2,4"). */
export function formatBullheads(value, lang = "en") {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

/** The extra bullheads as shown under a card: "+2.4" (never "-0.0"). */
export function formatExtra(extra, lang = "en") {
  const value = Math.max(0, Number(extra) || 0);
  return new Intl.NumberFormat(lang, {
    minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: "always",
  }).format(value);
}

/** A confidence (0 to 1) as a whole percentage figure. */
export const confidencePercent = (confidence) => Math.round(Math.min(1, Math.max(0, Number(confidence) || 0)) * 100);

/**
 * Each choice of the coach's `answer` as it is shown: a Map from choice (a card, or a 0-based
 * row) to `{ best, extra, expected, text, advice }`. `text` is the short figure ("+2.4" or the
 * word for best), `advice` the sentence for screen readers and tooltips. `words`: `{ t, lang }`.
 */
export function figureNotes(answer, { t, lang = "en" }) {
  const notes = new Map();
  if (!answer || !Array.isArray(answer.candidates)) return notes;
  const row = answer.kind === "row";
  const confidence = confidencePercent(answer.confidence);
  for (const candidate of answer.candidates) {
    const best = candidate.choice === answer.best;
    const expected = formatBullheads(candidate.expected, lang);
    const params = { expected, extra: formatBullheads(Math.max(0, candidate.extra), lang), confidence, row: candidate.choice + 1 };
    let advice;
    if (row) advice = best ? t("coach.row_best", params) : t("coach.row_extra", params);
    else advice = best ? t("coach.card_best", params) : t("coach.card_extra", params);
    notes.set(candidate.choice, { best, extra: candidate.extra, expected: candidate.expected, text: best ? t("coach.best") : formatExtra(candidate.extra, lang), advice });
  }
  return notes;
}

// ------------------------------------------------------------------ after the game

/**
 * The `count` costliest decisions of a game's analysis (docs/formats.md section 4): those that
 * lost bullheads against the best choice, the biggest loss first (the earlier on a tie). Each
 * as `{ round, turn, kind, chosen, best, loss, anchor }`; rows counted from 1 as in the
 * analysis; `anchor` is the replay viewer's position ("r2t5").
 */
export function costliest(analysis, count = 3) {
  const decisions = (analysis && Array.isArray(analysis.decisions) ? analysis.decisions : [])
    .map((decision, order) => ({ decision, order }))
    .filter(({ decision }) => Number(decision.loss) > 0);
  decisions.sort((a, b) => b.decision.loss - a.decision.loss || a.order - b.order);
  return decisions.slice(0, count).map(({ decision }) => ({
    round: decision.round,
    turn: decision.turn,
    kind: decision.kind,
    chosen: decision.chosen,
    best: decision.best,
    loss: decision.loss,
    anchor: `r${decision.round}t${decision.turn}`,
  }));
}

/** The sentence for one costly decision (`costliest`'s item). `words`: `{ t, lang }`. */
export function costlyText(item, { t, lang = "en" }) {
  const params = {
    round: item.round, turn: item.turn, chosen: item.chosen, best: item.best,
    loss: formatBullheads(item.loss, lang),
  };
  return item.kind === "row" ? t("coach.review_row", params) : t("coach.review_card", params);
}

/** The replay viewer's address for a costly decision of table `code` (game `game`, if known). */
export function replayHref(code, item, game = null) {
  const query = game ? `?game=${encodeURIComponent(game)}` : "";
  return `/t/${encodeURIComponent(code)}/replay${query}#${item.anchor}`;
}
