// The interface texts: one catalogue per language (de, fr, en) under /static/i18n/. Every text
// is a whole sentence with named placeholders ("{name} takes row {row}"); nothing is glued from
// words. Plural forms are objects keyed by Intl.PluralRules categories ({"one": ..., "other": ...}).

export const LANGUAGES = ["de", "fr", "en"];
const STORAGE_KEY = "nimmt.lang";

let lang = "en";
let catalogue = {};
let fallback = {};

/** The language to use: the one chosen before, else the browser's first supported one, else en. */
export function pickLanguage() {
  const stored = safeGet(STORAGE_KEY);
  if (stored && LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(code) {
  const res = await fetch(`/static/i18n/${code}.json`, { cache: "no-cache" });
  if (!res.ok) throw new Error(`catalogue ${code}: HTTP ${res.status}`);
  return res.json();
}

export async function setLanguage(code, remember = false) {
  if (!LANGUAGES.includes(code)) code = "en";
  if (remember) safeSet(STORAGE_KEY, code);
  const [main, english] = await Promise.all([
    load(code).catch(() => null),
    code === "en" ? null : load("en"),
  ]);
  if (!main) code = "en"; // a catalogue that cannot be read: English rather than no page
  catalogue = main || english;
  fallback = english || main;
  lang = code;
  document.documentElement.lang = code;
}

export const currentLanguage = () => lang;

function lookup(table, key) {
  let node = table;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

export function has(key) {
  return lookup(catalogue, key) !== undefined || lookup(fallback, key) !== undefined;
}

/** The text for `key` with `{placeholders}` filled from `params`; `params.count` picks a plural. */
export function t(key, params = {}) {
  let text = lookup(catalogue, key);
  if (text === undefined) text = lookup(fallback, key);
  if (text === undefined) return key;
  if (typeof text === "object") {
    const category = new Intl.PluralRules(lang).select(Number(params.count ?? 0));
    text = text[category] ?? text.other;
  }
  return String(text).replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

/** Names joined the way the language joins a list ("Ana, Ben and Cleo"). */
export function formatList(items) {
  return new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);
}

export function safeGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function safeSet(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}
