// The client: one logical connection to a canvas that reconnects with backoff and resumes, keeps a
// replica, resends what was never answered exactly once, and sends gestures and cursors at most once
// per frame. It mirrors SnapboardClient (Swift).

import { Gesture } from './gesture.js';
import { PendingOps, commits } from './pending-ops.js';
import { CLOSE_CANVAS_DELETED, CLOSE_TOKEN_EXPIRED, REVISION } from './protocol.js';
import { ReconnectPolicy } from './reconnect-policy.js';
import { Replica } from './replica.js';

function randomId() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * One logical connection to a canvas. Events (`on(name, fn)`): `state` ('connecting' | 'connected' |
 * 'offline' | 'expired' | 'deleted': the last two, when the access token ran out or the canvas was deleted, end reconnecting), `welcome`, `delta`, `guides`, `haptic`, `presence`, `cursors`, `ack`, `reject`, `error`,
 * `pong`, and `change` after anything that changes what a board draws.
 */
export class SnapboardClient {
  /**
   * @param {object} options
   * @param {string} options.url  ws(s)://host/v1/canvases/{canvas}, without client or since
   * @param {string} [options.name]  display name for presence
   * @param {string} [options.token]  an access token, for a server that requires one (sent as `token`)
   * @param {string} [options.clientId]  stable id for exactly-once across reconnects (default random)
   * @param {number} [options.zoom]  initial zoom (0.01–100)
   * @param {Function} [options.WebSocket]  a WebSocket constructor (default globalThis.WebSocket)
   * @param {Function} [options.schedule]  runs a callback before the next frame (default requestAnimationFrame)
   * @param {Function} [options.random]  random numbers in [0, 1) for the backoff's jitter
   * @param {number} [options.pingInterval]  seconds between round-trip probes (default 5; 0: none)
   * @param {number} [options.connectTimeout]  seconds a connection may take to open before it is given up
   *   and tried again (default 10)
   */
  constructor(options) {
    this.url = options.url;
    this.name = options.name;
    this.token = options.token;
    this.clientId = options.clientId ?? randomId();
    this.zoom = options.zoom ?? 1;
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    const raf = globalThis.requestAnimationFrame;
    this.schedule = options.schedule ?? (raf ? (fn) => raf(fn) : (fn) => setTimeout(fn, 16));
    this.random = options.random ?? Math.random;
    this.pingInterval = options.pingInterval ?? 5;
    this.connectTimeout = options.connectTimeout ?? 10;
    this.replica = new Replica();
    this.pending = new PendingOps(`${this.clientId}-${Date.now().toString(36)}`);
    this.policy = new ReconnectPolicy();
    /** 'connecting' before the first welcome, 'connected', or 'offline' while waiting to reconnect. */
    this.state = 'connecting';
    /** The last measured round trip, in milliseconds. */
    this.rtt = null;
    /** @type {Set<Gesture>} gestures in progress */
    this.gestures = new Set();
    /** Ops sent offline: their predicted shapes are shown until the server answers. */
    this.offlineEdits = new Map();
    this.listeners = new Map();
    this.socket = null;
    /** Counts connections: a gesture begun on an earlier one must begin again. */
    this.connection = 0;
    this.closed = false;
    this.cursorAt = undefined;
    this.cursorScheduled = false;
    this.timers = [];
    /** After a welcome, the seq the replica must reach before the client counts as connected. */
    this.catchUpTo = null;
  }

  /** Calls `fn(value)` on every `event`; returns a function that stops it. */
  on(event, fn) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event).add(fn);
    return () => this.listeners.get(event).delete(fn);
  }

  /** Calls the listeners of `event` with `value`. */
  emit(event, value) {
    for (const fn of this.listeners.get(event) ?? []) fn(value);
  }

  /** Opens the connection; it reconnects by itself until `close()`. */
  connect() {
    this.closed = false;
    const params = new URLSearchParams({ client: this.clientId, revision: String(REVISION) });
    if (this.replica.seq >= 0) params.set('since', String(this.replica.seq));
    if (this.replica.seq >= 0 && this.replica.epoch) params.set('epoch', this.replica.epoch);
    if (this.name) params.set('name', this.name);
    if (this.zoom !== 1) params.set('zoom', String(this.zoom));
    if (this.token) params.set('token', this.token);
    const ws = new this.WebSocket(`${this.url}${this.url.includes('?') ? '&' : '?'}${params}`);
    this.socket = ws;
    ws.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let value;
      try { value = JSON.parse(event.data); } catch { return; }
      for (const m of Array.isArray(value) ? value : [value]) this.#handle(m);
    };
    // A socket that never opens (nor fails: Node's WebSocket was seen stuck connecting with no TCP
    // connection at all) is given up, so the client is never left waiting for good.
    this.#later(this.connectTimeout * 1000, () => {
      if (this.socket !== ws || ws.readyState !== 0) return;
      ws.onclose(undefined);
      try { ws.close(); } catch { /* a socket that is not open may refuse to close */ }
    });
    ws.onclose = (event) => {
      if (this.socket !== ws) return;
      this.socket = null;
      this.connection += 1;
      if (event?.code === CLOSE_TOKEN_EXPIRED) {
        // The same token would be refused: the app must get a fresh one and connect again.
        this.closed = true;
        this.#setState('expired');
        return;
      }
      if (event?.code === CLOSE_CANVAS_DELETED) {
        this.closed = true;
        this.#setState('deleted');
        return;
      }
      this.#setState('offline');
      if (!this.closed) this.#later(this.policy.nextDelay(this.random()) * 1000, () => this.connect());
    };
    ws.onerror = () => {};
  }

  /** Closes the connection for good. */
  close() {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    this.socket?.close(1000);
    this.socket = null;
  }

  #later(ms, fn) {
    const t = setTimeout(() => { this.timers = this.timers.filter((x) => x !== t); fn(); }, ms);
    this.timers.push(t);
  }

  #setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit('state', state);
    this.emit('change', { kind: 'state' });
  }

  #handle(m) {
    const change = this.replica.apply(m);
    switch (m.type) {
      case 'welcome':
        // Caught up once the deltas a resume brings (up to the welcome's seq) are in.
        this.catchUpTo = m.seq;
        this.policy.connected();
        this.emit('welcome', change);
        break;
      case 'delta':
        this.emit('delta', change);
        this.emit('guides', this.replica.guides);
        for (const h of change.haptics) this.emit('haptic', { ...h, shapes: change.shapes });
        break;
      case 'ack':
      case 'reject':
        this.pending.answered(m.id);
        this.offlineEdits.delete(m.id);
        this.emit(m.type, m);
        break;
      case 'error':
        if (m.id) { this.pending.answered(m.id); this.offlineEdits.delete(m.id); }
        this.emit('error', m);
        break;
      case 'presence':
        this.emit('presence', change);
        break;
      case 'cursors':
        this.emit('cursors', this.replica.cursors);
        break;
      case 'pong':
        if (typeof m.t === 'number') this.rtt = performance.now() - m.t;
        this.emit('pong', this.rtt);
        break;
      default:
        return;
    }
    if (this.catchUpTo !== null && this.replica.seq >= this.catchUpTo) this.#caughtUp();
    this.emit('change', { kind: m.type });
  }

  /** Connected and caught up: what was never answered goes again, relative to the canvas as it is now. */
  #caughtUp() {
    this.catchUpTo = null;
    if (this.zoom !== 1) this.#write({ type: 'view', zoom: this.zoom });
    this.#setState('connected');
    for (const op of this.pending.toResend(this.replica)) this.#write(op);
    this.#startPinging();
  }

  #startPinging() {
    if (this.pingInterval <= 0 || this.pinging) return;
    this.pinging = true;
    const tick = () => {
      if (this.closed) return;
      this.ping();
      this.#later(this.pingInterval * 1000, tick);
    };
    tick();
  }

  #write(message) {
    if (this.socket?.readyState !== 1) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /**
   * Sends an op (`{op: 'snap', x, y, shape}`, …) with a fresh id, tracked until answered; offline,
   * committing ops wait and go when the connection is back. Returns the op id.
   */
  send(op, { resendAs, offlinePreview } = {}) {
    const message = { type: 'op', id: this.pending.makeId(), ...op };
    // Begins and updates are never acked (P6): only committing ops wait for an answer.
    if (commits(message)) this.pending.sent(message, resendAs);
    if (offlinePreview) this.offlineEdits.set(message.id, offlinePreview);
    if (this.state === 'connected') this.#write(message);
    return message.id;
  }

  /** A tap at (x, y) in canvas units becomes a shape at the nearest grid point. `shape`: kind, w, h, fill… */
  snap(x, y, shape) {
    return this.send(shape ? { op: 'snap', x, y, shape } : { op: 'snap', x, y });
  }

  /** Removes every shape of the canvas. */
  clear() {
    return this.send({ op: 'clear' });
  }

  /** Removes shapes by id, all or none. */
  delete(shapes) {
    return this.send({ op: 'delete', shapes: [...shapes] });
  }

  /** Reverts this client's last change that still has something to revert (P22). */
  undo() {
    return this.send({ op: 'undo' });
  }

  /** Re-applies what this client's last undo reverted (P22). */
  redo() {
    return this.send({ op: 'redo' });
  }

  /** Starts a gesture (`move`, `scale`, `rotate`) on a shape: call `update(params)`, then `end()`. */
  gesture(kind, shape) {
    const g = new Gesture(this, kind, shape);
    this.gestures.add(g);
    return g;
  }

  /** Tells the others where this pointer is (canvas units), or that it left (no arguments); one per frame. */
  cursor(x, y) {
    this.cursorAt = x === undefined ? null : { x, y };
    if (this.cursorScheduled) return;
    this.cursorScheduled = true;
    this.schedule(() => {
      this.cursorScheduled = false;
      const at = this.cursorAt;
      this.#write(at ? { type: 'cursor', x: at.x, y: at.y } : { type: 'cursor' });
    });
  }

  /** The client's zoom changed: the server scales snapping thresholds by it from the next op (P21). */
  setZoom(zoom) {
    const z = Math.min(100, Math.max(0.01, zoom));
    if (z === this.zoom) return;
    this.zoom = z;
    this.#write({ type: 'view', zoom: z });
  }

  /** Measures the round trip; the answer sets `rtt`. */
  ping() {
    this.#write({ type: 'ping', t: performance.now() });
  }

  /** Shapes bottom to top, with what this client changed while offline shown as predicted. */
  drawingOrder() {
    const shapes = this.replica.drawingOrder();
    if (this.offlineEdits.size === 0 && this.state === 'connected') return shapes;
    const predicted = new Map();
    for (const shape of this.offlineEdits.values()) predicted.set(shape.id, shape);
    if (this.state !== 'connected') for (const g of this.gestures) if (g.preview) predicted.set(g.shape, g.preview);
    return shapes.map((s) => predicted.get(s.id) ?? s);
  }
}
