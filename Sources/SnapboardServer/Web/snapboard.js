// The Snapboard JavaScript client library: one ES module, no build step, no dependencies.
// It mirrors SnapboardClient (Swift): a replica of the canvas kept from the server's messages, the ops
// sent and not yet answered, exactly-once resend and resume after a reconnect with backoff and jitter,
// and gesture helpers that send at most one update per animation frame. PROTOCOL.md is the contract.

import { turn } from './geometry.js';

export const protocolVersion = 1;
/** The close code for an access token that expired (PROTOCOL.md, P1). */
export const CLOSE_TOKEN_EXPIRED = 4001;
/** The close code for a canvas that was deleted (PROTOCOL.md, P19): reconnecting would start a new one. */
export const CLOSE_CANVAS_DELETED = 4004;

/**
 * The revision of version 1 this library reads: 2 takes joins and leaves as changes (PROTOCOL.md, P11),
 * 4 takes live deltas as placements (P8).
 */
export const REVISION = 4;

/** A client's copy of a canvas, kept by applying welcome, delta, presence and cursors messages. Pure. */
export class Replica {
  constructor() {
    /** The seq of the last committed op held; -1 before the first welcome. */
    this.seq = -1;
    /** The run of the canvas's history `seq` belongs to (the welcome's `epoch`), sent back to resume. */
    this.epoch = null;
    this.session = null;
    this.canvas = null;
    /** @type {Map<string, object>} shapes by id, in the wire form of P4 */
    this.shapes = new Map();
    /** Guides of the gestures in progress, as the last delta left them. */
    this.guides = [];
    /** Equal gaps of the gestures in progress (1.1): {axis, gap, segments: [[from, to, at], …]}. */
    this.gaps = [];
    /** @type {Map<number, {name: string, color: string}>} who is on the canvas */
    this.sessions = new Map();
    /** shape id → session holding its gesture lease */
    this.leases = {};
    /** @type {Map<number, {x: number, y: number}>} other sessions' pointers */
    this.cursors = new Map();
    this.width = 0;
    this.height = 0;
    this.grid = null;
    this.snapping = null;
    /** The committed state of shapes a live delta changed: a reconnect restores it (the server's
     *  gestures are sent again after a resume, and a crash loses them). */
    this.liveBase = new Map();
  }

  /** Shapes bottom to top, as the server orders them (z, then id). */
  drawingOrder() {
    return [...this.shapes.values()].sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Applies one server message. Returns what it did: {kind: 'welcome', resumed} | {kind: 'delta', seq,
   * live, haptics, by, ops} | {kind: 'presence', event, session} | {kind: 'cursors'} | null.
   */
  apply(m) {
    switch (m?.type) {
      case 'welcome': {
        if (!m.resumed) this.shapes.clear();
        else for (const [id, shape] of this.liveBase) shape ? this.shapes.set(id, shape) : this.shapes.delete(id);
        this.liveBase.clear();
        this.#addShapes(m.shapes);
        this.seq = m.seq;
        this.epoch = m.epoch ?? null;
        this.session = m.session;
        this.canvas = m.canvas;
        this.width = m.grid?.width ?? 0;
        this.height = m.grid?.height ?? 0;
        this.grid = m.grid ?? null;
        this.snapping = m.snapping ?? null;
        this.#readPresence(m);
        this.guides = [];
        this.gaps = [];
        if (!m.resumed) this.cursors.clear();
        return { kind: 'welcome', resumed: !!m.resumed };
      }
      case 'delta': {
        if (m.cleared) { this.shapes.clear(); this.liveBase.clear(); }
        for (const id of m.removed ?? []) { this.shapes.delete(id); this.liveBase.delete(id); }
        // 1.4: a live delta's `placed` moves shapes the replica holds: [id, x, y, w, h, scale, rotation, z].
        const placed = (m.placed ?? []).flatMap(([id, x, y, w, h, scale, rotation, z]) => {
          const shape = this.shapes.get(id);
          return shape ? [{ ...shape, x, y, w, h, scale, rotation, z }] : [];
        });
        const changed = [...(m.shapes ?? []), ...placed];
        for (const s of changed) {
          if (!m.live) this.liveBase.delete(s.id);
          else if (!this.liveBase.has(s.id)) this.liveBase.set(s.id, this.shapes.get(s.id) ?? null);
        }
        this.#addShapes(changed);
        this.seq = Math.max(this.seq, m.seq);
        const events = m.events ?? [];
        this.guides = events.filter((e) => e.type === 'guide');
        this.gaps = events.filter((e) => e.type === 'gap');
        const haptics = events.filter((e) => e.type === 'haptic');
        return { kind: 'delta', seq: m.seq, live: !!m.live, haptics, by: m.by, ops: m.ops ?? [], shapes: changed.map((s) => s.id) };
      }
      case 'presence':
        this.#readPresence(m);
        if (m.event === 'leave') this.cursors.delete(m.session);
        return { kind: 'presence', event: m.event, session: m.session };
      case 'cursors':
        for (const c of m.cursors ?? []) {
          if (c.session === this.session) continue;
          if (typeof c.x === 'number' && typeof c.y === 'number') this.cursors.set(c.session, { x: c.x, y: c.y });
          else this.cursors.delete(c.session);
        }
        return { kind: 'cursors' };
      default:
        return null;
    }
  }

  #addShapes(list) {
    for (const s of list ?? []) this.shapes.set(s.id, s);
  }

  #readPresence(m) {
    if (Array.isArray(m.sessions)) {
      this.sessions = new Map(m.sessions.map((s) => [s.session, presenceOf(s)]));
      for (const id of this.cursors.keys()) if (!this.sessions.has(id)) this.cursors.delete(id);
    } else if (m.event === 'join') {
      // 1.2: a join or a leave is the change alone.
      this.sessions.set(m.session, presenceOf(m));
    } else if (m.event === 'leave') {
      this.sessions.delete(m.session);
    }
    if (m.leases && typeof m.leases === 'object') this.leases = { ...m.leases };
  }
}

/** A session as presence lists it: its name, colour and, on a server that requires tokens, its user (1.2). */
function presenceOf(s) {
  return s.user === undefined ? { name: s.name, color: s.color ?? '#888888' } : { name: s.name, color: s.color ?? '#888888', user: s.user };
}

/** Does this op commit (and so get an ack)? A snap, a clear, a gesture's end or a one-shot gesture. */
export function commits(op) {
  return op.op === 'snap' || op.op === 'clear' || op.phase === undefined || op.phase === 'end';
}

/**
 * The ops sent and not yet answered, in order. Committing ops stay until acked or rejected and are sent
 * again after a reconnect, which exactly-once (P15) makes safe; begins and updates are dropped then.
 */
export class PendingOps {
  constructor(prefix) {
    this.prefix = prefix;
    this.next = 1;
    /** @type {{id: string, op: object}[]} */
    this.ops = [];
  }

  makeId() {
    return `${this.prefix}-${this.next++}`;
  }

  /** Tracks a committing op; `resendAs(replica)` makes what to send instead after a reconnect (same id). */
  sent(op, resendAs) {
    this.ops.push({ id: op.id, op, resendAs });
  }

  /** Forgets an answered op; returns it, or undefined when it was not pending. */
  answered(id) {
    const i = this.ops.findIndex((p) => p.id === id);
    return i < 0 ? undefined : this.ops.splice(i, 1)[0].op;
  }

  /** What to send again after reconnecting, in order: each op, or what its `resendAs(replica)` makes of it now. */
  toResend(replica) {
    return this.ops.map((p) => (p.resendAs ? { ...p.resendAs(replica), type: 'op', id: p.id } : p.op));
  }
}

/** Exponential backoff with jitter between reconnect attempts, reset by a successful connection. */
export class ReconnectPolicy {
  constructor(base = 0.25, cap = 8) {
    this.base = base;
    this.cap = cap;
    this.attempt = 0;
  }

  /** Seconds to wait before the next attempt, given a random number in [0, 1). */
  nextDelay(random) {
    const delay = Math.min(this.cap, this.base * 2 ** Math.min(this.attempt, 16)) * (0.5 + random / 2);
    this.attempt += 1;
    return delay;
  }

  connected() {
    this.attempt = 0;
  }
}

/**
 * What is left of a gesture's cumulative parameters once `sent` of them reached the server: the one-shot
 * op that finishes the gesture after a reconnect. Moves subtract, scales divide, rotations subtract.
 */
export function remainder(kind, total, sent) {
  switch (kind) {
    case 'move': return { dx: (total.dx ?? 0) - (sent.dx ?? 0), dy: (total.dy ?? 0) - (sent.dy ?? 0) };
    case 'scale': {
      const rest = { factor: (total.factor ?? 1) / (sent.factor ?? 1) };
      if (total.ax !== undefined) Object.assign(rest, { ax: total.ax, ay: total.ay });
      if (total.radians || sent.radians) rest.radians = (total.radians ?? 0) - (sent.radians ?? 0);
      return rest;
    }
    case 'rotate': return { radians: (total.radians ?? 0) - (sent.radians ?? 0) };
    default: return {};
  }
}

/** The parameters of a `kind` gesture that took `origin` to `current`. */
export function progress(kind, origin, current) {
  switch (kind) {
    case 'move': return { dx: current.x - origin.x, dy: current.y - origin.y };
    case 'scale': return { factor: current.scale / origin.scale, radians: turn(origin.rotation, current.rotation) };
    case 'rotate': return { radians: turn(origin.rotation, current.rotation) };
    default: return {};
  }
}

/** The shape as a gesture's parameters would leave it, before snapping: what a client shows offline. */
export function predict(shape, kind, p) {
  switch (kind) {
    case 'move':
      return { ...shape, x: shape.x + (p.dx ?? 0), y: shape.y + (p.dy ?? 0) };
    case 'scale': {
      const f = p.factor ?? 1, r = p.radians ?? 0, ax = p.ax ?? shape.x, ay = p.ay ?? shape.y;
      // About the anchor: the point under the fingers stays under them (seed 004's pinch, fixed).
      const vx = (shape.x - ax) * f, vy = (shape.y - ay) * f, cs = Math.cos(r), sn = Math.sin(r);
      const rotation = (((shape.rotation + r) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      return { ...shape, scale: shape.scale * f, rotation, x: ax + cs * vx - sn * vy, y: ay + sn * vx + cs * vy };
    }
    case 'rotate': {
      const r = (((shape.rotation + (p.radians ?? 0)) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      return { ...shape, rotation: r };
    }
    default:
      return shape;
  }
}

const identity = { move: { dx: 0, dy: 0 }, scale: { factor: 1 }, rotate: { radians: 0 } };

/**
 * One gesture on one shape (move, scale or rotate), from `SnapboardClient.gesture`. `update` may be
 * called on every pointer event: at most one update per animation frame goes out, with the latest
 * parameters (they are cumulative since begin, so coalescing loses nothing).
 *
 * The gesture remembers the shape as it was at begin and what the user has done since. When the
 * connection drops, the server keeps what it committed (what it had seen, or less after a crash); once
 * the client has caught up again, the rest is sent relative to the shape as the server has it: a new
 * begin if the gesture goes on, or one one-shot op if it ended in the meantime.
 */
export class Gesture {
  constructor(client, kind, shape) {
    this.client = client;
    this.kind = kind;
    this.shape = shape;
    /** Cumulative parameters since the gesture began, as the user made them. */
    this.params = { ...identity[kind] };
    /** The part of `params` the server's current begin starts from. */
    this.base = { ...identity[kind] };
    /** The connection the server's begin belongs to, or null. */
    this.connection = null;
    this.ended = false;
    this.scheduled = false;
    /** The shape as it was at begin. */
    this.origin = client.replica.shapes.get(shape) ?? null;
    this.#begin();
  }

  /** Sends a begin on this connection unless there is one; false while not connected. */
  #begin() {
    const client = this.client;
    if (client.state !== 'connected') return false;
    if (this.connection === client.connection) return true;
    const current = client.replica.shapes.get(this.shape);
    this.base = this.origin && current && this.connection !== null ? progress(this.kind, this.origin, current) : { ...identity[this.kind] };
    this.connection = client.connection;
    client.send({ op: this.kind, shape: this.shape, phase: 'begin', ...identity[this.kind] });
    return true;
  }

  update(params) {
    if (this.ended) return;
    this.params = { ...this.params, ...params };
    this.client.emit('change', { kind: 'gesture' });
    if (this.scheduled) return;
    this.scheduled = true;
    this.client.schedule(() => {
      this.scheduled = false;
      if (this.ended || !this.#begin()) return;
      this.client.send({ op: this.kind, shape: this.shape, phase: 'update', ...remainder(this.kind, this.params, this.base) });
    });
  }

  /** What is left to do, as a one-shot op from the shape as the replica has it now. */
  #rest(replica) {
    const current = replica.shapes.get(this.shape);
    const done = this.origin && current ? progress(this.kind, this.origin, current) : identity[this.kind];
    return { op: this.kind, shape: this.shape, ...remainder(this.kind, this.params, done) };
  }

  /** Ends the gesture; returns the committing op's id. */
  end(params = {}) {
    if (this.ended) return null;
    this.params = { ...this.params, ...params };
    this.ended = true;
    this.client.gestures.delete(this);
    const resendAs = (replica) => this.#rest(replica);
    if (this.#begin()) {
      // Should the connection drop before the ack, the resend (same id, so never applied twice) is the rest.
      return this.client.send({ op: this.kind, shape: this.shape, phase: 'end', ...remainder(this.kind, this.params, this.base) },
        { resendAs });
    }
    return this.client.send(this.#rest(this.client.replica), { resendAs, offlinePreview: this.preview });
  }

  /** The shape as this gesture would leave it, unsnapped: drawn while the server cannot be asked. */
  get preview() {
    return this.origin ? predict(this.origin, this.kind, this.params) : null;
  }
}

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

  on(event, fn) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event).add(fn);
    return () => this.listeners.get(event).delete(fn);
  }

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

  clear() {
    return this.send({ op: 'clear' });
  }

  /** Removes shapes by id, all or none (1.1). */
  delete(shapes) {
    return this.send({ op: 'delete', shapes: [...shapes] });
  }

  /** Reverts this client's last change that still has something to revert (1.1, P22). */
  undo() {
    return this.send({ op: 'undo' });
  }

  /** Re-applies what this client's last undo reverted (1.1, P22). */
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
