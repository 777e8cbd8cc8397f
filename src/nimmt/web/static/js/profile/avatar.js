// A profile's avatar: its emoji on its colour (both from the server's fixed lists).

import { h } from "../dom.js";

export function avatarEl(person, size = "") {
  return h("span", {
    class: `avatar ${size}`.trim(),
    style: { backgroundColor: person.colour || "#5d6d7e" },
    "aria-hidden": "true",
    text: person.emoji || "?",
  });
}
