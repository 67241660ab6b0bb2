// What a client sends of its user's edits, one method per op (PROTOCOL.md P13): taps, nudges, deletes,
// order and locks, groups and copies, style and text, connectors, undo and redo, and gestures.
// SnapboardClient (client.js) is an Editing with a connection: these methods send through its `send`.

import { Gesture } from './gesture.js';
import { mayEdit, nudgeOps, snapOp } from './edits.js';

/** The fields of a `style` op besides `shapes` (P26), which a snap's or a connect's shape may carry too. */
export const styleFields = ['fill', 'stroke', 'strokeWidth', 'opacity', 'fontSize'];

/**
 * A connector's end as the wire has it (P28): a point `{x, y}`, or a binding `{shape, anchor}` or
 * `{shape, u, v}`; only the fields of its form, so that nothing else goes on the wire.
 */
export function wireEnd(end) {
  if (end?.shape !== undefined) return end.anchor !== undefined ? { shape: end.shape, anchor: end.anchor } : { shape: end.shape, u: end.u, v: end.v };
  return { x: end?.x, y: end?.y };
}

/**
 * The ops of a client's user, over what SnapboardClient provides: `send`, `replica`, `state`, `connection`,
 * `gestures` and `textEdits`. Not constructed on its own.
 */
export class Editing {
  /**
   * A tap at (x, y) in canvas units becomes a shape at the nearest grid point. `shape`: kind, w, h, fill…
   * Offline, the shape is drawn at once where the server would put it, under the op id as its shape id
   * (so that later ops on it go too), until the server answers.
   */
  snap(x, y, shape) {
    return snapOp(this, x, y, shape);
  }

  /**
   * Moves each shape by exactly (dx, dy) canvas units: one one-shot `move` per shape. Without `snap` the
   * move does not snap to the grid, edges or gaps (`snap: false` on the wire); with it, it snaps as a drag
   * would. Offline, the shapes are drawn moved at once. Returns the op ids (none when the client may not edit).
   */
  nudge(shapeIds, dx, dy, { snap = false } = {}) {
    return nudgeOps(this, shapeIds, dx, dy, snap);
  }

  /** Removes every shape of the canvas. */
  clear() {
    return this.send({ op: 'clear' });
  }

  /** Removes shapes by id, all or none. */
  delete(shapes) {
    return this.send({ op: 'delete', shapes: [...shapes] });
  }

  /** Restacks shapes, all or none (P25): 'front', 'back', or 'forward'/'backward' past the nearest overlapping shape. */
  order(shapeIds, to) {
    return this.send({ op: 'order', shapes: [...shapeIds], to });
  }

  /** Locks (true) or unlocks (false) shapes, all or none (P25): a locked one refuses moves and deletes (`locked`). */
  lock(shapeIds, locked) {
    return this.send({ op: 'lock', shapes: [...shapeIds], locked: !!locked });
  }

  /**
   * Puts shapes in one new group with every other member of the groups they are in (1.7, P27): 2–1,000
   * shapes in all (else `out_of_range`). Shapes already all in one group: acked `unchanged`.
   */
  group(shapeIds) {
    return this.send({ op: 'group', shapes: [...shapeIds] });
  }

  /** Dissolves every group one of the shapes is in, all its members leaving it (1.7, P27); none in a group: `unchanged`. */
  ungroup(shapeIds) {
    return this.send({ op: 'ungroup', shapes: [...shapeIds] });
  }

  /**
   * Copies shapes one grid step right and down, above every shape, all or none (1.7, P27); copies of one
   * group's members form a new group. `ids` names the copies, one for each shape in the order first named
   * (each free and well-formed, else `bad_shape_id`), so an app can select them before they arrive;
   * without it the server names them.
   */
  duplicate(shapeIds, { ids } = {}) {
    const shapes = [...shapeIds];
    return this.send(ids === undefined ? { op: 'duplicate', shapes } : { op: 'duplicate', shapes, ids: [...ids] });
  }

  /**
   * Styles shapes, all or none (1.7, P26): one `style` op with the fields of `style` that are given:
   * `fill` and `stroke` (a colour: `#rrggbb` or a palette name), `strokeWidth` (0–32), `opacity` (0.1–1)
   * and `fontSize` (8–160). Returns the op id, or null when the client may not edit or `style` gives no
   * field (the server would refuse it `bad_style`).
   */
  style(shapeIds, style) {
    const fields = {};
    for (const key of styleFields) if (style?.[key] !== undefined) fields[key] = style[key];
    if (Object.keys(fields).length === 0) return null;
    return this.send({ op: 'style', shapes: [...shapeIds], ...fields });
  }

  /**
   * Sets or edits a shape's text (1.7, P26). Without `phase`, one op that sets it. `'begin'` takes the
   * shape's lease for editing (the others see who holds it; `text` may be omitted); `'update'` sends the
   * draft so far (send one at least every 2 s while the editor is open, or the lease expires and the draft
   * commits); `'end'` commits `text`. Only a begin may leave `text` out (elsewhere it means the shape's
   * text as the replica has it). A begin and its updates are sent only while connected; after a
   * reconnect the next update begins again. An end that cannot go as an end (the connection dropped since
   * the begin) goes as a one-shot op with the same id, so it is never applied twice. Returns the op id, or
   * null when the client may not edit or, for a begin or an update, when nothing could be sent now.
   */
  text(shapeId, text, phase) {
    if (!mayEdit(this)) return null;
    // Only a begin may leave the text out (P26); anything else without one keeps the shape's text.
    if (text === undefined && phase !== 'begin') text = this.replica.shapes.get(shapeId)?.text ?? '';
    const op = (p) => (p === undefined ? { op: 'text', shape: shapeId, text } : text === undefined ? { op: 'text', shape: shapeId, phase: p } : { op: 'text', shape: shapeId, phase: p, text });
    const begun = this.textEdits.get(shapeId) === this.connection && this.state === 'connected';
    const oneShot = (replica) => ({ op: 'text', shape: shapeId, text: text ?? replica.shapes.get(shapeId)?.text ?? '' });
    switch (phase) {
      case 'begin':
      case 'update':
        if (this.state !== 'connected') return null;
        if (phase === 'update' && !begun) this.send(op('begin'));
        this.textEdits.set(shapeId, this.connection);
        return this.send(op(phase));
      case 'end':
        this.textEdits.delete(shapeId);
        return begun ? this.send(op('end'), { resendAs: oneShot }) : this.send(oneShot(this.replica), { resendAs: oneShot });
      default:
        return this.send(op(undefined));
    }
  }

  /** Reverts this client's last change that still has something to revert (P22). */
  undo() {
    return this.send({ op: 'undo' });
  }

  /** Re-applies what this client's last undo reverted (P22). */
  redo() {
    return this.send({ op: 'redo' });
  }

  /**
   * Starts a gesture (`move`, `scale`, `rotate`, or `endpoint` with `fields` `{end}`) on a shape: call
   * `update(params)`, then `end()`. A `move`, `scale` or `rotate` given an iterable of 2–1,000 ids instead
   * is a selection gesture (1.7, P29): its ops name them as `shapes`, the server takes every lease at once
   * (or refuses the begin whole), moves them as one shape and commits one op, one undo step. Its scale's
   * anchor is by default the centre of their union bounds, and a rotate turns them about it.
   */
  gesture(kind, shape, fields) {
    const g = new Gesture(this, kind, shape, fields);
    this.gestures.add(g);
    return g;
  }

  /**
   * Draws a connector (1.7, P28: one `connect` op; the method is not `connect`, which opens the connection),
   * a `line` or an `arrow` (the default; its head at `to`), from `from` to
   * `to`: each a point `{x, y}` in canvas units, which the server binds to a shape's anchor within twice
   * the snap threshold or to the shape under it, or a binding `{shape, anchor}` (`center`, `top`,
   * `right`, `bottom`, `left`) or `{shape, u, v}` (a point in the shape's own frame, each −0.5…0.5), kept
   * as given. `options`: `kind`, `shapeId` (names it, as a snap's), the style fields and `text`; without
   * them it takes the author's last style. Returns the op id, or null when the client may not edit.
   */
  connector(from, to, { kind = 'arrow', shapeId, text, ...style } = {}) {
    const shape = { kind };
    for (const key of styleFields) if (style[key] !== undefined) shape[key] = style[key];
    if (text !== undefined) shape.text = text;
    const op = { op: 'connect', from: wireEnd(from), to: wireEnd(to), shape };
    if (shapeId !== undefined) op.shapeId = shapeId;
    return this.send(op);
  }

  /**
   * Starts dragging one end (`'from'` or `'to'`) of a connector (1.7, P28): a gesture like a move's, whose
   * `update({dx, dy})` and `end({dx, dy})` take the end's translation since it began. The server binds the
   * end to an anchor or a shape under it as it goes (guides and an `anchor` haptic say so), and commits the
   * connector whole at the end, one undo step.
   */
  endpoint(shapeId, end) {
    return this.gesture('endpoint', shapeId, { end });
  }
}
