// The client: one logical connection to a canvas that reconnects with backoff and resumes, keeps a
// replica, resends what was never answered exactly once, and sends gestures and cursors at most once
// per frame. It says in words why it stopped, when it did. It mirrors SnapboardClient (Swift). The ops it
// sends of its user's edits are Editing's (editing.js).

import { httpOf, roleClaim, SnapboardAPI } from './api.js';
import { Editing } from './editing.js';
import { joinUrl, Link } from './link.js';
import { mayEdit, sendOp } from './edits.js';
import { PendingOps } from './pending-ops.js';
import { drawnWith, predictedShapes } from './prediction.js';
import { problemFor } from './problems.js';
import { afterEnd } from './recovery.js';
import { ReconnectPolicy } from './reconnect-policy.js';
import { Replica } from './replica.js';
import { authStates, stoppedStates } from './states.js';

function randomId() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * One logical connection to a canvas. Events (`on(name, fn)`): `state` (see `state`), `welcome`, `delta`,
 * `guides`, `haptic`, `presence`, `cursors`, `ack`, `reject`, `error`, `pong`, `replaced` (the canvas was
 * replaced by an import: the client starts over on it), and `change` after anything that changes what a
 * board draws.
 */
export class SnapboardClient extends Editing {
  /**
   * @param {import('./index.js').SnapboardClientOptions} options  `url` (ws(s)://host/v1/canvases/{canvas}),
   *   and optionally `name`, `token`, `refreshToken`, `clientId`, `zoom`, `WebSocket`, `fetch`, `schedule`,
   *   `random`, `pingInterval` (seconds, default 5) and `connectTimeout` (seconds, default 10): index.d.ts
   *   says what each is.
   */
  constructor(options) {
    super();
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
    /** 'connecting', 'connected', 'offline', or one that stops reconnecting (states.js, `stoppedStates`). */
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
    /** @type {Set<import('./gesture.js').Gesture>} gestures in progress */
    this.gestures = new Set();
    /** Shapes whose text this client is editing (1.7): the connection each one's `text` begin went on. */
    this.textEdits = new Map();
    /** Ops sent offline: their predicted shapes are shown until the server answers. */
    this.offlineEdits = new Map();
    this.listeners = new Map();
    const enter = (state, problem) => this.#enter(state, problem);
    this.link = new Link({ WebSocket: this.WebSocket, connectTimeout: this.connectTimeout, onMessage: (m) => this.#handle(m), onEnd: (end) => afterEnd(this, end, enter) });
    /** Counts connections: a gesture begun on an earlier one must begin again. */
    this.connection = 0;
    this.cursorAt = undefined;
    this.cursorScheduled = false;
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
    if (this.link.socket) return;
    if (stoppedStates.has(this.state)) {
      this.problem = null;
      this.#setState('connecting');
    }
    this.link.open(joinUrl(this), this.token);
  }

  /**
   * Closes the connection for good (state 'closed'), so that the others see this session leave at once:
   * a page calls `close(1001)` on `pagehide`. The WebSocket API lets a page send only 1000 and 3000–4999,
   * so another code (1001 among them) goes as 1000, which the server takes as the same leave.
   */
  close(code = 1000) {
    this.link.close(code);
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

  /** Enters `state`, with the words of `problem` (a code) or none. */
  #enter(state, problem) {
    this.problem = problem ? problemFor(problem) : null;
    this.#setState(state);
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
        this.role = m.role === 'viewer' || m.role === 'editor' ? m.role : roleClaim(this.token) ?? 'editor';
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
        // A refused selection begin (P29) ends its gesture: what follows would only be refused too.
        if (m.type === 'reject') for (const g of [...this.gestures]) g.refuse?.(m.id, m.code);
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
    if (this.zoom !== 1) this.link.write({ type: 'view', zoom: this.zoom });
    this.problem = null;
    this.#setState('connected');
    for (const op of this.pending.toResend(this.replica)) this.link.write(op);
    this.link.startPinging(this.pingInterval, () => this.ping());
  }

  /**
   * Sends an op (`{op: 'snap', x, y, shape}`, …) with a fresh id, tracked until answered; offline,
   * committing ops wait and go when the connection is back. Returns the op id, or null when the client
   * may not edit (a viewer, or stopped): then nothing is sent.
   */
  send(op, { resendAs, offlinePreview } = {}) {
    return mayEdit(this) ? sendOp(this, this.pending.makeId(), op, resendAs, offlinePreview) : null;
  }

  /** Tells the others where this pointer is (canvas units), or that it left (no arguments); one per frame. */
  cursor(x, y) {
    this.cursorAt = x === undefined ? null : { x, y };
    if (this.cursorScheduled) return;
    this.cursorScheduled = true;
    this.schedule(() => {
      this.cursorScheduled = false;
      const at = this.cursorAt;
      this.link.write(at ? { type: 'cursor', x: at.x, y: at.y } : { type: 'cursor' });
    });
  }

  /** The client's zoom changed: the server scales snapping thresholds by it from the next op (P21). */
  setZoom(zoom) {
    const z = Math.min(100, Math.max(0.01, zoom));
    if (z === this.zoom) return;
    this.zoom = z;
    this.link.write({ type: 'view', zoom: z });
  }

  /** Measures the round trip; the answer sets `rtt`. */
  ping() {
    this.link.write({ type: 'ping', t: performance.now() });
  }

  /**
   * Shapes bottom to top, with what this client changed while offline shown as predicted: moved shapes
   * where they would go, and shapes snapped offline on top until the server answers.
   */
  drawingOrder() {
    return drawnWith(this.replica.drawingOrder(), predictedShapes(this.offlineEdits, this.gestures, this.state === 'connected'));
  }

  /** One shape as `drawingOrder` draws it: the replica's, or what this client's offline edits predict; or undefined. */
  shapeAsDrawn(id) {
    return predictedShapes(this.offlineEdits, this.gestures, this.state === 'connected').get(id) ?? this.replica.shapes.get(id);
  }
}
