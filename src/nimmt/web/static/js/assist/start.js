// The start page's third way: "Real cards". The people at a real table with a real deck give
// their names (2 to 10, in the order they sit); nimmt opens an assisted table
// (POST /api/assisted), keeps its token in this browser (only this device enters the cards)
// and goes to its page, whose link the others can open to follow the game.

import { api, apiErrorText, tokenKey } from "../api.js";
import { h } from "../dom.js";
import { safeSet, t } from "../i18n.js";
import { nameProblem } from "../names.js";

const MIN_PLAYERS = 2;
const MAX_PLAYERS = 10;

/** The form's state lives here, so the start page can redraw it (a language change) at will. */
export function realCardsForm({ firstName = () => "", rerender }) {
  const state = { names: null, error: null, busy: false, focus: null };

  function ensureNames() {
    if (!state.names) state.names = [firstName().trim(), "", ""];
  }

  function problem() {
    const names = state.names.map((name) => name.trim());
    const empty = names.findIndex((name) => !name);
    if (empty >= 0) return { text: t("assist.start_name_missing", { number: empty + 1 }), index: empty };
    const long = names.findIndex((name) => nameProblem(name) === "too_long");
    if (long >= 0) return { text: t("errors.bad_name"), index: long };
    const folded = names.map((name) => name.toLocaleLowerCase());
    const twice = folded.findIndex((name, index) => folded.indexOf(name) !== index);
    if (twice >= 0) return { text: t("assist.start_name_twice", { name: names[twice] }), index: twice };
    return null;
  }

  async function create(event) {
    event.preventDefault();
    const found = problem();
    if (found) {
      state.error = found.text;
      state.focus = `real-name-${found.index}`;
      rerender();
      return;
    }
    state.busy = true;
    state.error = null;
    rerender();
    try {
      const made = await api("POST", "/api/assisted", { names: state.names.map((name) => name.trim()) });
      safeSet(tokenKey(made.code), made.token);
      location.assign(made.url || `/t/${made.code}`);
    } catch (err) {
      state.busy = false;
      state.error = apiErrorText(err);
      rerender();
    }
  }

  function change(delta) {
    const count = state.names.length + delta;
    if (count < MIN_PLAYERS || count > MAX_PLAYERS) return;
    if (delta > 0) state.names.push("");
    else state.names.pop();
    state.error = null;
    state.focus = delta > 0 ? `real-name-${count - 1}` : "remove-real-name";
    rerender();
  }

  function render() {
    ensureNames();
    const list = h("ol", { class: "real-names" },
      state.names.map((name, index) =>
        h("li", { class: "seat-line" },
          h("span", { class: "seat-number", "aria-hidden": "true", text: String(index + 1) }),
          h("label", { class: "visually-hidden", for: `real-name-${index}`, text: t("assist.start_player", { number: index + 1 }) }),
          h("input", {
            id: `real-name-${index}`, type: "text", autocomplete: "off", value: name,
            placeholder: t("assist.start_player", { number: index + 1 }), class: "real-name",
            on: { input: (event) => { state.names[index] = event.target.value; } },
          }))));
    const form = h("form", { class: "panel wide real-cards", id: "real-cards-form", on: { submit: create } },
      h("h2", { text: t("assist.start_title") }),
      h("p", { class: "muted", text: t("assist.start_help") }),
      list,
      h("div", { class: "seat-buttons" },
        h("button", { type: "button", class: "button small ghost", id: "remove-real-name",
          disabled: state.names.length <= MIN_PLAYERS, text: t("assist.start_remove"), on: { click: () => change(-1) } }),
        h("button", { type: "button", class: "button small ghost", id: "add-real-name",
          disabled: state.names.length >= MAX_PLAYERS, text: t("assist.start_add"), on: { click: () => change(1) } })),
      state.error ? h("p", { class: "form-error", role: "alert", text: state.error }) : null,
      h("button", { type: "submit", class: "button primary", id: "start-real-cards", disabled: state.busy, text: t("assist.start_submit") }));
    return form;
  }

  /** After the page redrew: put the focus where the last action wants it. */
  function placeFocus(root) {
    if (!state.focus) return;
    root.querySelector(`#${state.focus}`)?.focus();
    state.focus = null;
  }

  return { render, placeFocus };
}
