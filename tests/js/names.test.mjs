// Display names counted as the server counts them (src/nimmt/web/static/js/names.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { NAME_MAX, cleanName, nameLength, nameProblem } from "../../src/nimmt/web/static/js/names.js";

const FAMILY = "\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
const FLAG_FR = "\u{1F1EB}\u{1F1F7}";
const THUMB_MEDIUM = "\u{1F44D}\u{1F3FD}";

test("an emoji sequence is one character", () => {
  assert.equal(nameLength(FAMILY), 1);
  assert.equal(nameLength(FLAG_FR), 1);
  assert.equal(nameLength(THUMB_MEDIUM), 1);
  assert.equal(nameLength(`Ana ${FAMILY}`), 5);
  assert.equal(nameLength("Zoe\u0308"), 3);
});

test("the limit counts grapheme clusters, not UTF-16 units", () => {
  assert.equal(FAMILY.repeat(NAME_MAX).length, 11 * NAME_MAX);
  assert.equal(nameProblem(FAMILY.repeat(NAME_MAX)), null);
  assert.equal(nameProblem(FAMILY.repeat(NAME_MAX + 1)), "too_long");
  assert.equal(nameProblem("x".repeat(NAME_MAX)), null);
  assert.equal(nameProblem("x".repeat(NAME_MAX + 1)), "too_long");
});

test("white space is folded and trimmed, a blank name is missing", () => {
  assert.equal(cleanName("  Ana \t\n Ben "), "Ana Ben");
  assert.equal(cleanName("e\u0301"), "\u00e9");
  // Folding counts: 24 letters with spaces between them folded stay within the limit.
  assert.equal(nameProblem(`${"x".repeat(12)}     ${"y".repeat(11)}`), null);
  assert.equal(nameProblem("   "), "missing");
  assert.equal(nameProblem(undefined), "missing");
});
