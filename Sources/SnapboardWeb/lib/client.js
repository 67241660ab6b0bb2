// The client: one logical connection to a canvas that reconnects with backoff and resumes, keeps a
// replica, resends what was never answered exactly once, and sends gestures and cursors at most once
// per frame. It says in words why it stopped, when it did. It mirrors SnapboardClient (Swift).

import { APIError, SnapboardAPI } from './api.js';
import { Gesture } from './gesture.js';
import { predict } from './gesture-math.js';
import { PendingOps, commits } from './pending-ops.js';
import { problemFor } from './problems.js';
import { REVISION } from './protocol.js';
import { ReconnectPolicy } from './reconnect-policy.js';
import { Replica } from './replica.js';
import { keptIn, predictSnap } from './snap-prediction.js';
import { afterClose, afterProbe, authStates, goneStates, stoppedStates } from './states.js';

function randomId() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The `role` claim of a JWT, read without checking it (the server checks): what an older server's welcome leaves out. */
function roleClaim(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const role = JSON.parse(atob(payload.padEnd(Math.ceil(payload.length / 4) * 4, '='))).role;
    return role === 'viewer' || role === 'editor' ? role : null;
  } catch {
    return null;
  }
}

/** The server's HTTP base and the canvas id of a ws(s)://host/…/v1/canvases/{id} address, or null. */
function httpOf(url) {
  try {
    const u = new URL(url);
    const at = u.pathname.lastIndexOf('/v1/canvases/');
    if (at < 0 || !/^wss?:$/.test(u.protocol)) return null;
    const canvas = decodeURIComponent(u.pathname.slice(at + '/v1/canvases/'.length));
    return { base: `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}${u.pathname.slice(0, at)}`, canvas };
  } catch {
    return null;
  }
}

/**
 * One logical connection to a canvas. Events (`on(name, fn)`): `state` (see `state`), `welcome`, `delta`,
 * `guides`, `haptic`, `presence`, `cursors`, `ack`, `reject`, `error`, `pong`, `replaced` (the canvas was
 * replaced by an import: the client starts over on it), and `change` after anything that changes what a
 * board draws.
 */
export class SnapboardClient {
  /**
   * @param {object} options
   * @param {string} options.url  ws(s)://host/v1/canvases/{canvas}, without client or since
   * @param {string} [options.name]  display name for presence
   * @param {string} [options.token]  an access token, for a server that requires one (sent as `token`)
   * @param {Function} [options.refreshToken]  called when the token expired: resolves to a new token, or null
   * @param {string} [options.clientId]  stable id for exactly-once across reconnects (default random)
   * @param {number} [options.zoom]  initial zoom (0.01–100)
   * @param {Function} [options.WebSocket]  a WebSocket constructor (default globalThis.WebSocket)
   * @param {Function} [options.schedule]  runs a callback before the next frame (default requestAnimationFrame)
   * @param {Function} [options.random]  random numbers in [0, 1) for the backoff's jitter
   * @param {number} [options.pingInterval]  seconds between round-trip probes (default 5; 0: none)
   * @param {number} [options.connectTimeout]  seconds a connection may take to open before it is given up
   *   and tried again (default 10)
   * @param {Function} [options.fetch]  a fetch function for the access probe and `api` (default globalThis.fetch)
   */
  constructor(options) {
    this.url = options.url;
    this.name = options.name;
    this.token = options.token;
    this.refreshToken = options.refreshToken;
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
    /**
     * 'connecting' before the first welcome, 'connected', 'offline' while waiting to reconnect; or one that
     * stops reconnecting: 'unauthorized', 'forbidden', 'expired' (until a new token), 'deleted', 'not_found',
     * 'storage_full', or 'closed' after `close()`.
     */
    this.state = 'connecting';
    /** Null, or `{code, message}`: what is wrong, in words, and what to do. */
    this.problem = null;
    /** The session's role from the welcome, 'editor' or 'viewer'; null before the first welcome. */
    this.role = null;
    const http = httpOf(this.url);
    /** The server's HTTP API with this client's token, or null when `url` names no canvas. */
    this.api = http ? new SnapboardAPI({ base: http.base, token: this.token, fetch: options.fetch }) : null;
    this.canvas = http?.canvas ?? null;
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
    /** The timer of the next reconnect, while waiting for it. */
    this.retry = null;
    /** After a welcome, the seq the replica must reach before the client counts as connected. */
    this.catchUpTo = null;
  }

  /** The role allows editing and the client has not stopped: ops are sent now or once reconnected. */
  get canEdit() {
    return this.role === 'editor' && !stoppedStates.has(this.state);
  }

  /** Not connected: presence, cursors and the round trip are as they were last known. */
  get stale() {
    return this.state !== 'connected';
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

  /**
   * Opens the connection; it reconnects by itself until `close()`, or until a state that stops it. While
   * waiting to reconnect, it tries at once; while a connection is open or opening, it does nothing.
   */
  connect() {
    if (this.socket) return;
    this.#cancel(this.retry);
    this.closed = false;
    if (stoppedStates.has(this.state)) {
      this.problem = null;
      this.#setState('connecting');
    }
    const params = new URLSearchParams({ client: this.clientId, revision: String(REVISION) });
    if (this.replica.seq >= 0) params.set('since', String(this.replica.seq));
    if (this.replica.seq >= 0 && this.replica.epoch) params.set('epoch', this.replica.epoch);
    if (this.name) params.set('name', this.name);
    if (this.zoom !== 1) params.set('zoom', String(this.zoom));
    if (this.token) params.set('token', this.token);
    const ws = new this.WebSocket(`${this.url}${this.url.includes('?') ? '&' : '?'}${params}`);
    this.socket = ws;
    const token = this.token;
    let opened = false;
    ws.onopen = () => { opened = true; };
    ws.onmessage = (event) => {
      opened = true;
      if (typeof event.data !== 'string') return;
      let value;
      try { value = JSON.parse(event.data); } catch { return; }
      for (const m of Array.isArray(value) ? value : [value]) this.#handle(m);
    };
    // A socket that never opens (nor fails: Node's WebSocket was seen stuck connecting with no TCP
    // connection at all) is given up, so the client is never left waiting for good.
    const giveUp = this.#later(this.connectTimeout * 1000, () => {
      if (this.socket !== ws || ws.readyState !== 0) return;
      ws.onclose(undefined);
      try { ws.close(); } catch { /* a socket that is not open may refuse to close */ }
    });
    ws.onclose = (event) => {
      if (this.socket !== ws) return;
      this.#cancel(giveUp);
      this.socket = null;
      this.connection += 1;
      this.catchUpTo = null;
      this.#follow(afterClose({ code: event?.code, opened, welcomed: this.role !== null, tokenChanged: this.token !== token }));
    };
    // A refused upgrade (401, 403, 503…): browsers fire error, then close; Node 20's WebSocket fires only
    // the error and stays connecting. Either way the first of them ends this attempt.
    ws.onerror = () => {
      if (opened || this.socket !== ws) return;
      ws.onclose(undefined);
      try { ws.close(); } catch { /* a socket that is not open may refuse to close */ }
    };
  }

  /**
   * Closes the connection for good (state 'closed'), so that the others see this session leave at once:
   * a page calls `close(1001)` on `pagehide`. The WebSocket API lets a page send only 1000 and 3000–4999,
   * so another code (1001 among them) goes as 1000, which the server takes as the same leave.
   */
  close(code = 1000) {
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
    this.#setState('closed');
  }

  /**
   * Replaces the access token (a refreshed one). The next connection uses it; a client stopped for its
   * token ('unauthorized', 'expired') connects again at once.
   */
  setToken(token) {
    this.token = token ?? undefined;
    if (this.api) this.api.token = this.token;
    if (authStates.has(this.state)) this.connect();
  }

  /** Carries out what `afterClose` or `afterProbe` decided. */
  #follow({ state, problem, then }) {
    if (then === 'stop' || then === 'refresh') this.closed = true;
    if (goneStates.has(state)) this.#dropUnsent();
    if (then === 'fresh') this.#startOver();
    if (state) {
      this.problem = problem ? problemFor(problem) : null;
      this.#setState(state);
    }
    if (this.closed && then !== 'refresh') return;
    switch (then) {
      case 'backoff': this.retry = this.#later(this.policy.nextDelay(this.random()) * 1000, () => this.connect()); break;
      case 'probe': this.#probe(); break;
      case 'now': case 'fresh': this.connect(); break;
      case 'refresh': this.#refresh(); break;
      default: break;
    }
  }

  /** A socket closed without opening: asks the server whether the token or the origin is refused. */
  async #probe() {
    const connection = this.connection, token = this.token;
    let outcome = { status: 0 };
    if (this.api) {
      let timer;
      const timeout = new Promise((resolve) => { timer = setTimeout(resolve, this.connectTimeout * 1000, { status: 0 }); });
      outcome = await Promise.race([
        this.api.access(this.canvas).then(() => ({ status: 200 }), (e) => (e instanceof APIError ? { status: e.status, reason: e.reason } : { status: 0 })),
        timeout,
      ]);
      clearTimeout(timer);
    }
    // Closed meanwhile, or already connecting again (a new token): this answer is out of date.
    if (this.closed || this.socket || this.connection !== connection) return;
    this.#follow(this.token === token ? afterProbe(outcome) : { state: 'offline', problem: null, then: 'now' });
  }

  /** The token expired: asks the app for a new one (after the backoff's delay, so a bad one is not hammered). */
  #refresh() {
    if (!this.refreshToken) return;
    const expired = this.token;
    this.#later(this.policy.nextDelay(this.random()) * 1000, async () => {
      let token = null;
      try { token = await this.refreshToken(); } catch { token = null; }
      if (this.state !== 'expired' || this.token !== expired) return;
      if (typeof token === 'string' && token !== '') this.setToken(token);
    });
  }

  /** The canvas is gone for this client: what it did not get answered can never be. */
  #dropUnsent() {
    this.pending.ops.splice(0);
    this.offlineEdits.clear();
    for (const g of this.gestures) g.ended = true;
    this.gestures.clear();
  }

  /** The canvas was replaced by an import: start over on it, with none of what was pending. */
  #startOver() {
    const dropped = this.pending.ops.length;
    this.#dropUnsent();
    this.replica.seq = -1;
    this.replica.epoch = null;
    this.replica.liveBase.clear();
    this.policy.connected();
    this.emit('replaced', { dropped });
  }

  #later(ms, fn) {
    const t = setTimeout(() => { this.#cancel(t); fn(); }, ms);
    this.timers.push(t);
    return t;
  }

  #cancel(t) {
    clearTimeout(t);
    this.timers = this.timers.filter((x) => x !== t);
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
        this.role = m.role === 'viewer' || m.role === 'editor' ? m.role : (this.token && roleClaim(this.token)) || 'editor';
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
    this.problem = null;
    this.#setState('connected');
    for (const op of this.pending.toResend(this.replica)) this.#write(op);
    this.#startPinging();
  }

  #startPinging() {
    if (this.pingInterval <= 0 || this.pinging) return;
    this.pinging = true;
    const tick = () => {
      if (this.closed) { this.pinging = false; return; }
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
   * committing ops wait and go when the connection is back. Returns the op id, or null when the client
   * may not edit (a viewer, or stopped): then nothing is sent.
   */
  send(op, { resendAs, offlinePreview } = {}) {
    if (this.role === 'viewer' || stoppedStates.has(this.state)) return null;
    return this.#send(this.pending.makeId(), op, resendAs, offlinePreview);
  }

  #send(id, op, resendAs, offlinePreview) {
    const message = { type: 'op', id, ...op };
    // Begins and updates are never acked (P6): only committing ops wait for an answer.
    if (commits(message)) this.pending.sent(message, resendAs);
    if (offlinePreview) this.offlineEdits.set(message.id, offlinePreview);
    if (this.state === 'connected') this.#write(message);
    return message.id;
  }

  /**
   * A tap at (x, y) in canvas units becomes a shape at the nearest grid point. `shape`: kind, w, h, fill…
   * Offline, the shape is drawn at once where the server would put it, under the op id as its shape id
   * (so that later ops on it go too), until the server answers.
   */
  snap(x, y, shape) {
    const op = shape ? { op: 'snap', x, y, shape } : { op: 'snap', x, y };
    if (this.state === 'connected' || this.replica.seq < 0) return this.send(op);
    if (this.role === 'viewer' || stoppedStates.has(this.state)) return null;
    const id = this.pending.makeId();
    // A client id of other characters than a shape id's cannot name the shape: it is drawn, not referred to.
    const named = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? { ...op, shapeId: id } : op;
    const drawn = new Map(this.drawingOrder().map((s) => [s.id, s]));
    return this.#send(id, named, undefined, predictSnap({ ...this.replica, shapes: drawn }, op, id));
  }

  /**
   * Moves each shape by exactly (dx, dy) canvas units: one one-shot `move` per shape. Without `snap` the
   * move does not snap to the grid, edges or gaps (`snap: false` on the wire); with it, it snaps as a drag
   * would. Offline, the shapes are drawn moved at once. Returns the op ids (none when the client may not edit).
   */
  nudge(shapeIds, dx, dy, { snap = false } = {}) {
    const ids = [];
    for (const shape of shapeIds) {
      const op = snap ? { op: 'move', shape, dx, dy } : { op: 'move', shape, dx, dy, snap: false };
      const drawn = this.state === 'connected' ? null : this.shapeAsDrawn(shape);
      const id = this.send(op, { offlinePreview: drawn ? keptIn(predict(drawn, 'move', { dx, dy }), this.replica) : null });
      if (id === null) break;
      ids.push(id);
    }
    return ids;
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

  /**
   * Shapes bottom to top, with what this client changed while offline shown as predicted: moved shapes
   * where they would go, and shapes snapped offline on top until the server answers.
   */
  drawingOrder() {
    const shapes = this.replica.drawingOrder();
    if (this.offlineEdits.size === 0 && (this.state === 'connected' || this.gestures.size === 0)) return shapes;
    const predicted = this.#predicted();
    const drawn = shapes.map((s) => predicted.get(s.id) ?? s);
    for (const [id, shape] of predicted) if (!this.replica.shapes.has(id)) drawn.push(shape);
    return drawn;
  }

  /** One shape as `drawingOrder` draws it: the replica's, or what this client's offline edits predict; or undefined. */
  shapeAsDrawn(id) {
    return this.#predicted().get(id) ?? this.replica.shapes.get(id);
  }

  /** The predicted shapes by shape id: offline edits in the order they were made, then offline gestures. */
  #predicted() {
    const predicted = new Map();
    for (const shape of this.offlineEdits.values()) predicted.set(shape.id, shape);
    if (this.state !== 'connected') for (const g of this.gestures) if (g.preview) predicted.set(g.shape, g.preview);
    return predicted;
  }

}
