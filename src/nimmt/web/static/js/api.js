// The JSON API (docs/protocol.md). Every failure becomes an ApiError carrying the server's
// snake_case code, so the page can show the translated sentence for it.

import { has, safeGet, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message, status = 0, retryAfter = null) {
    super(message);
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter; // seconds, from a Retry-After header (429 quota_exceeded)
  }
}

export async function api(method, path, body = undefined) {
  let res;
  try {
    const headers = body === undefined ? {} : { "Content-Type": "application/json" };
    // A signed-in device proves its profile by this header (never a cookie: docs/protocol.md 7).
    const profile = safeGet(PROFILE_KEY);
    if (profile) headers.Authorization = `Bearer ${profile}`;
    res = await fetch(path, {
      method,
      headers,
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
    const retry = Number.parseInt(res.headers.get("Retry-After") || "", 10);
    throw new ApiError(error.code || `http_${res.status}`, error.message || res.statusText, res.status,
      Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  return data;
}

/**
 * The sentence to show for an error code, in the page's language. A name the server refuses
 * comes with its reason in the server's words ("A name cannot hold control characters."), more
 * telling than the general rule; the page's own checks keep their translated sentences.
 */
export function errorText(code, message = "") {
  if (code === "bad_name" && message) return t("errors.bad_name_reason", { message });
  if (code && has(`errors.${code}`)) return t(`errors.${code}`);
  if (code === "http_429") return t("errors.rate_limited");
  if (code === "http_413") return t("errors.too_large");
  return message ? t("errors.generic_with_message", { message }) : t("errors.generic");
}

/** The sentence for a failed request: errorText, with the wait when the server asks for one. */
export function apiErrorText(err) {
  if (err && err.code === "quota_exceeded" && err.retryAfter) {
    return t("errors.quota_exceeded_wait", { count: Math.max(1, Math.ceil(err.retryAfter / 60)) });
  }
  return errorText(err && err.code, err && err.message);
}

/** Run `action` (an async function); the text of what went wrong, or null when it worked. */
export async function failureOf(action) {
  try {
    await action();
    return null;
  } catch (err) {
    return apiErrorText(err);
  }
}

export const tokenKey = (code) => `nimmt.token.${code}`;

/** Where this browser keeps its profile's device secret. */
export const PROFILE_KEY = "nimmt.profile";
