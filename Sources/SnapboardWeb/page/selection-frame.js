// A selection of several shapes acting as one (1.7, P29): which shapes a drag of one of them moves, and
// the frame around them whose corner and knob handles scale and turn them all about its centre, as the
// handles of one selected shape do for it. Pure: no DOM, no client.

import { boxOf } from './selection.js';

/** The most shapes one selection gesture may name (P29): a larger selection shows no frame, and the server refuses its drag (`out_of_range`). */
export const maxSelectionGesture = 1000;

/**
 * The ids a drag of shape `id` moves, of `shapes` (bottom to top) with `selection` (a Set of ids): every
 * selected shape that exists, when `id` is one of two or more of them; else `id` alone.
 */
export function draggedIds(selection, shapes, id) {
  const ids = shapes.filter((s) => s.id === id || selection.has(s.id)).map((s) => s.id);
  return ids.length > 1 && selection.has(id) ? ids : [id];
}

/**
 * The shape whose handles show for the `selected` shapes, or null: the one selected shape, or for two or
 * more (a whole group among them) their frame, a rectangle over the union of their bounds with `ids`
 * naming them and no `id`. Only when `mayChange(id)` holds for every one of them.
 */
export function handledOf(selected, mayChange) {
  if (selected.length === 0 || selected.length > maxSelectionGesture || !selected.every((s) => mayChange(s.id))) return null;
  if (selected.length === 1) return selected[0];
  const b = boxOf(selected);
  return {
    id: null, ids: selected.map((s) => s.id), kind: 'roundedRect', x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2,
    w: b.maxX - b.minX, h: b.maxY - b.minY, scale: 1, rotation: 0, z: 0,
  };
}
