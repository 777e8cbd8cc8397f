// Display names as the server takes them (docs/protocol.md, "take a seat"): trimmed, runs of
// white space folded into one space, at most NAME_MAX characters counted as people count them,
// in grapheme clusters, so that an emoji sequence (👩‍👩‍👧‍👦, 🇫🇷, 👍🏽) is one character, as
// the server counts it. No DOM: runs under node --test too.

export const NAME_MAX = 24;

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** A name as the server will store it: trimmed, white space folded, composed (NFC). */
export const cleanName = (raw) => String(raw ?? "").trim().split(/\s+/).join(" ").normalize("NFC");

/** How many characters a name has, in grapheme clusters. */
export const nameLength = (name) => [...graphemes.segment(name)].length;

/** What is wrong with a name before it is sent: "missing", "too_long", or null. */
export function nameProblem(raw) {
  const name = cleanName(raw);
  if (!name) return "missing";
  if (nameLength(name) > NAME_MAX) return "too_long";
  return null;
}
