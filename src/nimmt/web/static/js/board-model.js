// The board view's model (no DOM): when the score sheet stands beside the rows, and the link
// people join by. The rest of the board's data is the table's own (kit/state.js).

/**
 * Whether the board shows the score sheet: at game over, and between rounds, that is while a
 * new round's first cards are being chosen (the rows stay in view: people choose from them).
 */
export function sheetShown(view) {
  if (!view) return false;
  if (view.phase === "game_over") return Boolean(view.outcome);
  return view.score_sheet.length > 0 && view.turn === 0 && !view.revealed && view.phase !== "waiting";
}

/** The link to the table, as the QR code carries it (`origin` like "http://192.168.1.5:8000"). */
export const joinUrl = (origin, code) => `${origin}/t/${code}`;

/** Free human seats at the table (the QR code invites to them). */
export const freeSeats = (table) =>
  table ? table.seats.filter((seat) => seat.kind === "human" && !seat.occupied).length : 0;
