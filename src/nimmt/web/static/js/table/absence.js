// An absent player (docs/protocol.md, "An absent player"): when a seated person has been away
// for the table's delay, the others see it and may agree to let a bot play for them. The system
// never chooses for a person: the handover happens only once every other person present agreed,
// and anyone may decline. Pure helpers over the table's `absence` summary, and the panel drawn
// from them; `send(message)` sends a step (propose, agree, decline, withdraw).

import { h } from "../dom.js";
import { botLabel } from "../kit/text.js";

/** The card a bot chose for seat `me` before its person came back stands for this turn. */
export const cardStandsFor = (table, me) =>
  Boolean(table && table.absence && (table.absence.card_stands || []).includes(me));

/**
 * Where things stand for this page: `{ absent, proposal, standIns, cardStands }`, or null (and
 * null once the game is over: nobody is waited for at a finished table, and the score sheet
 * needs the room).
 */
export function absenceStatus(table, me) {
  const info = table && table.absence;
  if (!info || table.finished) return null;
  const standIns = info.stand_ins || [];
  const proposal = info.proposal || null;
  const absent = (info.away || []).filter((entry) => entry.absent && entry.seat !== me);
  return {
    absent,
    proposal: proposal && {
      ...proposal,
      mine: proposal.by === me,
      agreedByMe: (proposal.agreed || []).includes(me),
      canAgree: (proposal.needed || []).includes(me),
      waitingFor: (proposal.needed || []).filter((seat) => !(proposal.agreed || []).includes(seat)),
    },
    standIns,
    cardStands: cardStandsFor(table, me),
  };
}

/** Whole minutes away, counted on from the message (`receivedAt`, ms) to `now` (ms). */
export function minutesAway(seconds, receivedAt, now) {
  return Math.max(0, Math.floor((seconds + Math.max(0, now - receivedAt) / 1000) / 60));
}

/** The panel above the board, or null when nobody is absent and nothing is proposed. */
export function renderAbsence({ status, seated, bots, words, receivedAt, send }) {
  if (!status) return null;
  const { t, has, formatList, nameOf } = words;
  const lines = [];
  if (status.cardStands) lines.push(h("p", { text: t("absence.card_stands") }));
  for (const { seat, bot } of status.standIns) {
    lines.push(h("p", { text: t("absence.stand_in", { name: nameOf(seat), bot: botLabel(bot, { t, has }) }) }));
  }
  const proposal = status.proposal;
  if (proposal) {
    const key = proposal.mine ? "absence.proposed_you" : "absence.proposed";
    lines.push(h("p", { id: "absence-proposal", text: t(key, { by: nameOf(proposal.by), name: nameOf(proposal.seat), bot: botLabel(proposal.bot, { t, has }) }) }));
    const agreed = (proposal.agreed || []).map((seat) => nameOf(seat));
    const waiting = proposal.waitingFor.map((seat) => nameOf(seat));
    lines.push(h("p", { class: "muted", text: t("absence.agreed", { names: formatList(agreed) }) }));
    if (waiting.length) lines.push(h("p", { class: "muted", text: t("absence.waiting", { names: formatList(waiting) }) }));
    if (seated) {
      const buttons = [];
      if (proposal.canAgree && (!proposal.agreedByMe || !waiting.length)) {
        buttons.push(h("button", { type: "button", class: "button", "data-focus": "absence-agree", text: t(proposal.agreedByMe ? "absence.confirm" : "absence.agree"), on: { click: () => send({ type: "agree" }) } }));
      }
      if (proposal.mine) {
        buttons.push(h("button", { type: "button", class: "button ghost", "data-focus": "absence-withdraw", text: t("absence.withdraw"), on: { click: () => send({ type: "withdraw" }) } }));
      } else {
        buttons.push(h("button", { type: "button", class: "button ghost", "data-focus": "absence-decline", text: t("absence.decline"), on: { click: () => send({ type: "decline" }) } }));
      }
      lines.push(h("div", { class: "absence-actions" }, ...buttons));
    }
  }
  for (const { seat, seconds } of status.absent) {
    if (status.standIns.some((entry) => entry.seat === seat)) continue;
    const minutes = minutesAway(seconds, receivedAt, Date.now());
    // A table's delay may be under a minute (docs/protocol.md: 2 s at least): never "0 minutes".
    lines.push(h("p", { text: minutes < 1 ? t("absence.away_moment", { name: nameOf(seat) }) : t("absence.away", { name: nameOf(seat), count: minutes }) }));
    if (seated && !proposal) {
      const levels = bots && bots.length ? bots : ["medium"];
      const id = `absence-bot-${seat}`;
      const select = h("select", { id, name: "bot" }, ...levels.map((bot) => h("option", { value: bot, text: botLabel(bot, { t, has }) })));
      select.value = levels.includes("medium") ? "medium" : levels[0];
      lines.push(h("div", { class: "absence-actions" },
        h("label", { for: id, text: t("absence.bot_label") }), select,
        h("button", { type: "button", class: "button", "data-focus": `absence-propose-${seat}`, text: t("absence.propose", { name: nameOf(seat) }),
          on: { click: () => send({ type: "propose", seat, bot: select.value }) } })));
    }
  }
  if (!lines.length) return null;
  // The person back at their seat reads about themselves: not "Away from the table".
  const title = status.cardStands && lines.length === 1 ? t("absence.back_title") : t("absence.title");
  return h("section", { class: "absence", id: "absence", "aria-labelledby": "absence-title", role: "region" },
    h("h2", { id: "absence-title", class: "absence-title", text: title }), ...lines);
}
