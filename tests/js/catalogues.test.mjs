// The three catalogues (static/i18n): the same keys (and plural forms) in each, French
// typography (a narrow no-break space before : ; ! ?, the typographic apostrophe) and one way to
// address the player in French (vous, as at the table), in every message.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const load = (lang) => JSON.parse(readFileSync(new URL(`../../src/nimmt/web/static/i18n/${lang}.json`, import.meta.url), "utf8"));
const catalogues = { de: load("de"), fr: load("fr"), en: load("en") };

/** Every message as [key, text]; a plural's forms as key.one, key.other. */
function messages(node, prefix = "") {
  return Object.entries(node).flatMap(([key, value]) =>
    typeof value === "string" ? [[prefix + key, value]] : messages(value, `${prefix}${key}.`));
}

const sections = (catalogue) => new Set(messages(catalogue).map(([key]) => key.replace(/\.(one|other|few|many)$/, "")));

test("every catalogue has the same messages", () => {
  const en = sections(catalogues.en);
  for (const lang of ["de", "fr"]) {
    const other = sections(catalogues[lang]);
    assert.deepEqual([...en].filter((key) => !other.has(key)), [], `missing in ${lang}`);
    assert.deepEqual([...other].filter((key) => !en.has(key)), [], `only in ${lang}`);
  }
});

test("French puts a narrow no-break space before : ; ! ? and writes ’", () => {
  const wrong = messages(catalogues.fr).filter(([, text]) =>
    /[^\u202f]([;!?])/.test(text.replace(/\{[^}]*\}/g, "x").replace(/https?:\/\/\S+/g, "")) ||
    /[ \u00a0]:/.test(text) || text.includes("'"));
  assert.deepEqual(wrong, []);
});

test("French says vous to the player everywhere, never tu", () => {
  const tu = messages(catalogues.fr).filter(([, text]) => /(?<!\p{L})(tu|ton|ta|tes|toi)(?!\p{L})/iu.test(text));
  assert.deepEqual(tu, []);
});
