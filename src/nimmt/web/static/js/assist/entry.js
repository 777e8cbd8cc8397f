// Entering a real game: the number fields as they are typed in (each field checked once it is
// done, then the focus moves on), the entry sent (the rows, a turn's cards, the row a player
// names), and undo, which takes the last entry back. Everything goes out on the feed with the
// version of the state it answers; the server's answer is the next state (or a refusal).
//
// `ctx`: `{ root, s (model.js), feed, view (view.js: renderEntry, fields, showProblem), say,
// nameOf(seat), enters() }`.

import { t } from "../i18n.js";
import { cannotGrow, digitsOf } from "./fields.js";
import { canUndo, fieldNumbers, fieldProblem } from "./model.js";

export function createEntry(ctx) {
  const { root, s, feed, view, say } = ctx;
  const fields = () => view.fields();

  function send(message) {
    if (feed.send({ ...message, version: s.version }) === null) {
      s.problem = { code: "network" };
      view.renderEntry();
      return false;
    }
    s.sending = true;
    return true;
  }

  /** Field `index` is done: check it, then move on (the next field, or the submit button). */
  function complete(index) {
    const problem = fieldProblem(s, index);
    if (problem) {
      view.showProblem(problem);
      const field = fields()[index];
      field.focus();
      field.select();
      return false;
    }
    if (s.problem && (s.problem.index === index || s.problem.index === undefined)) view.showProblem(null);
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
    if (s.problem && s.problem.index === index) view.showProblem(null);
    if (s.problem && s.problem.index === undefined) view.showProblem(null);
    if (cannotGrow(digits)) complete(index);
  }

  /** Leaving a field by tapping another (a phone's number pad has no Enter): check it there. */
  function onBlur(index) {
    const problem = fieldProblem(s, index);
    if (problem && !(s.problem && s.problem.index === index)) view.showProblem(problem);
  }

  function onFieldKey(event, index) {
    const field = event.target;
    if (event.key === "Enter") {
      event.preventDefault();
      if (!field.value) submit(); // says which card is missing
      else if (complete(index) && fieldNumbers(s).every((card) => card !== null)) submit();
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
    const cards = fieldNumbers(s);
    const missing = cards.findIndex((card) => card === null);
    if (missing >= 0) {
      view.showProblem({ index: missing, code: s.view.phase === "dealing" ? "rows_missing" : "card_missing", name: ctx.nameOf(missing) });
      fields()[missing].focus();
      return;
    }
    for (let index = 0; index < cards.length; index += 1) {
      const problem = fieldProblem(s, index);
      if (problem) {
        view.showProblem(problem);
        fields()[index].focus();
        return;
      }
    }
    const type = s.view.phase === "dealing" ? "assist_rows" : "assist_turn";
    if (send({ type, cards })) view.renderEntry();
  }

  function chooseRow(row) {
    if (!ctx.enters() || s.sending || !s.view || s.view.phase !== "choosing_row") return;
    if (send({ type: "assist_row", row })) view.renderEntry();
  }

  function undo() {
    if (!ctx.enters() || s.sending || !s.view || !canUndo(s.view)) return;
    if (send({ type: "assist_undo" })) {
      say.announce(t("assist.undo_sent"));
      view.renderEntry();
    }
  }

  /** At the row question: back to the turn's cards, in the fields, to correct them. */
  function editTurn() {
    if (!s.view || s.view.phase !== "choosing_row") return;
    s.refill = s.view.revealed;
    undo();
  }

  return { onInput, onBlur, onFieldKey, submit, chooseRow, undo, editTurn };
}
