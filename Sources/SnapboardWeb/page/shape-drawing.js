// Drawing one shape with its look (P26): its outline as SnapboardCore makes it (P4), its fill and hatch,
// its stroke and its text, at its opacity; a connector (P28) as a line from end to end, an arrow with its
// head at `to`, and its label on its middle. No input handling, no selection here.

import { contours, cssColor, endpoints, isConnector, lookOf, transform } from '../lib/index.js';
import { drawText } from './text-layout.js';

const hatchSpacing = 8;  // canvas units between hatch lines, in the shape's own frame
/** The outline where a shape has no `stroke` (P26): #141823 at 70 % alpha. */
export const defaultOutline = 'rgba(20, 24, 35, 0.7)';
/** A note's corners are rounded by this many canvas units (P26). */
const noteCorner = 4;

/** A Path2D per shape object: the replica replaces a shape's object whenever it changes. */
const paths = new WeakMap();

/** A shape's outline as a Path2D, made once per shape object: what it is filled and outlined by, and a lease drawn round. */
export function pathOf(shape) {
  let path = paths.get(shape);
  if (!path && shape.kind === 'note') {
    // A note's outline is its frame (SnapboardCore hit-tests it so); only its drawing rounds the corners.
    const local = new Path2D();
    local.roundRect(-shape.w / 2, -shape.h / 2, shape.w, shape.h, Math.min(noteCorner, shape.w / 2, shape.h / 2));
    path = new Path2D();
    path.addPath(local, new DOMMatrix(transform(shape)));
    paths.set(shape, path);
  } else if (!path) {
    path = new Path2D();
    for (const polygon of contours(shape)) {
      polygon.forEach((p, i) => (i === 0 ? path.moveTo(p.x, p.y) : path.lineTo(p.x, p.y)));
      path.closePath();
    }
    paths.set(shape, path);
  }
  return path;
}

function drawHatch(ctx, shape, path) {
  if (shape.hatch === 'none' || !shape.hatch) return;
  const reach = Math.hypot(shape.w, shape.h) / 2;
  ctx.save();
  ctx.clip(path, 'evenodd');
  const [a, b, c, d, tx, ty] = transform(shape);
  ctx.transform(a, b, c, d, tx, ty);
  ctx.strokeStyle = 'rgba(0, 0, 0, 0.35)';
  ctx.lineWidth = 1 / shape.scale;
  ctx.beginPath();
  const angles = shape.hatch === 'crossHatch' ? [Math.PI / 4, -Math.PI / 4] : [Math.PI / 4];
  for (const angle of angles) {
    const cs = Math.cos(angle), sn = Math.sin(angle);
    for (let k = -reach; k <= reach; k += hatchSpacing) {
      // The line at distance k from the centre, across the whole shape.
      ctx.moveTo(k * -sn - reach * cs, k * cs - reach * sn);
      ctx.lineTo(k * -sn + reach * cs, k * cs + reach * sn);
    }
  }
  ctx.stroke();
  ctx.restore();
}

/**
 * One shape with its look (P26): its fill (none for a text), hatch, outline in its stroke colour and width
 * (none for a text, or at width 0), and its text, all at its opacity; a connector as `drawConnector` draws
 * it. `hideText`: the page's own editor shows this shape's text instead. `view`: the board's view (its scale).
 */
export function drawShape(ctx, shape, hideText, view) {
  if (isConnector(shape)) return drawConnector(ctx, shape, hideText, view);
  const look = lookOf(shape);
  const path = pathOf(shape);
  ctx.save();
  ctx.globalAlpha = look.opacity;
  if (shape.kind !== 'text') {
    ctx.fillStyle = cssColor(shape.fill);
    ctx.fill(path, 'evenodd');
    drawHatch(ctx, shape, path);
    if (look.strokeWidth > 0) {
      ctx.strokeStyle = look.stroke ?? defaultOutline;
      ctx.lineWidth = look.strokeWidth * shape.scale;
      ctx.stroke(path);
    }
  }
  if (look.text !== '' && !hideText) drawText(ctx, shape, look);
  ctx.restore();
}

/** Behind a connector's label, so that its line does not cross the words: the canvas's white. */
const labelBackdrop = 'rgba(255, 255, 255, 0.9)';
/** A connector's line is never drawn thinner than this many CSS pixels, whatever its width and the zoom. */
const leastLinePixels = 2;

/**
 * How long an arrow's head is for a line `lineWidth` canvas units wide (P28): proportional to it, at
 * least 10 units. Its base is as wide as it is long.
 */
export function arrowHeadLength(lineWidth) {
  return Math.max(10, 4 * lineWidth);
}

/**
 * A connector (1.7, P28): a straight line from its `from` end to its `to` end in its stroke colour (the
 * default outline without one) at `strokeWidth × scale`, at least two CSS pixels so that it shows at any
 * zoom; no fill, no hatch. An arrow ends in a filled head at `to`, the line stopping at the head's base so
 * that its cap does not show past the tip. Its text is centred on its middle, level, over white.
 */
function drawConnector(ctx, shape, hideText, view) {
  const look = lookOf(shape);
  const { from, to } = endpoints(shape);
  const width = Math.max(look.strokeWidth * shape.scale, leastLinePixels / (view?.scale ?? 1));
  const color = look.stroke ?? defaultOutline;
  const length = Math.hypot(to.x - from.x, to.y - from.y);
  const ux = length > 0 ? (to.x - from.x) / length : Math.cos(shape.rotation), uy = length > 0 ? (to.y - from.y) / length : Math.sin(shape.rotation);
  ctx.save();
  ctx.globalAlpha = look.opacity;
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = width;
  ctx.lineCap = 'round';
  const head = shape.kind === 'arrow' ? Math.min(arrowHeadLength(width), length) : 0;
  ctx.beginPath();
  ctx.moveTo(from.x, from.y);
  ctx.lineTo(to.x - ux * head * 0.9, to.y - uy * head * 0.9);
  ctx.stroke();
  if (head > 0) {
    const bx = to.x - ux * head, by = to.y - uy * head, half = head / 2;
    ctx.beginPath();
    ctx.moveTo(to.x, to.y);
    ctx.lineTo(bx - uy * half, by + ux * half);
    ctx.lineTo(bx + uy * half, by - ux * half);
    ctx.closePath();
    ctx.fill();
  }
  if (look.text !== '' && !hideText) drawText(ctx, shape, look, labelBackdrop);
  ctx.restore();
}
