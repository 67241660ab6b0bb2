// How far a press may travel and still be a click or a tap, what is a double-tap, and whether a gesture
// came back within its slop of where it began, in which case it ends with parameters that change
// nothing, so the server commits nothing. Pure.

/** CSS pixels a mouse or pen press may travel and still be a click. */
export const mouseSlop = 4;
/** CSS pixels a finger may travel and still be a tap: fingers wobble more than a mouse. */
export const touchSlop = 10;

/** A second tap this soon (ms) and this near (CSS pixels) to the last is a double-tap. */
const doubleTapMs = 500;
const doubleTapReach = 12;

/** Whether a tap at `at` (CSS pixels) at `time` (ms) repeats the `last` one ({at, time}, or null). */
export function doubleTap(last, at, time) {
  return !!last && time - last.time < doubleTapMs && Math.hypot(at.x - last.at.x, at.y - last.at.y) <= doubleTapReach;
}

/** The parameters that end a gesture of each kind (a pinch is a scale) changing nothing. */
export const unchanged = { move: { dx: 0, dy: 0 }, scale: { factor: 1, radians: 0 }, rotate: { radians: 0 }, endpoint: { dx: 0, dy: 0 } };

/** The kind of gesture under way in each pointer mode that drives one (a pinch is a scale; an end handle's drag an endpoint, P28). */
export const gestureKinds = { move: 'move', scale: 'scale', rotate: 'rotate', pinch: 'scale', endpoint: 'endpoint' };

/** Whether a pointer that went down at `start` is, at `at` (CSS pixels), back within `slop` of it. */
export function backAtStart(start, at, slop) {
  return !!at && Math.hypot(at.x - start.x, at.y - start.y) <= slop;
}

/**
 * Whether two fingers that went down spanning `start` and now span `now` (spans as the library's `span`
 * gives them), having turned `turned` radians since, are within `slop` of how they began: neither spread,
 * slid nor swung further.
 */
export function pinchWithinSlop(start, now, turned, slop) {
  const spread = Math.abs(now.distance - start.distance);
  const slid = Math.hypot(now.mid.x - start.mid.x, now.mid.y - start.mid.y);
  const swung = Math.abs(turned) * start.distance / 2;
  return Math.max(spread, slid, swung) <= slop;
}

/**
 * The parameters that end the gesture of pointer `mode` (move, scale, rotate, pinch or endpoint) of `press`, whose
 * pointer lifted at `at` (a pinch: its fingers as last seen, `press.now`): those that change nothing when
 * it came back within its slop or was `cancelled`, else none beyond what the gesture was given.
 */
export function endParams(mode, press, at, cancelled = false) {
  const back = mode === 'pinch'
    ? pinchWithinSlop(press.span, press.now ?? press.span, press.turned ?? 0, press.slop)
    : backAtStart(press.start, at, press.slop);
  return cancelled || back ? unchanged[gestureKinds[mode]] : {};
}
