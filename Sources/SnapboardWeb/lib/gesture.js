// One gesture on one shape, as a client drives it: coalesced updates, and the rest sent after a reconnect.

import { identity, predict, progress, remainder } from './gesture-math.js';

/**
 * One gesture on one shape (move, scale or rotate, or an `endpoint` drag of a connector's end, whose
 * `fields` name the end: `{end: 'from' | 'to'}`), from `SnapboardClient.gesture`. `update` may be
 * called on every pointer event: at most one update per animation frame goes out, with the latest
 * parameters (they are cumulative since begin, so coalescing loses nothing).
 *
 * The gesture remembers the shape as it was at begin and what the user has done since. When the
 * connection drops, the server keeps what it committed (what it had seen, or less after a crash); once
 * the client has caught up again, the rest is sent relative to the shape as the server has it: a new
 * begin if the gesture goes on, or one one-shot op if it ended in the meantime.
 */
export class Gesture {
  constructor(client, kind, shape, fields = {}) {
    this.client = client;
    this.kind = kind;
    this.shape = shape;
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
    this.origin = client.shapeAsDrawn(shape) ?? null;
    this.#begin();
  }

  /** Sends a begin on this connection unless there is one; false while not connected or not allowed to edit. */
  #begin() {
    const client = this.client;
    if (client.state !== 'connected' || !client.canEdit) return false;
    if (this.connection === client.connection) return true;
    const current = client.replica.shapes.get(this.shape);
    this.base = this.origin && current && this.connection !== null ? progress(this.kind, this.origin, current, this.fields) : { ...identity[this.kind] };
    this.connection = client.connection;
    client.send({ op: this.kind, shape: this.shape, ...this.fields, phase: 'begin', ...identity[this.kind] });
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
    this.client.schedule(() => {
      this.scheduled = false;
      if (this.ended || !this.#begin()) return;
      this.client.send({ op: this.kind, shape: this.shape, ...this.fields, phase: 'update', ...remainder(this.kind, this.params, this.base) });
    });
  }

  /** What is left to do, as a one-shot op from the shape as the replica has it now. */
  #rest(replica) {
    const current = replica.shapes.get(this.shape);
    const done = this.origin && current ? progress(this.kind, this.origin, current, this.fields) : identity[this.kind];
    return { op: this.kind, shape: this.shape, ...this.fields, ...remainder(this.kind, this.params, done) };
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
      return this.client.send({ op: this.kind, shape: this.shape, ...this.fields, phase: 'end', ...remainder(this.kind, this.params, this.base) },
        { resendAs });
    }
    return this.client.send(this.#rest(this.client.replica), { resendAs, offlinePreview: this.preview });
  }

  /** The shape as this gesture would leave it, unsnapped: drawn while the server cannot be asked. */
  get preview() {
    return this.origin ? predict(this.origin, this.kind, this.params, this.fields) : null;
  }
}
