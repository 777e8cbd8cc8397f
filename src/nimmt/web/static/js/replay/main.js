// The replay viewer: a finished game of a table ("/t/{code}/replay", `?game=N`) or a record file
// the reader drops on the page or chooses ("/replay"), stepped through turn by turn, forwards
// and backwards. Each step's position (rows, reveal, takes, scores, hands) comes from the
// server's rules engine (docs/protocol.md, "Replays"); this page only draws it, with the board
// kit's render.js (kit/), and animates a single step forward with the kit's animate.js. A link can
// open a step (`#r2t5`, `#r2end`, `?round=2&turn=5`). Keys: arrows step, Home/End jump,
// PageUp/PageDown go from round to round.
//
// This module ties the parts together: model.js (positions, keys and what a step shows),
// load.js (where the game comes from), view.js (drawing) and the board kit (kit/).

import { api, errorText } from "../api.js";
import { clear, h } from "../dom.js";
import { formatList, has, safeGet, safeSet, t } from "../i18n.js";
import { animateEvent } from "../kit/animate.js";
import { createAnnouncer } from "../kit/announce.js";
import { renderPageMessage } from "../kit/render.js";
import { speedFrom } from "../kit/state.js";
import { setPageTitle } from "../title.js";
import { fileSizeProblem, recordErrorText, replayRecord, tableErrorText, tableReplay } from "./load.js";
import { animatesTo, beforeTurn, keyTarget, parsePosition, playerNames, positionHash, positionText, stepIndexFor, stepStatus } from "./model.js";
import { createReplayView } from "./view.js";

/** Mount the viewer. `code`: a table's finished game; null: a record file the reader brings. */
export function mountReplay(root, { code = null, game = null } = {}) {
  const s = {
    replay: null,
    index: 0,
    loading: Boolean(code),
    error: null, // { title, text } for a page that cannot show the game
    fileError: null,
    fileName: null,
    followed: 0,
    speed: speedFrom(safeGet("nimmt.speed")),
    coachOn: false,
    coach: new Map(), // seat -> analysis, or { error } / { loading: true }
  };
  let destroyed = false;
  const say = createAnnouncer();
  let generation = 0; // bumped by every drawing: an animation of an older one stops

  const nameOf = (seat) => (s.replay ? playerNames(s.replay.players, t)[seat] : t("seat.empty_name", { number: seat + 1 }));
  const words = () => ({ t, formatList, has, nameOf, me: null });
  const motion = { get speed() { return s.speed; }, nameOf, me: null };
  const view = createReplayView({
    code, s, nameOf, words,
    on: { readFile, goTo, openOther, setSpeed, follow, toggleCoach },
  });

  // ---------------------------------------------------------------- loading

  async function loadTable() {
    try {
      const replay = await tableReplay(code, game);
      if (destroyed) return;
      show(replay);
    } catch (err) {
      if (destroyed) return;
      s.loading = false;
      s.error = tableErrorText(err);
      render();
    }
  }

  function show(replay) {
    s.replay = replay;
    s.loading = false;
    s.fileError = null;
    s.coachOn = false;
    s.coach = new Map();
    s.followed = Math.min(s.followed, replay.players.length - 1);
    s.index = stepIndexFor(replay.steps, parsePosition(location.hash, location.search));
    render({ focus: "replay-next" });
    announcePosition();
  }

  function readFile(file) {
    if (!file) return;
    s.fileName = file.name;
    const tooLarge = fileSizeProblem(file);
    if (tooLarge) {
      s.fileError = tooLarge;
      render({ focus: "replay-choose" });
      return;
    }
    const reader = new FileReader();
    reader.onerror = () => {
      s.fileError = t("replay.file_unreadable", { name: file.name });
      render({ focus: "replay-choose" });
    };
    reader.onload = () => sendRecord(String(reader.result), file.name);
    reader.readAsText(file);
  }

  async function sendRecord(text, name) {
    s.loading = true;
    render();
    let answer;
    try {
      answer = await replayRecord(text);
    } catch (err) {
      if (destroyed) return;
      s.loading = false;
      s.fileError = recordErrorText(err, name);
      render({ focus: "replay-choose" });
      return;
    }
    if (destroyed) return;
    s.fileName = name;
    show(answer);
  }

  // ---------------------------------------------------------------- moving

  function goTo(index, { animate = false } = {}) {
    if (!s.replay) return;
    const steps = s.replay.steps;
    const target = Math.max(0, Math.min(steps.length - 1, index));
    if (target === s.index) return;
    const from = s.index;
    s.index = target;
    if (code) history.replaceState(null, "", `${location.pathname}${location.search}${positionHash(steps[target])}`);
    if (animate && animatesTo(steps, from, target)) play(steps[from], steps[target]);
    else render();
    announcePosition();
  }

  async function play(previous, step) {
    const mine = render({ picture: beforeTurn(step, previous) });
    const stage = root.querySelector(".replay-page");
    try {
      for (const event of step.events) {
        if (mine !== generation || destroyed) return;
        await animateEvent(stage, event, motion);
      }
    } catch (err) {
      console.error(err); // a drawing hiccup: the step is drawn whole below
    }
    if (mine === generation && !destroyed) render();
  }

  /** Back to the drop page, for another record file. */
  function openOther() {
    s.replay = null;
    s.fileError = null;
    history.replaceState(null, "", location.pathname);
    render({ focus: "replay-choose" });
  }

  function setSpeed(value) {
    s.speed = value;
    safeSet("nimmt.speed", String(value));
    render();
  }

  function onKey(event) {
    if (!s.replay || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, [role=dialog]")) return;
    const index = keyTarget(event.key, s.index, s.replay.steps);
    if (index === null) return;
    event.preventDefault();
    goTo(index, { animate: event.key === "ArrowRight" });
  }

  function announcePosition() {
    const step = s.replay && s.replay.steps[s.index];
    if (step) say.announce(`${positionText(step, t)}. ${stepStatus(step, words())}`);
  }

  // ---------------------------------------------------------------- coach

  function toggleCoach() {
    s.coachOn = !s.coachOn;
    render({ focus: "replay-coach" });
    if (s.coachOn) loadCoach(s.followed);
  }

  function follow(seat) {
    s.followed = seat;
    render();
    if (s.coachOn) loadCoach(seat);
  }

  /** The coach's review of `seat`'s decisions, asked once per seat (the server remembers it). */
  async function loadCoach(seat) {
    if (s.coach.has(seat)) return;
    s.coach.set(seat, { loading: true });
    render();
    const gameNumber = s.replay.meta ? s.replay.meta.game : null;
    try {
      const analysis = await api("GET", `/api/tables/${code}/analysis?seat=${seat}${gameNumber ? `&game=${gameNumber}` : ""}`);
      s.coach.set(seat, analysis);
    } catch (err) {
      s.coach.set(seat, { error: errorText(err && err.code, err && err.message) });
    }
    if (!destroyed) render();
  }

  // ---------------------------------------------------------------- drawing

  function focusKeyOf(el) {
    const holder = el && el.closest && el.closest("[data-focus]");
    return holder ? holder.dataset.focus : null;
  }

  /** Draw the page; `picture` replaces the step's own data (the moment before a turn plays). */
  function render({ picture = null, focus = null } = {}) {
    generation += 1;
    if (destroyed) return generation;
    const active = document.activeElement;
    const focusWasHere = !active || active === document.body || root.contains(active);
    const key = focus || (focusWasHere ? focusKeyOf(active) : null);
    clear(root);
    if (s.error) {
      setPageTitle(s.error.title); // "No such game" in the tab too
      const page = renderPageMessage(s.error.title, s.error.text);
      if (s.error.back && code) {
        page.append(h("p", {}, h("a", { class: "button", href: `/t/${code}`, text: t("replay.back_to_table") })));
      }
      root.append(page);
      return generation;
    }
    if (s.loading) {
      root.append(h("p", { class: "page-message loading", text: t("replay.loading") }));
      return generation;
    }
    root.append(s.replay ? view.viewer(picture) : view.dropPage());
    if (key && (focusWasHere || focus)) {
      let target = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      // A step button that the step disabled (the first or last step): focus stays in the bar.
      if (target && target.disabled) target = root.querySelector("#replay-position");
      target?.focus({ preventScroll: true });
    }
    return generation;
  }

  // ------------------------------------------------------------------ start

  document.addEventListener("keydown", onKey);
  const onHash = () => {
    if (!s.replay) return;
    const index = stepIndexFor(s.replay.steps, parsePosition(location.hash, ""));
    if (index !== s.index) {
      s.index = index;
      render();
    }
  };
  window.addEventListener("hashchange", onHash);
  render();
  if (code) loadTable();

  return {
    rerender: () => render(),
    destroy() {
      destroyed = true;
      generation += 1;
      say.reset();
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("hashchange", onHash);
    },
  };
}
