// One feed of a table's messages under every page that follows a table live (the table, the
// assistant's page, the board view), in the shape of boardgame.io's one Transport under every
// client. It opens the table's socket (socket.js: one WebSocket, its reconnection, and the
// catch-up a new connection asks for with `since`) and hands the page what the server sends
// (docs/protocol.md), in order:
//
// - An `error` goes to `onError(message)` at once, but a refusal (table_not_found,
//   forbidden_origin: the server closes the socket next, and reconnecting would be refused
//   again): the feed closes the socket for good and reports it as `onStatus("refused")`.
// - A `state` that holds `events` (a change told in one message) is handed on as an `events`
//   message of those events and then the state without them.
// - A `change` (socket.js asks for `events=changes`: each change tells only what changed) is
//   applied over the state taken in last: its `table` and `view` parts replace the state's,
//   part by part; the state it makes is handed on as above, its events first.
// - An `events` message already taken in (the same version or an older one: a catch-up after a
//   reconnection repeats what may still wait in the queue) is dropped.
// - A `state`'s version is what the next connection asks to follow: every state taken in is
//   applied, in order (asking from the last one drawn would repeat what still waits).
// - A message of a type the page plays (`play[type]`) is first handed to `arrive[type](message,
//   meta)` at once, when the page has one (to follow the newest state without waiting for the
//   animation), then queued; `play[type](message, meta)` takes the queue one message after
//   another, and a promise it returns (an animation) is waited for before the next. `meta`:
//   `{ resync }`, true for the catch-up `events` of a reconnection. A play that throws is logged
//   and the queue goes on (the next state draws the page whole). `onIdle()` follows each time
//   the queue is empty again. Other types are ignored.
//
// `onStatus(status, info)` hears the connection: "open" (`info.again`: it was open before, so
// this is a reconnection), "lost" (`info.slow`: the server closed it because the page fell
// behind the table, 4408; the socket reconnects and catches up by itself) and "refused"
// (`info.reason`: "table_not_found" or "forbidden_origin"; nothing follows). With
// `reconnectOnVisible` a page shown again after a loss reconnects at once instead of waiting.
//
// `openSocket(code, token, { onMessage, onStatus })` makes the socket (tests hand in a fake).

import { CLOSE_FORBIDDEN_ORIGIN, CLOSE_SLOW_CONSUMER, TableSocket } from "./socket.js";

/** The error codes that end a page: the table is not there, or this page's origin is refused. */
export const REFUSALS = ["table_not_found", "forbidden_origin"];

/**
 * Take in an `events` message: false when it repeats one already taken in. `seen` remembers
 * the newest version taken in (`lastEventsVersion`); a message without a version is taken.
 */
export function acceptEvents(seen, message) {
  if (Number.isInteger(message.version)) {
    if (message.version <= (seen.lastEventsVersion ?? -1)) return false;
    seen.lastEventsVersion = message.version;
  }
  return true;
}

/**
 * The state a `change` makes of the state `held` (docs/protocol.md): each part of its `table`
 * and `view` replaces the held one, the rest stays; its `events`, if any, come along.
 */
export function applyChange(held, change) {
  const state = {
    ...held,
    version: change.version,
    table: change.table ? { ...held.table, ...change.table } : held.table,
    view: change.view ? { ...held.view, ...change.view } : held.view,
  };
  if (Array.isArray(change.events)) state.events = change.events;
  return state;
}

/**
 * Why a connection closed for good (socket.js "refused"): its close code, as an error code; a
 * table deleted while it was played closes with 4404 and the reason "table_deleted".
 */
export function refusalReason(closeEvent) {
  if (closeEvent && closeEvent.code === CLOSE_FORBIDDEN_ORIGIN) return "forbidden_origin";
  return closeEvent && closeEvent.reason === "table_deleted" ? "table_deleted" : "table_not_found";
}

/** Does a lost connection's close code say the page fell behind the table (4408)? */
export const fellBehind = (closeEvent) => Boolean(closeEvent && closeEvent.code === CLOSE_SLOW_CONSUMER);

const tableSocket = (code, token, callbacks) => new TableSocket(code, token, callbacks);

export function createFeed(code, token, {
  arrive = {},
  play = {},
  onError = () => {},
  onStatus = () => {},
  onIdle = () => {},
  reconnectOnVisible = false,
  openSocket = tableSocket,
} = {}) {
  const queue = [];
  const seen = { lastEventsVersion: -1 };
  let held = null; // the last state taken in: what the next `change` applies to
  let running = false;
  let stopped = false; // destroyed: nothing more is handed on
  let connection = "connecting"; // "open" | "lost" | "closed"
  let everOpen = false;
  const socket = openSocket(code, token, { onMessage: receive, onStatus: statusChanged });

  function statusChanged(status, event) {
    if (stopped) return;
    if (status === "open") {
      connection = "open";
      const again = everOpen;
      everOpen = true;
      onStatus("open", { again });
    } else if (status === "lost") {
      connection = "lost";
      onStatus("lost", { slow: fellBehind(event) });
    } else if (status === "refused") {
      refused(refusalReason(event));
    } else {
      onStatus(status, {});
    }
  }

  function refused(reason) {
    connection = "closed";
    onStatus("refused", { reason });
  }

  function receive(message, { resync = false } = {}) {
    if (stopped) return;
    if (message.type === "error") {
      if (REFUSALS.includes(message.code)) {
        socket.close();
        refused(message.details && message.details.deleted ? "table_deleted" : message.code);
      } else {
        onError(message);
      }
      return;
    }
    if (message.type === "change") {
      // Only what changed since the last message: the whole state is the one held, updated.
      if (held) receive(applyChange(held, message), { resync });
      return;
    }
    if (message.type === "state" && Array.isArray(message.events)) {
      // A change told in one message (`events=inline`, or a `change` applied): its events
      // first, as the `events` message they stand for, then the state.
      const { events, ...state } = message;
      if (events.length) receive({ type: "events", version: message.version, events }, { resync });
      receive(state, { resync });
      return;
    }
    if (message.type === "state") held = message;
    if (!play[message.type]) return;
    if (message.type === "events" && !acceptEvents(seen, message)) return;
    if (message.type === "state") socket.setVersion(message.version);
    const meta = { resync };
    if (arrive[message.type]) arrive[message.type](message, meta);
    queue.push({ message, meta });
    if (!running) drain();
  }

  async function drain() {
    running = true;
    while (queue.length && !stopped) {
      const { message, meta } = queue.shift();
      try {
        // Only an animation is waited for: a state is drawn at once, as it comes.
        const played = play[message.type](message, meta);
        if (played && typeof played.then === "function") await played;
      } catch (err) {
        console.error(err); // a drawing hiccup must not stop the page: the next state redraws
      }
    }
    running = false;
    onIdle();
  }

  const onVisible = () => {
    if (!document.hidden && !socket.isOpen && connection === "lost") socket.connect();
  };

  return {
    /** Connect (after the page drew its first frame). */
    start() {
      socket.connect();
      if (reconnectOnVisible) document.addEventListener("visibilitychange", onVisible);
    },
    /** Send an action; its request_id, or null when the socket is not open. */
    send: (message) => socket.send(message),
    get isOpen() {
      return socket.isOpen;
    },
    /** Messages waiting behind the one being played (a backlog is caught up, not animated). */
    get pending() {
      return queue.length;
    },
    /** The seat token the next connection uses (null: watch). */
    get token() {
      return socket.token;
    },
    set token(value) {
      socket.token = value;
    },
    /** Switch to another token (a seat taken or left) and reconnect. */
    reconnectAs: (newToken) => socket.reconnectAs(newToken),
    /** The page is left: close the socket and hand nothing more on. */
    destroy() {
      stopped = true;
      socket.close();
      if (reconnectOnVisible) document.removeEventListener("visibilitychange", onVisible);
    },
  };
}
