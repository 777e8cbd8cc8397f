// A table's code as a person gives it: typed, or pasted with the spaces around it, or the whole
// link to the table (any address whose path is /t/CODE, the board's /t/CODE/board too). No DOM:
// runs under node --test too.

/** Six letters and digits, without the ones easily mistaken for others (I, O, 0, 1). */
export const CODE_PATTERN = /^[A-HJ-NP-Z2-9]{6}$/;

/** How many characters the code field takes: a code, or a table's whole link. */
export const CODE_INPUT_MAX = 200;

/** The code in `raw` (upper case), or the trimmed text when it holds none (to be refused). */
export function tableCodeOf(raw) {
  const text = String(raw ?? "").trim();
  const link = text.match(/^(?:[a-z][a-z0-9+.-]*:\/\/[^/\s]*)?\/t\/([A-Za-z0-9]{6})(?:\/[^\s?#]*)?(?:[?#]\S*)?$/i);
  return (link ? link[1] : text).toUpperCase();
}
