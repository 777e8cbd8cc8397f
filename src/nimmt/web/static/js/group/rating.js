// A small plot of each member's rating over the group's games: one polyline per member, in
// their avatar's colour, drawn as SVG elements (no inline style: the page's policy forbids it).

const SVG = "http://www.w3.org/2000/svg";

/** The points of each line, scaled into width × height (pure: tested with node --test). */
export function ratingLines(standings, width = 320, height = 120, pad = 6) {
  const series = standings.filter((line) => line.rating_over_time.length > 0);
  const values = series.flatMap((line) => line.rating_over_time.map((point) => point.rating));
  if (!values.length) return [];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const longest = Math.max(...series.map((line) => line.rating_over_time.length));
  const x = (index) => pad + (longest < 2 ? 0 : (index * (width - 2 * pad)) / (longest - 1));
  const y = (value) => height - pad - ((value - low) * (height - 2 * pad)) / span;
  return series.map((line) => ({
    name: line.name,
    colour: line.colour,
    points: line.rating_over_time.map((point, index) => [Math.round(x(index) * 10) / 10, Math.round(y(point.rating) * 10) / 10]),
  }));
}

export function ratingPlot(standings, label) {
  const lines = ratingLines(standings);
  if (!lines.length) return null;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 320 120");
  svg.setAttribute("class", "rating-plot");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  for (const line of lines) {
    const path = document.createElementNS(SVG, "polyline");
    path.setAttribute("points", line.points.map((point) => point.join(",")).join(" "));
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", line.colour);
    path.setAttribute("stroke-width", "2");
    const title = document.createElementNS(SVG, "title");
    title.textContent = line.name;
    path.append(title);
    svg.append(path);
  }
  return svg;
}
