// Playing again by agreement (docs/protocol.md, `rematch`): after game over each person seated
// says whether they want another game; it starts when every one of them does (bots always do).
// Pure functions over the table's `rematch` summary; no DOM. The `rematch_vote` event's sentence,
// which every page says, is kit/text.js rematchVoteSentence.

/**
 * Where the agreement stands for this page: `{ ready, needed, mine, count, total }`, or null
 * while the game goes on. `ready`/`needed`: seats (the table's `rematch`), `mine`: this page's
 * seat agreed.
 */
export function rematchStatus(table, me) {
  const info = table && table.rematch;
  if (!info) return null;
  const needed = info.needed || [];
  const ready = (info.ready || []).filter((seat) => needed.includes(seat));
  return {
    ready,
    needed,
    mine: me !== null && me !== undefined && ready.includes(me),
    count: ready.length,
    total: needed.length,
  };
}

/** The line on the final sheet: how many are ready and who ("2 of 3 ready: Ana and you"). */
export function rematchText(status, words) {
  const { t, formatList, nameOf, me } = words;
  if (!status || !status.total) return "";
  const count = t("rematch.ready_count", { count: status.count, total: status.total });
  if (!status.count) return count;
  const names = formatList(status.ready.map((seat) => (seat === me ? t("seat.you") : nameOf(seat))));
  return t("rematch.ready_names", { count, names });
}
