// The client's socket, one at a time: opened, given up when it hangs, written to while open, and told
// apart from its end; the URL a join opens; and the client's timers. What follows an end is the
// client's to decide (states.js).

import { REVISION } from './protocol.js';

/**
 * The URL a client's join opens: its `url` with the client id, the revision it reads, what it holds to
 * resume from (`since`, `epoch`), its name, zoom and token (PROTOCOL.md, P1).
 */
export function joinUrl(client) {
  const params = new URLSearchParams({ client: client.clientId, revision: String(REVISION) });
  if (client.replica.seq >= 0) params.set('since', String(client.replica.seq));
  if (client.replica.seq >= 0 && client.replica.epoch) params.set('epoch', client.replica.epoch);
  if (client.name) params.set('name', client.name);
  if (client.zoom !== 1) params.set('zoom', String(client.zoom));
  if (client.token) params.set('token', client.token);
  return `${client.url}${client.url.includes('?') ? '&' : '?'}${params}`;
}

/**
 * One socket at a time to the server, for a `SnapboardClient`. `onMessage(m)` gets each message (a frame
 * may hold an array of them); `onEnd({code, opened, token})` is called once when a socket ends: closed,
 * refused, or given up after `connectTimeout` seconds without opening.
 */
export class Link {
  constructor({ WebSocket, connectTimeout, onMessage, onEnd }) {
    this.WebSocket = WebSocket;
    this.connectTimeout = connectTimeout;
    this.onMessage = onMessage;
    this.onEnd = onEnd;
    /** The socket, or null between sockets. */
    this.socket = null;
    /** Timers that `close()` cancels: the open timeout, the next reconnect, the ping, a token refresh. */
    this.timers = [];
    /** The timer of the next reconnect, while waiting for it. */
    this.retry = null;
    /** No more sockets until the next `open()`. */
    this.closed = false;
    this.pinging = false;
  }

  /** Opens a socket to `url`, for `token` (handed back with its end); does nothing while one is open. */
  open(url, token) {
    if (this.socket) return;
    this.cancel(this.retry);
    this.closed = false;
    const ws = new this.WebSocket(url);
    this.socket = ws;
    let opened = false;
    const end = (code) => {
      if (this.socket !== ws) return;
      this.cancel(giveUp);
      this.socket = null;
      this.onEnd({ code, opened, token });
    };
    // A socket that never opens nor fails (Node's WebSocket was seen stuck connecting with no TCP
    // connection at all) is given up, so the client is never left waiting for good.
    const giveUp = this.later(this.connectTimeout * 1000, () => {
      if (this.socket !== ws || ws.readyState !== 0) return;
      end(undefined);
      try { ws.close(); } catch { /* a socket that is not open may refuse to close */ }
    });
    ws.onopen = () => { opened = true; };
    ws.onmessage = (event) => {
      opened = true;
      if (typeof event.data !== 'string') return;
      let value;
      try { value = JSON.parse(event.data); } catch { return; }
      for (const m of Array.isArray(value) ? value : [value]) this.onMessage(m);
    };
    ws.onclose = (event) => end(event?.code);
    // A refused upgrade (401, 403, 503…): browsers fire error, then close; Node 20's WebSocket fires only
    // the error and stays connecting. Either way the first of them ends this socket.
    ws.onerror = () => {
      if (opened || this.socket !== ws) return;
      end(undefined);
      try { ws.close(); } catch { /* a socket that is not open may refuse to close */ }
    };
  }

  /**
   * Closes the socket and cancels every timer. The WebSocket API lets a page send only 1000 and
   * 3000–4999, so another `code` (1001 among them) goes as 1000, which the server takes as the same leave.
   */
  close(code) {
    this.closed = true;
    this.pinging = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    const socket = this.socket;
    this.socket = null;
    try {
      socket?.close(code);
    } catch {
      socket?.close(1000);
    }
  }

  /** Sends a message on the open socket; false when there is none. */
  write(message) {
    if (this.socket?.readyState !== 1) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Opens again after `seconds`, unless `open()` or `close()` comes first. */
  reopenAfter(seconds, open) {
    this.retry = this.later(seconds * 1000, open);
  }

  /** Calls `ping()` now and every `seconds` until `close()` (or until the link stops). */
  startPinging(seconds, ping) {
    if (seconds <= 0 || this.pinging) return;
    this.pinging = true;
    const tick = () => {
      if (this.closed) { this.pinging = false; return; }
      ping();
      this.later(seconds * 1000, tick);
    };
    tick();
  }

  /** Calls `fn` after `ms`, unless cancelled or closed before; returns the timer. */
  later(ms, fn) {
    const t = setTimeout(() => { this.cancel(t); fn(); }, ms);
    this.timers.push(t);
    return t;
  }

  cancel(t) {
    clearTimeout(t);
    this.timers = this.timers.filter((x) => x !== t);
  }
}
