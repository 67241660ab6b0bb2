// One gesture on one shape, or on a selection of shapes (1.7, P29), as a client drives it: coalesced
// updates, and the rest sent after a reconnect.

import { identity, predict, predictSelection, progress, remainder } from './gesture-math.js';

/** A selection gesture's shape updates a second at most: within the server's default 2,000 ops a second (P10). */
const SHAPE_UPDATES_PER_SECOND = 1500;

/**
 * One gesture (move, scale or rotate, or an `endpoint` drag of a connector's end, whose `fields` name the
 * end: `{end: 'from' | 'to'}`), from `SnapboardClient.gesture`, on one shape or, for a move, a scale or a
 * rotate given several ids, on a selection (1.7, P29): then every op names them all as `shapes`, and the
 * server moves them as one shape. `update` may be called on every pointer event: at most one update per
 * animation frame goes out, with the latest parameters (they are cumulative since begin, so coalescing
 * loses nothing).
 *
 * The gesture remembers its shapes as they were at begin and what the user has done since. When the
 * connection drops, the server keeps what it committed (what it had seen, or less after a crash); once
 * the client has caught up again, the rest is sent relative to the shapes as the server has them: a new
 * begin if the gesture goes on, or one one-shot op if it ended in the meantime. A selection gesture whose
 * begin the server refuses (one of its shapes is locked or held by someone else: the refusal is the
 * client's `reject` event) is over: it sends nothing more and is drawn nowhere.
 */
export class Gesture {
  /** When the last update went out (ms since 1970), for pacing a selection's updates. */
  #sentAt = 0;

  constructor(client, kind, shape, fields = {}) {
    this.client = client;
    this.kind = kind;
    const ids = typeof shape === 'string' ? null : [...new Set(shape)];
    /** A selection gesture's shape ids (two or more, P29), or null for a gesture on one shape. */
    this.shapes = ids && ids.length > 1 ? ids : null;
    /** The shape's id; of a selection gesture, its first shape's. */
    this.shape = ids ? ids[0] : shape;
    /** What every op of the gesture carries besides its phase and parameters: an endpoint's `end`. */
    this.fields = { ...fields };
    /** Cumulative parameters since the gesture began, as the user made them. */
    this.params = { ...identity[kind] };
    /** The part of `params` the server's current begin starts from. */
    this.base = { ...identity[kind] };
    /** The connection the server's begin belongs to, or null. */
    this.connection = null;
    this.ended = false;
    this.scheduled = false;
    /** The shape as it was at begin (as drawn: offline, what this client's edits predict). */
    this.origin = client.shapeAsDrawn(this.shape) ?? null;
    /** A selection gesture's shapes as they were at begin (those the client holds), or null. */
    this.origins = this.shapes ? this.shapes.map((id) => client.shapeAsDrawn(id)).filter(Boolean) : null;
    /** The id of the selection begin last sent, so that its refusal ends the gesture. */
    this.beginId = null;
    /** The code of the refusal of a selection gesture's begin (`shape_locked`, `locked`, …), or null. */
    this.refused = null;
    this.#begin();
  }

  /** What names the gesture's shapes on the wire: `shapes`, or `shape`. */
  #target() {
    return this.shapes ? { shapes: [...this.shapes] } : { shape: this.shape };
  }

  /** What the gesture did so far, by the first of its shapes that the replica still holds. */
  #done(replica) {
    for (const origin of this.origins ?? (this.origin ? [this.origin] : [])) {
      const current = replica.shapes.get(origin.id);
      if (current) return progress(this.kind, origin, current, this.fields);
    }
    return null;
  }

  /** Sends a begin on this connection unless there is one; false while not connected or not allowed to edit. */
  #begin() {
    const client = this.client;
    if (client.state !== 'connected' || !client.canEdit || this.refused) return false;
    if (this.connection === client.connection) return true;
    this.base = (this.connection !== null && this.#done(client.replica)) || { ...identity[this.kind] };
    this.connection = client.connection;
    const id = client.send({ op: this.kind, ...this.#target(), ...this.fields, phase: 'begin', ...identity[this.kind] });
    if (this.shapes) this.beginId = id;
    return true;
  }

  /**
   * The server refused the selection begin `id` with `code`: the gesture is over, having changed nothing.
   * Returns whether `id` was its begin.
   */
  refuse(id, code) {
    if (!this.shapes || id !== this.beginId || this.ended) return false;
    this.refused = code;
    this.ended = true;
    this.client.gestures.delete(this);
    this.client.emit('change', { kind: 'gesture' });
    return true;
  }

  /**
   * Takes the gesture's parameters so far (cumulative since begin); sent at most once per frame. A client
   * that may not edit (a viewer, or stopped) takes none: nothing is sent, and nothing drawn.
   */
  update(params) {
    if (this.ended || !this.client.canEdit) return;
    this.params = { ...this.params, ...params };
    this.client.emit('change', { kind: 'gesture' });
    if (this.scheduled) return;
    this.scheduled = true;
    const send = () => {
      this.scheduled = false;
      if (this.ended || !this.#begin()) return;
      this.#sentAt = Date.now();
      this.client.send({ op: this.kind, ...this.#target(), ...this.fields, phase: 'update', ...remainder(this.kind, this.params, this.base) });
    };
    const wait = this.#pause();
    if (wait > 0) setTimeout(() => this.client.schedule(send), wait);
    else this.client.schedule(send);
  }

  /**
   * How long the next update of a selection gesture waits: the server's rate limit counts an op once per
   * shape it names (P10), so a selection's updates go out at most SHAPE_UPDATES_PER_SECOND shapes a second
   * (every frame up to 25 shapes; a 1,000-shape selection 1.5 times a second).
   */
  #pause() {
    const gap = this.shapes ? (this.shapes.length * 1000) / SHAPE_UPDATES_PER_SECOND : 0;
    return gap <= 1000 / 60 ? 0 : Math.max(0, this.#sentAt + gap - Date.now());
  }

  /** What is left to do, as a one-shot op from the shapes as the replica has them now. */
  #rest(replica) {
    const done = this.#done(replica) ?? identity[this.kind];
    return { op: this.kind, ...this.#target(), ...this.fields, ...remainder(this.kind, this.params, done) };
  }

  /** Ends the gesture; returns the committing op's id, or null when it had ended or the client may not edit. */
  end(params = {}) {
    if (this.ended) return null;
    this.ended = true;
    this.client.gestures.delete(this);
    if (!this.client.canEdit) return null;
    this.params = { ...this.params, ...params };
    const resendAs = (replica) => this.#rest(replica);
    if (this.#begin()) {
      // Should the connection drop before the ack, the resend (same id, so never applied twice) is the rest.
      return this.client.send({ op: this.kind, ...this.#target(), ...this.fields, phase: 'end', ...remainder(this.kind, this.params, this.base) },
        { resendAs });
    }
    const preview = this.shapes ? this.previews : this.preview;
    return this.client.send(this.#rest(this.client.replica), { resendAs, offlinePreview: preview?.length === 0 ? null : preview });
  }

  /** The shape as this gesture would leave it, unsnapped: drawn while the server cannot be asked; null for a selection. */
  get preview() {
    return this.origin && !this.shapes ? predict(this.origin, this.kind, this.params, this.fields) : null;
  }

  /** Every shape as this gesture would leave it, unsnapped: a selection gesture's all, else the one `preview` or none. */
  get previews() {
    if (this.shapes) return predictSelection(this.origins, this.kind, this.params);
    const one = this.preview;
    return one ? [one] : [];
  }
}
