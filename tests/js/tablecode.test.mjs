// A table's code as a person types or pastes it (src/nimmt/web/static/js/tablecode.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { CODE_PATTERN, tableCodeOf } from "../../src/nimmt/web/static/js/tablecode.js";

test("the spaces around a pasted code are not part of it", () => {
  // A leading space once took one of the field's six places: " Q3LGK".
  assert.equal(tableCodeOf(" Q3LGKA"), "Q3LGKA");
  assert.equal(tableCodeOf("\tq3lgka \n"), "Q3LGKA");
  assert.match(tableCodeOf(" Q3LGKA "), CODE_PATTERN);
});

test("a table's link gives its code", () => {
  for (const link of [
    "http://host/t/Q3LGKA",
    "https://nimmt.example:8443/t/q3lgka",
    " https://nimmt.example/t/Q3LGKA/ ",
    "https://nimmt.example/t/Q3LGKA/board",
    "https://nimmt.example/t/Q3LGKA?x=1#r2t5",
    "/t/Q3LGKA",
  ]) {
    assert.equal(tableCodeOf(link), "Q3LGKA", link);
  }
});

test("anything else stays as it is, to be refused", () => {
  assert.equal(tableCodeOf("https://nimmt.example/rules/fr"), "HTTPS://NIMMT.EXAMPLE/RULES/FR");
  assert.equal(tableCodeOf("https://nimmt.example/t/Q3LGKAB"), "HTTPS://NIMMT.EXAMPLE/T/Q3LGKAB");
  assert.doesNotMatch(tableCodeOf("K7Q"), CODE_PATTERN);
  assert.equal(tableCodeOf(undefined), "");
});
