// Where a tap would put its shape, before the server says: what a client draws for a snap sent offline.
// Pure.

import { gridLines, snapToLines } from './geometry.js';

/** The fill a predicted shape is drawn with until the server picks its own: a neutral grey. */
const predictedFill = { h: 0, s: 0, b: 0.6, a: 1 };

/**
 * The shape a `snap` op (`{x, y, shape?, shapeId?}`) would make on the canvas the replica holds, as the
 * server makes it (PROTOCOL.md, P13) save for what only the server knows: the fill it picks, and on a
 * layout canvas the free cell and its fitting. The tap goes to the nearest grid point, the size is the
 * spec's or the default (a 24-unit dot, else 120 units), on top of every shape, and on a bounded canvas
 * the frame is kept inside. `id` names it when the op does not.
 */
export function predictSnap(replica, op, id) {
  const spec = op.shape ?? {};
  const kind = spec.kind ?? 'dot';
  const side = kind === 'dot' ? 24 : 120;
  const w = spec.w ?? side, h = kind === 'dot' ? w : spec.h ?? side;
  let x = snapToLines(gridLines(replica.width, replica.grid?.x), op.x);
  let y = snapToLines(gridLines(replica.height, replica.grid?.y), op.y);
  if (replica.bounded !== false && replica.width >= w && replica.height >= h) {
    x = Math.min(Math.max(x, w / 2), replica.width - w / 2);
    y = Math.min(Math.max(y, h / 2), replica.height - h / 2);
  }
  let z = 0;
  for (const s of replica.shapes.values()) z = Math.max(z, s.z + 1);
  const shape = { id: op.shapeId ?? id, kind, x, y, w, h, scale: 1, rotation: 0, fill: spec.fill ?? predictedFill, hatch: spec.hatch ?? 'none', z };
  for (const key of ['sides', 'points', 'inner', 'depth']) if (spec[key] !== undefined) shape[key] = spec[key];
  return shape;
}
