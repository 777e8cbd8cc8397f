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
  const box = h("div", {
    class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("sheet.caption"),
    on: { scroll: () => markHidden(box) },
  }, table);
  let first = true;
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => {
      if (!box.isConnected) return;
      // The latest rounds first: the ones hidden, if any, are the earlier ones.
      if (first) box.scrollLeft = box.scrollWidth;
      first = false;
      markHidden(box);
    }).observe(box);
  }
  return h("div", { class: "sheet-scroll-box" },
    box,
    h("p", { class: "sheet-scroll-hint", "aria-hidden": "true", text: t("sheet.scroll_hint") }));
}
