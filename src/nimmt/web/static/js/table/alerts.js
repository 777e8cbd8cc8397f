// What tells a person that something happened without looking: short sounds for a card played,
// a row taken and "your turn" (made with the Web Audio API, no audio files; off until the person
// turns them on), "your turn" in the tab's title, and a browser notification when the tab is
// hidden and it becomes your turn (only once the person allowed it). The choices are kept in
// localStorage; nothing here plays a card or chooses anything.

import { safeGet, safeSet, t } from "../i18n.js";
import { setTurnTitle } from "../title.js";

export const SOUNDS_KEY = "nimmt.sounds";
export const NOTIFY_KEY = "nimmt.notify";

/** Each sound: its notes as [frequency Hz, start s, length s], and the wave's shape. */
const SOUNDS = {
  card: { wave: "triangle", gain: 0.18, notes: [[740, 0, 0.07]] },
  row: { wave: "sawtooth", gain: 0.08, notes: [[330, 0, 0.16], [220, 0.12, 0.28]] },
  turn: { wave: "sine", gain: 0.2, notes: [[660, 0, 0.12], [880, 0.13, 0.2]] },
};

export function createAlerts({ code, storage = { get: safeGet, set: safeSet }, win = window, doc = document } = {}) {
  let soundsOn = storage.get(SOUNDS_KEY) === "on";
  let notifyOn = storage.get(NOTIFY_KEY) === "on";
  let audio = null;
  let lastTurn = null;
  let yourTurn = false;

  const canNotify = () => "Notification" in win;
  const notifyAllowed = () => canNotify() && win.Notification.permission === "granted";

  function context() {
    const Context = win.AudioContext || win.webkitAudioContext;
    if (!Context) return null;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }

  /** Play one of SOUNDS, when sounds are on. */
  function play(kind) {
    const sound = SOUNDS[kind];
    if (!soundsOn || !sound) return;
    const ctx = context();
    if (!ctx) return;
    const start = ctx.currentTime + 0.01;
    for (const [frequency, at, length] of sound.notes) {
      const oscillator = ctx.createOscillator();
      const gain = ctx.createGain();
      oscillator.type = sound.wave;
      oscillator.frequency.setValueAtTime(frequency, start + at);
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(sound.gain, start + at + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      oscillator.connect(gain).connect(ctx.destination);
      oscillator.start(start + at);
      oscillator.stop(start + at + length + 0.02);
    }
  }

  return {
    get soundsOn() {
      return soundsOn;
    },
    get notifyOn() {
      return notifyOn && notifyAllowed();
    },
    get notifyBlocked() {
      return canNotify() && win.Notification.permission === "denied";
    },
    get canNotify() {
      return canNotify();
    },
    /** The toggle: sounds on or off (turning them on is a click, which lets audio start). */
    setSounds(on) {
      soundsOn = on;
      storage.set(SOUNDS_KEY, on ? "on" : null);
      if (on) play("turn");
    },
    /** The toggle: ask the browser's permission first; off when it is refused. */
    async setNotify(on) {
      if (on && canNotify() && win.Notification.permission === "default") {
        try {
          await win.Notification.requestPermission();
        } catch {
          /* an old browser without the promise form: the permission stays as it was */
        }
      }
      notifyOn = on && notifyAllowed();
      storage.set(NOTIFY_KEY, notifyOn ? "on" : null);
      return notifyOn;
    },
    /** An event being shown on the table. */
    event(event) {
      if (event.type === "card_placed") play("card");
      else if (event.type === "row_taken") play("row");
    },
    /** A new state: `key` is talk.js turnKey (null: nothing to decide). A new decision sounds
     * "your turn", shows in the title, and notifies when the tab is hidden. */
    turn(key) {
      yourTurn = key !== null;
      if (key !== null && key !== lastTurn) {
        play("turn");
        if (doc.hidden && notifyOn && notifyAllowed()) {
          try {
            const note = new win.Notification(t("talk.notify_title"), { body: t("talk.notify_body", { code }), tag: `nimmt-${code}` });
            note.onclick = () => {
              win.focus();
              note.close();
            };
          } catch {
            /* a browser that allows notifications only from a service worker */
          }
        }
      }
      lastTurn = key;
      setTurnTitle(yourTurn);
    },
    destroy() {
      yourTurn = false;
      setTurnTitle(false);
      if (audio) audio.close().catch(() => {});
    },
  };
}
