// The "leave the seat" dialog: a <dialog> made on first use and kept outside the redrawn page.
// Before the first deal leaving frees the seat; during a game a bot of the player's choice takes
// it over. `onLeave(bot)` is called when the player confirms; the focus then goes back to the
// toolbar's leave button.

import { clear, h } from "../dom.js";
import { has, t } from "../i18n.js";
import { botLabel } from "../kit/text.js";

/** `root`: the table page (for the focus); `isGone()`: the page was left meanwhile. */
export function createLeaveDialog({ root, onLeave, isGone }) {
  let dialog = null;

  function make() {
    const select = h("select", { id: "leave-bot", name: "bot" });
    const el = h("dialog", { class: "dialog", id: "leave-dialog", "aria-labelledby": "leave-title", "aria-describedby": "leave-explain" },
      h("form", { method: "dialog", class: "dialog-form" },
        h("h2", { id: "leave-title" }),
        h("p", { id: "leave-explain" }),
        h("div", { class: "field", id: "leave-bot-field" },
          h("label", { for: "leave-bot", id: "leave-bot-label" }),
          select),
        h("div", { class: "dialog-actions" },
          h("button", { type: "submit", value: "stay", class: "button ghost", id: "leave-cancel", autofocus: true }),
          h("button", { type: "submit", value: "leave", class: "button danger", id: "leave-confirm" }))));
    el.addEventListener("close", () => {
      const choice = el.returnValue;
      el.returnValue = "";
      if (choice === "leave" && !isGone()) onLeave(select.value);
      if (!isGone()) root.querySelector('[data-focus="leave-seat"]')?.focus();
    });
    document.body.append(el);
    return el;
  }

  /** Fill the texts for the phase (`waiting`: before the first deal) and the bot levels. */
  function update({ waiting, bots }) {
    if (!dialog) return;
    const select = dialog.querySelector("#leave-bot");
    const levels = bots || ["medium"];
    const chosen = select.value || (levels.includes("medium") ? "medium" : levels[0]);
    if (select.options.length !== levels.length || [...select.options].some((option, i) => option.value !== levels[i]) || select.dataset.lang !== document.documentElement.lang) {
      clear(select);
      for (const bot of levels) select.append(h("option", { value: bot, text: botLabel(bot, { t, has }) }));
      select.dataset.lang = document.documentElement.lang;
    }
    select.value = levels.includes(chosen) ? chosen : levels[0];
    dialog.querySelector("#leave-title").textContent = t("leave.title");
    dialog.querySelector("#leave-explain").textContent = waiting ? t("leave.explain_waiting") : t("leave.explain_game");
    dialog.querySelector("#leave-bot-field").hidden = waiting;
    dialog.querySelector("#leave-bot-label").textContent = t("leave.bot_label");
    dialog.querySelector("#leave-cancel").textContent = t("leave.stay");
    dialog.querySelector("#leave-confirm").textContent = waiting ? t("leave.confirm_waiting") : t("leave.confirm_game");
  }

  /** Show it (made on first use), the bot level reset, "stay" focused. */
  function open(texts) {
    if (!dialog) dialog = make();
    dialog.querySelector("#leave-bot").value = "";
    update(texts);
    dialog.returnValue = "";
    if (!dialog.open) dialog.showModal();
    dialog.querySelector("#leave-cancel").focus();
  }

  function close() {
    if (dialog && dialog.open) dialog.close("stay");
  }

  const isOpen = () => Boolean(dialog && dialog.open);

  function remove() {
    if (!dialog) return;
    if (dialog.open) dialog.close();
    dialog.remove();
  }

  return { open, update, close, isOpen, remove };
}
