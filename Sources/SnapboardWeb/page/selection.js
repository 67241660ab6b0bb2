// The selection's geometry: which shape a press hits and who holds it, which selected shapes exist, the
// box around them and the outline around each shape or group, the handles a single selected shape shows
// (four corners that scale it, one knob above that turns it; a connector's two round ends, P28), and which
// shapes a marquee takes. Pure: no DOM, no client.

import { bounds, contains, endpoints, isConnector } from '../lib/index.js';
import { refusals } from './status.js';

/** CSS pixels between a shape's bounds and the selection outline around it. */
export const outlineMargin = 4;
/** CSS pixels from the top of the outline to the centre of the rotation knob. */
export const knobDistance = 24;
/** Radius of a drawn handle, in CSS pixels. */
export const handleRadius = 5;

/** The topmost of `shapes` (bottom to top) whose outline holds `p` (canvas units), or null. */
export function shapeAt(shapes, p) {
  for (let i = shapes.length - 1; i >= 0; i--) if (contains(shapes[i], p)) return shapes[i];
  return null;
}

/** Who other than the replica's own session holds the gesture lease on shape `id` ({name, …}), or null. */
export function leaseHolder(replica, id) {
  const holder = replica.leases[id];
  return holder !== undefined && holder !== replica.session ? (replica.sessions.get(holder) ?? { name: 'someone' }) : null;
}

/** Why this session may not change shape `id` now, in words (someone else holds it, or it is locked), or null. */
export function whyHeld(replica, id) {
  const other = leaseHolder(replica, id);
  if (other) return `${other.name} is changing that shape`;
  return replica.isLocked(id) ? refusals.locked : null;
}

/**
 * The selected shapes that exist, in drawing order. The set may also name shapes that are gone, or not
 * there yet (a duplicate's copies until the server commits them): those are skipped, not dropped.
 */
export function selectedShapes(selection, shapes) {
  return selection.size === 0 ? [] : shapes.filter((s) => selection.has(s.id));
}

/** The axis-aligned box around `shapes` in canvas units, {minX, minY, maxX, maxY}, or null for none. */
export function boxOf(shapes) {
  if (shapes.length === 0) return null;
  const all = shapes.map(bounds);
  return {
    minX: Math.min(...all.map((b) => b.minX)), minY: Math.min(...all.map((b) => b.minY)),
    maxX: Math.max(...all.map((b) => b.maxX)), maxY: Math.max(...all.map((b) => b.maxY)),
  };
}

/**
 * The boxes the selection outline draws (canvas units): one around the selected members of each group
 * (P27), so that a group reads as one, and one around each selected shape in no group.
 */
export function outlineBoxes(selected) {
  const groups = new Map(), alone = [];
  for (const s of selected) {
    if (s.group === undefined) alone.push([s]);
    else groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
  }
  return [...alone, ...groups.values()].map(boxOf);
}

/**
 * The handles of one selected shape, in CSS pixels on the board: `corners` (each {x, y, anchor}, where
 * `anchor` is the opposite corner in canvas units: the point a scale from that corner keeps still) and
 * `knob`, the rotation handle above the top edge's middle. A connector (P28) has instead `ends`, one round
 * handle on each end ({x, y, end}: `from` or `to`), and no corners or knob.
 */
export function handlesOf(shape, view) {
  if (isConnector(shape)) {
    const at = endpoints(shape);
    return { ends: ['from', 'to'].map((end) => ({ ...view.toScreen(at[end]), end })), corners: [], knob: null };
  }
  const b = bounds(shape);
  const m = outlineMargin / view.scale;
  const box = { minX: b.minX - m, minY: b.minY - m, maxX: b.maxX + m, maxY: b.maxY + m };
  const corner = (x, y, ax, ay) => ({ ...view.toScreen({ x, y }), anchor: { x: ax, y: ay } });
  const top = view.toScreen({ x: (box.minX + box.maxX) / 2, y: box.minY });
  return {
    corners: [
      corner(box.minX, box.minY, b.maxX, b.maxY), corner(box.maxX, box.minY, b.minX, b.maxY),
      corner(box.maxX, box.maxY, b.minX, b.minY), corner(box.minX, box.maxY, b.maxX, b.minY),
    ],
    knob: { x: top.x, y: top.y - knobDistance },
    top,
  };
}

/** Where the padlock of a locked `shape` is drawn, in CSS pixels on the board: just outside its top-right corner. */
export function lockMarkOf(shape, view) {
  const b = bounds(shape);
  const corner = view.toScreen({ x: b.maxX, y: b.minY });
  return { x: corner.x + outlineMargin + 6, y: corner.y - outlineMargin - 7 };
}

/**
 * The handle of `shape` under the screen point `s` within `reach` CSS pixels: {kind: 'rotate'} or
 * {kind: 'scale', anchor}, or a connector's {kind: 'endpoint', end} (the nearer end), or null. The knob
 * wins over a corner when both are in reach.
 */
export function handleAt(shape, view, s, reach) {
  const h = handlesOf(shape, view);
  const near = (p) => Math.hypot(p.x - s.x, p.y - s.y) <= reach;
  if (h.ends) {
    const [end] = h.ends.filter(near).sort((a, b) => Math.hypot(a.x - s.x, a.y - s.y) - Math.hypot(b.x - s.x, b.y - s.y));
    return end ? { kind: 'endpoint', end: end.end } : null;
  }
  if (near(h.knob)) return { kind: 'rotate' };
  const corner = h.corners.find(near);
  return corner ? { kind: 'scale', anchor: corner.anchor } : null;
}

/** CSS pixels from a handle's centre that still grab it, by pointer type. */
const mouseReach = 8;
const touchReach = 18;

/**
 * The handle of `shape` a press at the screen point `s` grabs, as `handleAt` says, for a finger
 * (`touch`) or a mouse. Inside the shape a corner takes only a press on its drawn square: on a small
 * shape the reach of the corners would cover it, and a drag meant to move it would scale it.
 */
export function handleUnder(shape, view, s, touch) {
  // A connector's ends lie on its frame: they take the press within the whole reach, on the line or not.
  if (isConnector(shape)) return handleAt(shape, view, s, touch ? touchReach : mouseReach);
  const inside = contains(shape, view.toCanvas(s));
  return handleAt(shape, view, s, inside ? handleRadius + 2 : touch ? touchReach : mouseReach);
}

/**
 * The scale factor of a corner drag from `start` to `p` about `anchor` (canvas units): how far along the
 * diagonal from the anchor the pointer went, compared with where it started, never below `least`.
 */
export function cornerFactor(anchor, start, p, least = 0.05) {
  const dx = start.x - anchor.x, dy = start.y - anchor.y;
  const length2 = dx * dx + dy * dy;
  if (length2 === 0) return 1;
  return Math.max(least, ((p.x - anchor.x) * dx + (p.y - anchor.y) * dy) / length2);
}

/** The ids of the shapes whose bounds lie wholly inside the rectangle from `a` to `b` (canvas units). */
export function shapesInside(shapes, a, b) {
  const minX = Math.min(a.x, b.x), maxX = Math.max(a.x, b.x), minY = Math.min(a.y, b.y), maxY = Math.max(a.y, b.y);
  return shapes.filter((s) => {
    const box = bounds(s);
    return box.minX >= minX && box.maxX <= maxX && box.minY >= minY && box.maxY <= maxY;
  }).map((s) => s.id);
}
