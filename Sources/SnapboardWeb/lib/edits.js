// What a client sends of its user's edits: ops with fresh ids, tracked until answered, and what they are
// predicted to draw until then; nothing at all from a client that may not edit.

import { predict } from './gesture-math.js';
import { commits } from './pending-ops.js';
import { keptIn, predictSnap } from './prediction.js';
import { stoppedStates } from './states.js';

/** May the client send ops? Not a viewer, nor a stopped client; before the first welcome, yes (they wait). */
export function mayEdit(client) {
  return client.role !== 'viewer' && !stoppedStates.has(client.state);
}

/** Sends `op` as `id`, tracked until answered when it commits; `preview` is drawn until then. Returns `id`. */
export function sendOp(client, id, op, resendAs, preview) {
  const message = { type: 'op', id, ...op };
  // Begins and updates are never acked (P6): only committing ops wait for an answer.
  if (commits(message)) client.pending.sent(message, resendAs);
  if (preview) client.offlineEdits.set(id, preview);
  if (client.state === 'connected') client.link.write(message);
  return id;
}

/**
 * A tap: online, sent as it is. Offline, it names its shape by the op id (a client id of other
 * characters than a shape id's cannot: then it is only drawn), and the shape is drawn where the server
 * would put it until the server answers.
 */
export function snapOp(client, x, y, shape) {
  const op = shape ? { op: 'snap', x, y, shape } : { op: 'snap', x, y };
  if (client.state === 'connected' || client.replica.seq < 0) return client.send(op);
  if (!mayEdit(client)) return null;
  const id = client.pending.makeId();
  const named = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? { ...op, shapeId: id } : op;
  const drawn = new Map(client.drawingOrder().map((s) => [s.id, s]));
  return sendOp(client, id, named, undefined, predictSnap({ ...client.replica, shapes: drawn }, op, id));
}

/** One one-shot `move` per shape, `snap: false` unless `snap`; offline, each drawn moved (kept on the canvas). */
export function nudgeOps(client, shapeIds, dx, dy, snap) {
  const ids = [];
  for (const shape of shapeIds) {
    const op = snap ? { op: 'move', shape, dx, dy } : { op: 'move', shape, dx, dy, snap: false };
    const drawn = client.state === 'connected' ? null : client.shapeAsDrawn(shape);
    const id = client.send(op, { offlinePreview: drawn ? keptIn(predict(drawn, 'move', { dx, dy }), client.replica) : null });
    if (id === null) break;
    ids.push(id);
  }
  return ids;
}
