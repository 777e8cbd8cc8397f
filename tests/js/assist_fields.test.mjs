// The assistant's number fields (src/nimmt/web/static/js/assist/fields.js), without a browser:
// when a typed card is complete, and why a card is refused in place.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { cannotGrow, digitsOf, problemOf } from "../../src/nimmt/web/static/js/assist/fields.js";

describe("cannotGrow", () => {
  test("a number that a further digit could still make a card waits", () => {
    for (const digits of ["", "1", "2", "9", "10"]) assert.equal(cannotGrow(digits), false, digits);
  });
  test("11 to 99 and any three digits are complete at once", () => {
    for (const digits of ["11", "42", "99", "100", "104", "105", "999"]) assert.equal(cannotGrow(digits), true, digits);
  });
  test("a leading zero is complete (and then refused): no card starts with 0", () => {
    assert.equal(cannotGrow("0"), true);
  });
});

describe("digitsOf", () => {
  test("keeps the digits only, at most three", () => {
    assert.equal(digitsOf(" 4a2 "), "42");
    assert.equal(digitsOf("1234"), "123");
    assert.equal(digitsOf("x"), "");
  });
});

describe("problemOf", () => {
  const seen = new Set([10, 20, 30, 40, 55]);
  test("a card outside 1 to 104", () => {
    assert.deepEqual(problemOf(0, 0, [0], seen), { code: "card_out_of_range", card: 0 });
    assert.deepEqual(problemOf(105, 0, [105], seen), { code: "card_out_of_range", card: 105 });
  });
  test("a card on the table or played this round", () => {
    assert.deepEqual(problemOf(55, 1, [3, 55, null], seen), { code: "card_seen", card: 55 });
  });
  test("a card typed in another field of the entry", () => {
    assert.deepEqual(problemOf(7, 2, [7, null, 7], seen), { code: "card_twice", card: 7 });
    assert.equal(problemOf(7, 0, [7, null, null], seen), null);
  });
  test("a good card", () => {
    assert.equal(problemOf(104, 0, [104, 1], new Set()), null);
  });
});
