// What a drag past its slop tells the gesture it drives: the cumulative parameters of a move or an end's
// drag (P28), a corner's scale about the opposite corner, a knob's turn about the centre, and a pinch's
// scale and turn. Pure; a turn is counted up on the press, so that it never jumps by a full turn.

import { turn } from '../lib/index.js';
import { cornerFactor } from './selection.js';

/**
 * The parameters of pointer `mode`'s gesture (move, endpoint, scale or rotate) with the pointer at `p`
 * (canvas units) since `press` began at `press.startCanvas`. `clamp` keeps a scale's anchor on the canvas.
 */
export function dragParams(mode, press, p, clamp) {
  switch (mode) {
    case 'move':
    case 'endpoint':
      return { dx: p.x - press.startCanvas.x, dy: p.y - press.startCanvas.y };
    case 'scale': {
      const anchor = clamp(press.handle.anchor);
      return { factor: cornerFactor(anchor, press.startCanvas, p), ax: anchor.x, ay: anchor.y };
    }
    case 'rotate': {
      const angle = Math.atan2(p.y - press.center.y, p.x - press.center.x);
      const startAngle = Math.atan2(press.startCanvas.y - press.center.y, press.startCanvas.x - press.center.x);
      press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? startAngle, angle);
      press.lastAngle = angle;
      return { radians: press.turned };
    }
    default:
      return {};
  }
}

/**
 * Two fingers that went down spanning `press.span` now span `s` (as the library's `span` gives them): the
 * pinch's factor and turn so far. The turn and the span are kept on the press (`turned`, `now`).
 */
export function pinchParams(press, s) {
  press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? press.span.angle, s.angle);
  press.lastAngle = s.angle;
  press.now = s;
  return { factor: s.distance / press.span.distance, radians: press.turned };
}
