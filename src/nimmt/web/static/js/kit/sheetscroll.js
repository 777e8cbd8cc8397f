// The score table in its sideways-scrolling box, for every page that shows a score sheet. Where
// the rounds do not all fit (seven rounds on a phone held sideways), the box says so: a shadow on
// the pinned name and Total columns at each side where rounds are hidden, and a short hint under
// it; it opens on the latest rounds. The box is a named, focusable region, so the arrow keys
// scroll it too.

import { h } from "../dom.js";
import { t } from "../i18n.js";

/** Mark which sides of `box` hide content (`data-more-start`, `data-more-end`). */
export function markHidden(box) {
  const hiddenStart = box.scrollLeft > 1;
  const hiddenEnd = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
  box.toggleAttribute("data-more-start", hiddenStart);
  box.toggleAttribute("data-more-end", hiddenEnd);
  box.closest(".sheet-scroll-box")?.toggleAttribute("data-overflows", hiddenStart || hiddenEnd);
}

/** The box around a score table (render.js renderScoreTable). */
export function sheetScroll(table) {
  // The latest rounds in sight (the hidden ones, if any, are the earlier ones) until the person
  // scrolls the box: each resize scrolls it to its end again until then.
  let scrolledByUs = false;
  let scrolledByPerson = false;
  const box = h("div", {
    class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("sheet.caption"),
    on: {
      scroll: () => {
        if (scrolledByUs) scrolledByUs = false;
        else scrolledByPerson = true;
        markHidden(box);
      },
    },
  }, table);
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => {
      if (!box.isConnected) return;
      if (!scrolledByPerson) {
        const before = box.scrollLeft;
        box.scrollLeft = box.scrollWidth;
        scrolledByUs = box.scrollLeft !== before;
      }
      markHidden(box);
    }).observe(box);
  }
  return h("div", { class: "sheet-scroll-box" },
    box,
    h("p", { class: "sheet-scroll-hint", "aria-hidden": "true", text: t("sheet.scroll_hint") }));
}
