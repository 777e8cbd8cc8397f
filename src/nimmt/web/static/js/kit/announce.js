// What the table says outside its drawing: the screen reader's live region (#announcer), the
// short toast (#toast), the notices of people leaving and joining (#notice) and the banner of a
// lost connection (#banner). The elements live in index.html, outside the redrawn page; any of
// them may be missing (a page without them says nothing).

import { clear, h } from "../dom.js";

const TOAST_MS = 5000;
const NOTICE_MS = 6000; // how long a "left"/"joined" notice stays on screen

export function createAnnouncer({
  announcer = document.getElementById("announcer"),
  toast = document.getElementById("toast"),
  notice = document.getElementById("notice"),
  banner = document.getElementById("banner"),
} = {}) {
  let toastTimer = null;

  function announce(text) {
    if (!announcer) return;
    // A fresh node per message, so screen readers read each one once.
    announcer.append(h("p", { text }));
    while (announcer.childNodes.length > 6) announcer.firstChild.remove();
  }

  function showToast(text) {
    if (!toast) return;
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      toast.hidden = true;
    }, TOAST_MS);
  }

  /** A short visible line (someone left or joined) that also goes to the screen reader once. */
  function showNotice(text) {
    announce(text);
    if (!notice) return;
    const line = h("p", { class: "notice-line", text });
    notice.append(line);
    while (notice.childNodes.length > 3) notice.firstChild.remove();
    notice.hidden = false;
    setTimeout(() => {
      line.remove();
      if (!notice.childNodes.length) notice.hidden = true;
    }, NOTICE_MS);
  }

  /** The line across the top (a lost connection); null hides it. */
  function setBanner(text) {
    if (!banner) return;
    banner.textContent = text || "";
    banner.hidden = !text;
  }

  /** Say an event's sentence (text.js eventSentence): a notice, or for the screen reader only. */
  function say(sentence) {
    if (!sentence) return;
    if (sentence.notice) showNotice(sentence.text);
    else announce(sentence.text);
  }

  /** Take away the notices and the banner (the page is left). */
  function reset() {
    if (notice) {
      clear(notice);
      notice.hidden = true;
    }
    setBanner(null);
  }

  return { announce, showToast, showNotice, setBanner, say, reset };
}
