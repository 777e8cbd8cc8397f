// The group page's rating plot: each member's ratings scaled into the plot, members without a
// game left out.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ratingLines } from "../../src/nimmt/web/static/js/group/rating.js";

const point = (rating) => ({ table: "ABCDEF", game: 1, finished_at: "", rating });

test("lines span the plot, the best rating highest", () => {
  const lines = ratingLines([
    { name: "Ana", colour: "#1f5a45", rating_over_time: [point(0), point(4)] },
    { name: "Ben", colour: "#2e6fb7", rating_over_time: [point(-2), point(-4)] },
    { name: "Cy", colour: "#8c3fa8", rating_over_time: [] },
  ], 100, 50, 0);
  assert.deepEqual(lines.map((line) => line.name), ["Ana", "Ben"]);
  assert.deepEqual(lines[0].points, [[0, 25], [100, 0]]);
  assert.deepEqual(lines[1].points, [[0, 37.5], [100, 50]]);
});

test("no games, no lines", () => {
  assert.deepEqual(ratingLines([{ name: "Ana", colour: "#000", rating_over_time: [] }]), []);
});
