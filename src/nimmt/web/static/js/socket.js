// The table's WebSocket (docs/protocol.md): connects with the seat's token (none: spectator),
// hands every message to `onMessage`, and reconnects by itself after a loss, waiting a little
// longer each time (up to 5 s). `onStatus` hears "open", "lost" and "closed".

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
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const query = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}${query}`;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
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
      if (message && typeof message.type === "string") this.onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      clearInterval(this.heartbeat);
      this.ws = null;
      if (this.stopped) {
        this.onStatus("closed", event);
        return;
      }
      this.onStatus("lost", event);
      const delay = Math.min(5000, 400 * 2 ** this.attempt);
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    });
  }

  /** Switch to another token (after taking a seat) and reconnect with it. */
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
