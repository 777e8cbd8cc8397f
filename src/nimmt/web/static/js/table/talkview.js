// The talk at the table on the page: the "Chat" chip in the toolbar (with the unread count), the
// talk panel (quick reactions, the lines said, the message field, and the settings: sounds,
// notifications, whom you muted, and for the table's creator whether spectators may write), and
// the bubbles shown briefly by a speaker's seat. The panel lives outside the redrawn table (a
// state never costs a half-typed message its text or its focus). Everything said is set as text,
// never as HTML. The model is talk.js; sounds, the title and notifications are alerts.js.

import { h } from "../dom.js";
import { errorText } from "../api.js";
import { has, safeGet, safeSet, t } from "../i18n.js";
import { mySeat } from "../kit/state.js";
import { createAlerts } from "./alerts.js";
import {
  BUBBLE_MS, EMOJI, MUTED_KEY, TALK_ERRORS, WATCHER_KEY, addLine, applyHistory, createTalk, errorParams, helloMessage,
  liveBubbles, mayWrite, mutedNames, newWatcherSecret, readMuted, setMuted, turnKey, writeMuted,
} from "./talk.js";

/** A reaction's face: its emoji, or its phrase in the page's language. */
export const reactionText = (key) => EMOJI[key] || t(`talk.r.${key}`);

/**
 * `ctx`: `{ code, root, s, send(message) -> request_id | null, announce(text), seated() }`. Returns the feed's handlers (`arrive`, `play`), and what main.js calls.
 */
export function createTalkDesk(ctx) {
  const { code, root, s } = ctx;
  const stored = readMuted(safeGet(MUTED_KEY));
  const names = new Map(stored); // speaker -> the name last seen for them
  const talk = createTalk({ muted: [...stored.keys()] });
  const alerts = createAlerts({ code });
  const requests = new Set(); // request ids of this page's talk messages
  let draft = null; // { requestId, text } of the line being sent
  let bubbleTimer = null;
  let wasSeated = null;
  let watcher = safeGet(WATCHER_KEY);
  if (!watcher) {
    watcher = newWatcherSecret(() => crypto.getRandomValues(new Uint32Array(1))[0] / 2 ** 32);
    safeSet(WATCHER_KEY, watcher);
  }

  const send = (message) => {
    const id = ctx.send(message);
    if (id !== null) requests.add(id);
    return id;
  };
  const speakerName = (line) => {
    if (line.speaker === talk.you) return t("talk.you");
    if (!line.name) return t("talk.spectator_name");
    // A spectator names themselves: said to be watching, never taken for a seated person.
    return line.seat === null || line.seat === undefined ? t("talk.watching", { name: line.name }) : line.name;
  };
  const lineText = (line) => (line.kind === "react" ? reactionText(line.text) : line.text);

  // ------------------------------------------------------------------ the panel
  const title = h("h2", { id: "talk-title", tabindex: "-1", text: t("talk.title") });
  const closeButton = h("button", { type: "button", class: "chip", id: "talk-close", on: { click: () => toggle(false) } });
  const reactionsBox = h("div", { class: "talk-reactions", role: "group" });
  const lines = h("ol", { class: "talk-list" });
  // The log scrolls (a keyboard can scroll it: it takes the focus) and is read out as it grows.
  const log = h("div", { class: "talk-lines", id: "talk-lines", role: "log", tabindex: "0" }, lines);
  const label = h("label", { class: "visually-hidden", for: "talk-input" });
  const input = h("input", {
    id: "talk-input", class: "talk-input", type: "text", autocomplete: "off", enterkeyhint: "send", maxlength: "200",
    "aria-describedby": "talk-error",
  });
  const sendButton = h("button", { type: "submit", class: "button primary talk-send" });
  const errorLine = h("p", { class: "talk-error", id: "talk-error", role: "status" });
  const note = h("p", { class: "muted talk-note" });
  const form = h("form", { class: "talk-form", on: { submit: (event) => { event.preventDefault(); sayDraft(); } } },
    label, h("div", { class: "talk-field" }, input, sendButton));
  const settings = h("details", { class: "talk-settings" });
  const panel = h("aside", {
    class: "talk-panel", id: "talk-panel", "aria-labelledby": "talk-title", hidden: true,
    on: { keydown: (event) => { if (event.key === "Escape") { event.stopPropagation(); toggle(false); } } },
  },
    h("div", { class: "talk-head" }, title, closeButton),
    reactionsBox, log, form, note, errorLine, settings);
  document.body.append(panel);

  /** Draw the panel from the model; the focus stays on the control it was on (by its id). */
  function drawPanel() {
    const active = document.activeElement;
    const focusId = active && panel.contains(active) && active.id ? active.id : null;
    drawParts();
    if (focusId && document.activeElement !== document.getElementById(focusId)) {
      document.getElementById(focusId)?.focus({ preventScroll: true });
    }
  }

  function drawParts() {
    const seated = ctx.seated();
    title.textContent = t("talk.title");
    closeButton.textContent = t("talk.close");
    reactionsBox.setAttribute("aria-label", t("talk.reactions"));
    reactionsBox.hidden = !seated || !talk.reactions.length;
    reactionsBox.replaceChildren(...talk.reactions.map((key) =>
      h("button", {
        type: "button", class: `chip talk-reaction${EMOJI[key] ? " emoji" : ""}`, "data-reaction": key, id: `talk-react-${key}`,
        "aria-label": t("talk.react_label", { reaction: EMOJI[key] ? t(`talk.r.${key}`) : reactionText(key) }),
        title: EMOJI[key] ? t(`talk.r.${key}`) : null,
        on: { click: () => react(key) },
      }, reactionText(key))));
    log.setAttribute("aria-label", t("talk.lines_label"));
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    lines.replaceChildren(...(talk.lines.length
      ? talk.lines.map(lineItem)
      : [h("li", { class: "muted talk-empty", text: t("talk.empty") })]));
    if (atEnd) log.scrollTop = log.scrollHeight;
    label.textContent = t("talk.message_label");
    input.placeholder = t("talk.placeholder");
    input.maxLength = talk.maxLength;
    sendButton.textContent = t("talk.send");
    const writes = mayWrite(talk, seated);
    form.hidden = !writes;
    note.hidden = writes;
    note.textContent = t("talk.spectator_note");
    errorLine.textContent = errorSentence(talk.error);
    drawSettings();
  }

  function errorSentence(error) {
    if (!error) return "";
    const key = `talk.errors.${error.code}`;
    return has(key) ? t(key, error.params) : errorText(error.code, error.message);
  }

  function lineItem(line) {
    const mine = line.speaker === talk.you;
    const name = speakerName(line);
    return h("li", { class: `talk-line ${line.kind}${mine ? " mine" : ""}`, "data-id": line.id },
      h("span", { class: "talk-name", text: name }),
      h("span", { class: "talk-text", text: lineText(line) }),
      mine
        ? null
        : h("button", {
            type: "button", class: "talk-mute", id: `talk-mute-${line.id}`, "aria-label": t("talk.mute_label", { name }),
            text: t("talk.mute"), on: { click: () => mute(line.speaker, true, name) },
          }));
  }

  function drawSettings() {
    const wasOpen = settings.open;
    const check = (id, text, checked, onChange, extra = {}) =>
      h("label", { class: "talk-check", for: id },
        h("input", { type: "checkbox", id, checked, ...extra, on: { change: onChange } }), h("span", { text }));
    const muted = mutedNames(talk, names);
    // replaceChildren writes a null as the text "null": the parts not shown are left out.
    settings.replaceChildren(...[
      h("summary", { id: "talk-settings-summary", text: t("talk.settings") }),
      talk.mayManage
        ? check("talk-spectators", t("talk.spectators_write"), talk.spectatorsWrite,
            (event) => send({ type: "talk_settings", spectators_write: event.target.checked }))
        : null,
      check("talk-sounds", t("talk.sounds"), alerts.soundsOn, (event) => alerts.setSounds(event.target.checked)),
      check("talk-notify", t("talk.notify"), alerts.notifyOn, async (event) => {
        await alerts.setNotify(event.target.checked);
        drawPanel();
      }, { disabled: !alerts.canNotify || alerts.notifyBlocked }),
      alerts.notifyBlocked ? h("p", { class: "muted", text: t("talk.notify_denied") }) : null,
      muted.length
        ? h("div", { class: "talk-muted" },
            h("h3", { text: t("talk.muted_title") }),
            h("ul", {}, muted.map(({ speaker, name }) =>
              h("li", {},
                h("span", { text: name || t("talk.spectator_name") }),
                h("button", {
                  type: "button", class: "talk-mute", id: `talk-unmute-${speaker}`,
                  "aria-label": t("talk.unmute_label", { name: name || t("talk.spectator_name") }),
                  text: t("talk.unmute"), on: { click: () => mute(speaker, false, name) },
                })))))
        : null,
    ].filter(Boolean));
    settings.open = wasOpen;
  }

  // ------------------------------------------------------------------ actions
  function sayDraft() {
    const text = input.value.trim();
    if (!text) return;
    const requestId = send({ type: "say", text });
    if (requestId === null) {
      refuse("offline");
      return;
    }
    draft = { requestId, text: input.value };
    talk.error = null;
    drawPanel();
  }

  function react(key) {
    if (send({ type: "react", reaction: key }) === null) refuse("offline");
  }

  function mute(speaker, muted, name) {
    if (name) names.set(speaker, name);
    setMuted(talk, speaker, muted);
    safeSet(MUTED_KEY, writeMuted(talk, names));
    send({ type: "mute", speaker, muted });
    if (muted) ctx.announce(t("talk.muted_hidden", { name: name || t("talk.spectator_name") }));
    drawPanel();
    decorate();
    (muted ? log : settings.querySelector("summary"))?.focus({ preventScroll: true });
  }

  function refuse(code, params = {}, message = "") {
    talk.error = { code, params, message };
    drawPanel();
  }

  /** The chip in the toolbar, drawn again in place (the table itself is not redrawn for talk). */
  function redrawChip() {
    const old = root.querySelector("#talk-toggle");
    if (!old) return;
    const focused = document.activeElement === old;
    const fresh = chip();
    old.replaceWith(fresh);
    if (focused) fresh.focus({ preventScroll: true });
  }

  function toggle(open = !talk.open) {
    talk.open = open;
    panel.hidden = !open;
    document.body.classList.toggle("talk-open", open); // a wide table makes room for it
    if (open) talk.unread = 0;
    drawPanel();
    redrawChip();
    if (open) (form.hidden ? title : input).focus({ preventScroll: true });
    else root.querySelector("#talk-toggle")?.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ messages
  function received(message) {
    const line = message.line;
    if (line && line.name) names.set(line.speaker, line.name);
    if (!addLine(talk, line, { now: performance.now() })) return;
    if (draft && message.request_id === draft.requestId) {
      if (input.value === draft.text) input.value = "";
      draft = null;
      talk.error = null;
    }
    if (line.speaker !== talk.you) ctx.announce(t(line.kind === "react" ? "talk.reacted" : "talk.said", { name: speakerName(line), text: line.text, reaction: lineText(line) }));
    drawPanel();
    redrawChip();
    decorate();
  }

  const arrive = {
    talk: received,
    talk_history: (message) => {
      applyHistory(talk, message);
      for (const line of talk.lines) if (line.name) names.set(line.speaker, line.name);
      drawPanel();
      redrawChip();
    },
    talk_muted: (message) => {
      if (Array.isArray(message.muted)) for (const speaker of message.muted) talk.muted.add(speaker);
    },
    talk_settings: (message) => {
      talk.spectatorsWrite = Boolean(message.spectators_write);
      drawPanel();
    },
  };
  const nothing = () => {};

  // ------------------------------------------------------------------ on the table
  function decorate() {
    for (const old of root.querySelectorAll(".talk-bubble")) old.remove();
    const now = performance.now();
    let next = Infinity;
    for (const [seat, bubble] of liveBubbles(talk, now)) {
      const place = root.querySelector(`.seat[data-seat="${seat}"] .seat-info`);
      // Drawn again with each state: its entrance goes on from where it was, never restarts.
      const style = { animationDelay: `${Math.round(bubble.until - BUBBLE_MS - now)}ms` };
      const text = bubble.kind === "react" ? reactionText(bubble.text) : bubble.text;
      if (place) place.append(h("span", { class: `talk-bubble ${bubble.kind}`, "aria-hidden": "true", style, text }));
      next = Math.min(next, bubble.until);
    }
    clearTimeout(bubbleTimer);
    if (next !== Infinity) bubbleTimer = setTimeout(decorate, Math.max(50, next - now));
  }

  /** The toolbar's chip that opens the panel (drawn with the toolbar, at every state). */
  function chip() {
    const text = talk.unread ? t("talk.open_unread", { count: talk.unread }) : t("talk.open");
    return h("button", {
      type: "button", class: `chip talk-toggle${talk.unread ? " unread" : ""}`, id: "talk-toggle", "data-focus": "talk-toggle",
      "aria-expanded": String(talk.open), "aria-controls": "talk-panel", on: { click: () => toggle() },
    }, h("span", { text: t("talk.open") }),
      talk.unread ? h("span", { class: "talk-unread", "aria-hidden": "true", text: String(talk.unread) }) : null,
      talk.unread ? h("span", { class: "visually-hidden", text: ` (${text})` }) : null);
  }

  return {
    arrive,
    play: { talk: nothing, talk_history: nothing, talk_muted: nothing, talk_settings: nothing },
    chip,
    decorate,
    /** The socket is open (again): say who this page is, and get the recent talk. */
    connected() {
      ctx.send(helloMessage(talk, { watcher, name: safeGet("nimmt.name") }));
    },
    /** An error for the talk (its codes, or the answer to a talk message): shown in the panel. */
    takeError(message) {
      const ours = message.request_id !== null && message.request_id !== undefined && requests.has(message.request_id);
      if (!ours && !TALK_ERRORS.includes(message.code)) return false;
      requests.delete(message.request_id);
      if (draft && message.request_id === draft.requestId) draft = null;
      refuse(message.code, errorParams(message), message.message);
      if (!talk.open) toggle(true);
      return true;
    },
    state() {
      alerts.turn(turnKey(s.view, mySeat(s)));
      const seated = ctx.seated(); // taking or leaving a seat changes what the panel offers
      if (seated !== wasSeated) drawPanel();
      wasSeated = seated;
    },
    event: (event) => alerts.event(event),
    redraw: drawPanel,
    destroy() {
      clearTimeout(bubbleTimer);
      alerts.destroy();
      panel.remove();
      document.body.classList.remove("talk-open");
    },
  };
}
