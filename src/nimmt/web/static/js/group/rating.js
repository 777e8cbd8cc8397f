// The plot of each member's rating over the group's games: a figure with its caption, the
// axes' titles (games of the group across, rating up), ticks with their values, one polyline
// per member in their avatar's colour, a legend naming them, and the same figures as a
// visually hidden table for screen readers. SVG attributes only, no inline style attribute
// (the page's policy forbids it; colours of HTML swatches go through the CSSOM).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { formatDay, formatDecimal, personName } from "../profile/people.js";

const SVG = "http://www.w3.org/2000/svg";
export const PLOT = { width: 360, height: 200, left: 46, right: 12, top: 12, bottom: 30 };

/** The group's games that moved a rating, oldest first: `{key, finished_at}`. */
export function ratedGames(standings) {
  const games = new Map();
  for (const line of standings) {
    for (const point of line.rating_over_time) {
      const key = `${point.table}#${point.game}`;
      if (!games.has(key)) games.set(key, { key, finished_at: point.finished_at });
    }
  }
  return [...games.values()].sort((a, b) => a.finished_at.localeCompare(b.finished_at));
}

/**
 * The plot's lines and scales (pure: tested with node --test). A point's x is its game's place
 * among the group's rated games (a member who joined later starts further right), its y the
 * rating between the lowest and the highest one.
 */
export function ratingLines(standings, box = PLOT) {
  const games = ratedGames(standings);
  const series = standings.filter((line) => line.rating_over_time.length > 0);
  const values = series.flatMap((line) => line.rating_over_time.map((point) => point.rating));
  if (!values.length) return { lines: [], games, low: 0, high: 0, x: () => 0, y: () => 0 };
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const across = box.width - box.left - box.right;
  const up = box.height - box.top - box.bottom;
  const place = new Map(games.map((game, index) => [game.key, index]));
  const round = (value) => Math.round(value * 10) / 10;
  const x = (index) => round(box.left + (games.length < 2 ? across / 2 : (index * across) / (games.length - 1)));
  const y = (value) => round(box.top + up - ((value - low) * up) / span);
  const lines = series.map((line) => ({
    name: personName(line),
    colour: line.colour,
    points: line.rating_over_time.map((point) => [x(place.get(`${point.table}#${point.game}`)), y(point.rating)]),
  }));
  return { lines, games, low, high, x, y };
}

function svgEl(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Which games get a numbered tick: all up to 8, else about 6 evenly spread and the last. */
export function tickGames(count) {
  if (count <= 8) return [...Array(count).keys()];
  const step = Math.ceil(count / 6);
  const ticks = [];
  for (let index = 0; index < count - 1; index += step) ticks.push(index);
  if (count - 1 - ticks[ticks.length - 1] < step / 2) ticks.pop();
  ticks.push(count - 1);
  return ticks;
}

function drawing(plot) {
  const { lines, games, low, high, x, y } = plot;
  const box = PLOT;
  const svg = svgEl("svg", { viewBox: `0 0 ${box.width} ${box.height}`, class: "rating-plot", "aria-hidden": "true", focusable: "false" });
  const bottom = box.height - box.bottom;
  svg.append(svgEl("line", { x1: box.left, y1: box.top, x2: box.left, y2: bottom, class: "axis" }));
  svg.append(svgEl("line", { x1: box.left, y1: bottom, x2: box.width - box.right, y2: bottom, class: "axis" }));
  const levels = high === low ? [low] : [low, (low + high) / 2, high];
  for (const level of levels) {
    svg.append(svgEl("line", { x1: box.left, y1: y(level), x2: box.width - box.right, y2: y(level), class: "grid" }));
    svg.append(svgEl("text", { x: box.left - 5, y: y(level) + 4, "text-anchor": "end", class: "tick" }, formatDecimal(level, 1)));
  }
  for (const index of tickGames(games.length)) {
    svg.append(svgEl("text", { x: x(index), y: bottom + 18, "text-anchor": "middle", class: "tick" }, String(index + 1)));
  }
  for (const line of lines) {
    const attrs = { fill: "none", stroke: line.colour, "stroke-width": 2.5, "stroke-linejoin": "round" };
    svg.append(svgEl("polyline", { ...attrs, points: line.points.map((point) => point.join(",")).join(" ") }));
    for (const [px, py] of line.points) svg.append(svgEl("circle", { cx: px, cy: py, r: 3, fill: line.colour }));
  }
  return svg;
}

function figuresTable(standings, games, caption, words) {
  const shown = standings.filter((line) => line.rating_over_time.length > 0);
  // The wrapper hides it: a table box itself ignores overflow, and would widen the page.
  return h("div", { class: "visually-hidden" }, h("table", {},
    h("caption", { text: caption }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: t(words.game) }),
      shown.map((line) => h("th", { scope: "col", text: personName(line) })))),
    h("tbody", {}, games.map((game, index) => h("tr", {},
      h("th", { scope: "row", text: t(words.game_n, { n: index + 1, date: formatDay(game.finished_at) }) }),
      shown.map((line) => {
        const point = line.rating_over_time.find((p) => `${p.table}#${p.game}` === game.key);
        return h("td", { text: point ? formatDecimal(point.rating, words.digits) : "–" });
      }))))));
}

/** The group's words for the plot; a person's history hands its own (profile/history.js). */
export const RATING_WORDS = {
  caption: "group.rating_plot", y: "group.plot_y", x: "group.plot_x", legend: "group.plot_legend",
  table: "group.plot_table", game: "group.plot_game", game_n: "group.plot_game_n", digits: 1,
};

/**
 * The whole figure, or null before a first game with a value. `lines`: the standings' shape
 * (`name`, `colour`, `rating_over_time`: `{table, game, finished_at, rating}`); `words`: the
 * catalogue keys of its texts (RATING_WORDS's); `legend`: false for a single line.
 */
export function ratingPlot(lines, { words = {}, legend = true, id = "rating-plot" } = {}) {
  const texts = { ...RATING_WORDS, ...words };
  const plot = ratingLines(lines);
  if (!plot.lines.length) return null;
  const caption = t(texts.caption);
  return h("figure", { class: "rating-figure", id },
    h("figcaption", { text: caption }),
    h("p", { class: "plot-axis y-axis", "aria-hidden": "true", text: t(texts.y) }),
    drawing(plot),
    h("p", { class: "plot-axis x-axis", "aria-hidden": "true", text: t(texts.x) }),
    legend
      ? h("ul", { class: "plot-legend", "aria-label": t(texts.legend) }, plot.lines.map((line) => h("li", {},
        h("span", { class: "swatch-line", "aria-hidden": "true", style: { backgroundColor: line.colour } }), " ", line.name)))
      : null,
    figuresTable(lines, plot.games, t(texts.table), texts));
}
