// The arithmetic of gestures: what a gesture did, what is left of it, and where it leaves a shape. Pure.

import { bounds, connectorFrame, endpoints, turn } from './geometry.js';

/**
 * What is left of a gesture's cumulative parameters once `sent` of them reached the server: the one-shot
 * op that finishes the gesture after a reconnect. Moves subtract, scales divide, rotations subtract.
 */
export function remainder(kind, total, sent) {
  switch (kind) {
    case 'move':
    case 'endpoint': return { dx: (total.dx ?? 0) - (sent.dx ?? 0), dy: (total.dy ?? 0) - (sent.dy ?? 0) };
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

/** The parameters of a `kind` gesture that took `origin` to `current`; of an `endpoint`, of the end `fields.end`. */
export function progress(kind, origin, current, fields = {}) {
  switch (kind) {
    case 'move': return { dx: current.x - origin.x, dy: current.y - origin.y };
    case 'endpoint': {
      const end = fields.end === 'from' ? 'from' : 'to', a = endpoints(origin)[end], b = endpoints(current)[end];
      return { dx: b.x - a.x, dy: b.y - a.y };
    }
    case 'scale': return { factor: current.scale / origin.scale, radians: turn(origin.rotation, current.rotation) };
    case 'rotate': return { radians: turn(origin.rotation, current.rotation) };
    default: return {};
  }
}

/**
 * The shape as a gesture's parameters would leave it, before snapping: what a client shows offline. An
 * `endpoint` gesture moves the end `fields.end` of a connector, which then holds no binding.
 */
export function predict(shape, kind, p, fields = {}) {
  switch (kind) {
    case 'move':
      return { ...shape, x: shape.x + (p.dx ?? 0), y: shape.y + (p.dy ?? 0) };
    case 'scale': {
      const f = p.factor ?? 1, r = p.radians ?? 0, ax = p.ax ?? shape.x, ay = p.ay ?? shape.y;
      // About the anchor: the point under the fingers stays under them.
      const vx = (shape.x - ax) * f, vy = (shape.y - ay) * f, cs = Math.cos(r), sn = Math.sin(r);
      const rotation = (((shape.rotation + r) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      return { ...shape, scale: shape.scale * f, rotation, x: ax + cs * vx - sn * vy, y: ay + sn * vx + cs * vy };
    }
    case 'rotate': {
      const r = (((shape.rotation + (p.radians ?? 0)) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      return { ...shape, rotation: r };
    }
    case 'endpoint': {
      const end = fields.end === 'from' ? 'from' : 'to', ends = endpoints(shape);
      ends[end] = { x: ends[end].x + (p.dx ?? 0), y: ends[end].y + (p.dy ?? 0) };
      const moved = { ...shape, ...connectorFrame(ends.from, ends.to, shape.scale) };
      delete moved[end];
      return moved;
    }
    default:
      return shape;
  }
}

/** The parameters of a gesture of each kind that changes nothing: where a gesture starts. */
export const identity = { move: { dx: 0, dy: 0 }, scale: { factor: 1 }, rotate: { radians: 0 }, endpoint: { dx: 0, dy: 0 } };

/**
 * Each of `origins` (a selection's shapes at its begin, 1.7 P29) as a selection gesture's parameters would
 * leave it, before snapping: a move moves each by (dx, dy); a scale grows each and its distance from the
 * anchor (`ax`, `ay`, by default the centre of the union of their bounds) by `factor` and turns them about
 * it by `radians`; a rotate turns them about that centre. Not kept on the canvas.
 */
export function predictSelection(origins, kind, p) {
  if (origins.length === 0) return [];
  const all = origins.map(bounds);
  const cx = (Math.min(...all.map((b) => b.minX)) + Math.max(...all.map((b) => b.maxX))) / 2;
  const cy = (Math.min(...all.map((b) => b.minY)) + Math.max(...all.map((b) => b.maxY))) / 2;
  switch (kind) {
    case 'move': return origins.map((s) => predict(s, 'move', p));
    case 'scale': return origins.map((s) => predict(s, 'scale', { ...p, ax: p.ax ?? cx, ay: p.ay ?? cy }));
    case 'rotate': return origins.map((s) => predict(s, 'scale', { factor: 1, radians: p.radians ?? 0, ax: cx, ay: cy }));
    default: return origins;
  }
}
