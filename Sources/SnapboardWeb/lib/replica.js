// The client's copy of a canvas, kept from the server's messages. Pure: no socket, no timers.

import { lookOf } from './style.js';

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
    /** Equal gaps of the gestures in progress: {axis, gap, segments: [[from, to, at], …]}. */
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
    /** The welcome's `layout` (1.3): the cells of a layout canvas, or null. */
    this.layout = null;
    /** Whether placements keep shapes inside the canvas (the welcome's `bounded`, 1.5; true when absent). */
    this.bounded = true;
    /** The committed state of shapes a live delta changed: a reconnect restores it (the server's
     *  gestures are sent again after a resume, and a crash loses them). */
    this.liveBase = new Map();
  }

  /** True when the shape with `id` is locked (P25: its wire form carries `"locked":true`). */
  isLocked(id) {
    return this.shapes.get(id)?.locked === true;
  }

  /**
   * The ids of the members of the group shape `id` is in (1.7, P27), itself among them, in drawing order:
   * `[id]` for a shape in no group, `[]` for one the replica does not hold.
   */
  groupOf(id) {
    const group = this.shapes.get(id)?.group;
    if (group === undefined) return this.shapes.has(id) ? [id] : [];
    return this.drawingOrder().filter((s) => s.group === group).map((s) => s.id);
  }

  /**
   * The text and style of the shape with `id` (1.7, P26): {text, stroke, strokeWidth, opacity, fontSize},
   * each its default where the wire form leaves it out (`stroke` null: the default outline); undefined
   * for a shape the replica does not hold.
   */
  lookOf(id) {
    const shape = this.shapes.get(id);
    return shape ? lookOf(shape) : undefined;
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
        this.layout = m.layout ?? null;
        this.bounded = m.bounded !== false;
        // Every welcome, a resume's too, starts presence over: a restarted server numbers its sessions
        // from 1 again, so a cursor, name or lease kept under an old session id would now be someone
        // else's (or this client's own). What still holds comes again: the welcome's list, then cursors.
        this.sessions = new Map();
        this.leases = {};
        this.cursors.clear();
        this.#readPresence(m);
        this.guides = [];
        this.gaps = [];
        return { kind: 'welcome', resumed: !!m.resumed };
      }
      case 'delta': {
        if (m.cleared) { this.shapes.clear(); this.liveBase.clear(); }
        for (const id of m.removed ?? []) { this.shapes.delete(id); this.liveBase.delete(id); }
        // A live delta's `placed` moves shapes the replica holds: [id, x, y, w, h, scale, rotation, z].
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
      // A join or a leave is the change alone (P11).
      this.sessions.set(m.session, presenceOf(m));
    } else if (m.event === 'leave') {
      this.sessions.delete(m.session);
    }
    if (m.leases && typeof m.leases === 'object') this.leases = { ...m.leases };
  }
}

/** A session as presence lists it: its name, colour and, on a server that requires tokens, its user. */
function presenceOf(s) {
  return s.user === undefined ? { name: s.name, color: s.color ?? '#888888' } : { name: s.name, color: s.color ?? '#888888', user: s.user };
}
