// Where a replay comes from: a table's finished game (GET /api/tables/{code}/replay) or a record
// file the reader brings (POST /api/replay, docs/protocol.md "Replays"), and the sentences for
// a game that cannot be shown. The server's rules engine computes every step; nothing here
// draws.

import { ApiError, api, errorText } from "../api.js";
import { t } from "../i18n.js";

export const MAX_RECORD_BYTES = 256 * 1024; // the server's default limit for POST /api/replay

/** A table's game `game` (null: its last one), as steps. */
export function tableReplay(code, game) {
  const query = game ? `?game=${encodeURIComponent(game)}` : "";
  return api("GET", `/api/tables/${code}/replay${query}`);
}

/** The page for a table's game that cannot be shown: `{ title, text, back }`. */
export function tableErrorText(err) {
  const reason = err && err.code;
  if (reason === "game_not_finished") return { title: t("replay.running_title"), text: t("replay.running"), back: true };
  if (reason === "table_not_found") return { title: t("errors.table_not_found_title"), text: errorText(reason) };
  if (reason === "game_not_found") return { title: t("replay.not_found_title"), text: errorText(reason), back: true };
  return { title: t("replay.failed_title"), text: errorText(reason, err && err.message) };
}

/** The sentence for a file too large to send (null: small enough). */
export const fileSizeProblem = (file) =>
  file.size > MAX_RECORD_BYTES ? t("replay.file_too_large", { name: file.name, size: Math.round(MAX_RECORD_BYTES / 1024) }) : null;

/** A record file's text replayed by the server; throws an ApiError when it refuses the record. */
export async function replayRecord(text) {
  const res = await fetch("/api/replay", { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `http_${res.status}`, error.message || res.statusText, res.status);
  }
  return data;
}

/** The sentence for a record file `name` that could not be replayed. */
export const recordErrorText = (err, name) =>
  err && err.code === "bad_record"
    ? t("replay.bad_record", { name, reason: err.message })
    : errorText(err && err.code, err && err.message);
