// The table's WebSocket (docs/protocol.md), under feed.js, which orders what it hands on for
// every page: connects with the seat's token (none: spectator), hands every message to
// `onMessage`, and reconnects by itself after a loss, waiting a little longer each time (up to
// 5 s). `onStatus` hears "open", "lost", "closed" and "refused".
//
// It asks for `events=changes`: the server tells each change as one `change` that holds what
// happened (`events`) and only the parts of the table and the view that changed (feed.js makes
// the whole state of it and hands its events on as an `events` message first).
//
// The feed tells it the version of the last state taken in (`setVersion`); every connection
// after that asks for what it missed with `since=VERSION`, and the server answers with one
// `events` message before the `state`. That first message is handed on with `{resync: true}`.
//
// Close codes: 4404 (no such table) and 4403 (this page's origin is refused) end the connection
// for good ("refused"): reconnecting would only be refused again. 4408 (the page fell behind the
// table) is an ordinary loss: reconnect and catch up.

export const CLOSE_FORBIDDEN_ORIGIN = 4403;
export const CLOSE_TABLE_NOT_FOUND = 4404;
export const CLOSE_SLOW_CONSUMER = 4408;
const FINAL_CLOSE_CODES = [CLOSE_FORBIDDEN_ORIGIN, CLOSE_TABLE_NOT_FOUND];
const CONNECT_TIMEOUT_MS = 10000;

export class TableSocket {
  constructor(code, token, { onMessage, onStatus }) {
    this.code = code;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.nextRequest = 1;
    this.heartbeat = null;
    this.since = null; // the version of the last state the table applied
  }

  /** The table applied the state of this version: the next connection asks for what follows. */
  setVersion(version) {
    if (Number.isInteger(version) && version >= 0) this.since = version;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const params = new URLSearchParams();
    if (this.token) params.set("token", this.token);
    if (this.since !== null) params.set("since", String(this.since));
    // Each change as one `change` that holds its events and what changed: one small frame,
    // which the server builds once for every listener told the same.
    params.set("events", "changes");
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}?${params}`;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (err) {
      // Refused before any connection (a blocked address, say): try again later all the same.
      console.error(err);
      this.ws = null;
      this.onStatus("lost", { code: 1006 });
      this.retry();
      return;
    }
    this.ws = ws;
    // A handshake that never ends (a stuck proxy, a blocked address) counts as a loss.
    const opening = setTimeout(() => {
      if (this.ws !== ws || ws.readyState === WebSocket.OPEN) return;
      this.ws = null;
      ws.close();
      this.onStatus("lost", { code: 1006 });
      this.retry();
    }, CONNECT_TIMEOUT_MS);
    let first = true; // the first message of a connection asked with `since` is the catch-up
    const askedSince = this.since !== null;
    ws.addEventListener("open", () => {
      clearTimeout(opening);
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.onStatus("open");
      clearInterval(this.heartbeat);
      // A quiet ping keeps proxies from closing an idle table while people think.
      this.heartbeat = setInterval(() => this.send({ type: "ping" }), 25000);
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!message || typeof message.type !== "string") return;
      const resync = first && askedSince && message.type === "events";
      if (["events", "state", "change"].includes(message.type)) first = false;
      this.onMessage(message, { resync });
    });
    ws.addEventListener("close", (event) => {
      clearTimeout(opening);
      if (this.ws !== ws) return;
      clearInterval(this.heartbeat);
      this.ws = null;
      if (this.stopped) {
        this.onStatus("closed", event);
        return;
      }
      if (FINAL_CLOSE_CODES.includes(event.code)) {
        this.stopped = true;
        this.onStatus("refused", event);
        return;
      }
      this.onStatus("lost", event);
      this.retry();
    });
  }

  retry() {
    const delay = Math.min(5000, 400 * 2 ** this.attempt);
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Switch to another token (after taking or leaving a seat; null: watch) and reconnect. */
  reconnectAs(token) {
    this.token = token;
    this.close();
    this.connect();
  }

  /** Send an action; returns its request_id, or null when the socket is not open. */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const requestId = this.nextRequest++;
    this.ws.send(JSON.stringify({ ...message, request_id: requestId }));
    return requestId;
  }

  get isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }
}
