// Two fingers on a shape: one `scale` gesture that scales and turns it about the point between the
// fingers where they went down (P13), begun only once the fingers spread, close, slide or turn past the
// slop. On one of several selected shapes, or on a group's member, the pinch takes the whole selection as
// one selection gesture naming them all as `shapes` (P29): one commit, one undo step, as their frame's
// handles do. Whether this person may pinch them at all is the input's to say (input.js).

import { pinchParams } from './drag-params.js';
import { draggedIds } from './selection-frame.js';
import { pinchWithinSlop, touchSlop } from './slop.js';

/**
 * The press of a pinch on shape `shape` whose fingers span `s` (as the library's `span` gives them), not
 * yet past its slop: `ids` the shapes it takes, `shape` alone unless it is one of two or more selected of
 * `shapes` (bottom to top) with `selection` (a Set of ids), as a drag would move them.
 */
export function pinchPress(selection, shapes, shape, s) {
  return { shape, ids: draggedIds(selection, shapes, shape), span: s, slop: touchSlop, gesture: null };
}

/**
 * The fingers of pinch `press` now span `s`. Past the slop the pinch begins (`client.gesture`, its anchor
 * `anchorOf(the span's middle where the fingers went down)`, and one shape's angle shown in `ui`); once
 * under way its gesture is told the factor and turn so far about that anchor. Returns whether it is under way.
 */
export function pinchTo(press, s, { client, ui, anchorOf }) {
  const params = pinchParams(press, s);
  if (!press.gesture) {
    if (pinchWithinSlop(press.span, s, press.turned, press.slop)) return false;
    press.anchor = anchorOf(press.span.mid);
    press.gesture = client.gesture('scale', press.ids.length > 1 ? press.ids : press.shape);
    if (press.ids.length === 1) ui.angleShape = press.shape;
  }
  press.gesture.update({ ...params, ax: press.anchor.x, ay: press.anchor.y });
  return true;
}
