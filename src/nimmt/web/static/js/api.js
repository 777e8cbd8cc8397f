// The JSON API (docs/protocol.md). Every failure becomes an ApiError carrying the server's
// snake_case code, so the page can show the translated sentence for it.

import { has, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export async function api(method, path, body = undefined) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError("network", String(err));
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `http_${res.status}`, error.message || res.statusText, res.status);
  }
  return data;
}

/** The sentence to show for an error code, in the page's language. */
export function errorText(code, message = "") {
  if (code && has(`errors.${code}`)) return t(`errors.${code}`);
  return message ? t("errors.generic_with_message", { message }) : t("errors.generic");
}

export const tokenKey = (code) => `nimmt.token.${code}`;
