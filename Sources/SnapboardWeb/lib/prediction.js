// What a client draws before the server answers: where a tap would put its shape, where an offline move
// leaves one, and the shapes as drawn with those predictions. Pure.

import { bounds, gridLines, snapToLines } from './geometry.js';
import { colorHex, defaultFrame, fillFromColor, lookDefaults } from './style.js';

/** The fill a predicted shape is drawn with until the server picks its own: a neutral grey. */
const predictedFill = { h: 0, s: 0, b: 0.6, a: 1 };

/** The alpha of a new shape's fill (P26): a note is opaque, a text has no fill, any other shape 0.8. */
export function newFillAlpha(kind) {
  return kind === 'note' ? 1 : kind === 'text' ? 0 : 0.8;
}

/**
 * The fill a snap's spec makes (P26): its HSB fill, or its colour (`#rrggbb` or a palette name) with a new
 * shape's alpha; without one, a note's yellow, a text's transparent fill, else `fallback`.
 */
export function snapFill(kind, fill, fallback = predictedFill) {
  if (typeof fill === 'string') return fillFromColor(fill, newFillAlpha(kind)) ?? fallback;
  if (fill) return fill;
  if (kind === 'note') return fillFromColor('yellow', 1);
  if (kind === 'text') return fillFromColor('white', 0);
  return fallback;
}

/**
 * `shape` translated onto a `width` × `height` canvas as the server keeps it (`Canvas.keptIn`): on a bounded
 * canvas its bounds inside (centred on an axis it is longer than), else its centre on the canvas. Never resized.
 */
export function keptIn(shape, { width, height, bounded }) {
  const b = bounds(shape);
  const axis = (min, max, centre, length) => {
    if (bounded === false) return Math.min(Math.max(centre, 0), length) - centre;
    if (max - min > length) return length / 2 - (min + max) / 2;
    if (min < 0) return -min;
    if (max > length) return length - max;
    return 0;
  };
  const dx = axis(b.minX, b.maxX, shape.x, width), dy = axis(b.minY, b.maxY, shape.y, height);
  return dx === 0 && dy === 0 ? shape : { ...shape, x: shape.x + dx, y: shape.y + dy };
}

/**
 * The cell a shape centred at (x, y) goes to on a layout canvas (PROTOCOL.md, P3 `layout`): the cell under
 * it when no shape's centre lies in it, else the nearest free one (by the distance between centres, a tie
 * to the smaller row, then column); null when every cell is taken. As `LayoutGrid` and `Canvas.freeCell`.
 */
export function layoutCell(layout, shapes, x, y) {
  const { rows, columns, padding, cellWidth, cellHeight } = layout;
  const pitchX = cellWidth + padding, pitchY = cellHeight + padding;
  const index = (v, pitch, count) => { const t = (v - padding) / pitch; return t < 0 ? 0 : t >= count - 1 ? count - 1 : Math.floor(t); };
  const occupied = new Set();
  for (const s of shapes) occupied.add(index(s.y, pitchY, rows) * columns + index(s.x, pitchX, columns));
  const row = index(y, pitchY, rows), column = index(x, pitchX, columns);
  let best = null;
  if (!occupied.has(row * columns + column)) best = { row, column };
  else if (occupied.size < rows * columns && rows * columns <= 1_000_000) {
    let distance = Infinity;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        if (occupied.has(r * columns + c)) continue;
        const d = ((c - column) * pitchX) ** 2 + ((r - row) * pitchY) ** 2;
        if (d < distance) { distance = d; best = { row: r, column: c }; }
      }
    }
  }
  if (!best) return null;
  return { x: padding + best.column * pitchX + cellWidth / 2, y: padding + best.row * pitchY + cellHeight / 2, w: cellWidth, h: cellHeight };
}

/**
 * The shape a `snap` op (`{x, y, shape?, shapeId?}`) would make on `canvas` (a `Replica`, or anything with
 * its `width`, `height`, `grid`, `layout`, `bounded` and `shapes`), as the server makes it (PROTOCOL.md,
 * P13) save for a fill the spec leaves out, which the server picks (a note's is yellow, a text's transparent;
 * a colour is turned into the fill the server sets for it): the tap goes to the nearest grid point, or on a layout
 * canvas to the free cell nearest to it, the shape fitted to the cell (keeping its aspect ratio unless the
 * layout says `fill`); the size is the spec's or the default (a 24-unit dot, a 240×60 text, a 200×200 note,
 * else 120 units); its text and style are the spec's (P26); it goes on
 * top of every shape, kept on the canvas (`keptIn`). `id` names it when the op does not.
 * Null when the server would refuse the tap as `layout_full`.
 */
export function predictSnap(canvas, op, id) {
  const spec = op.shape ?? {};
  const kind = spec.kind ?? 'dot';
  const frame = defaultFrame(kind);
  let w = spec.w ?? frame.w, h = kind === 'dot' ? w : spec.h ?? frame.h;
  let x = snapToLines(gridLines(canvas.width, canvas.grid?.x), op.x);
  let y = snapToLines(gridLines(canvas.height, canvas.grid?.y), op.y);
  if (canvas.layout) {
    const cell = layoutCell(canvas.layout, canvas.shapes.values(), op.x, op.y);
    if (!cell) return null;
    ({ x, y } = cell);
    if (kind === 'dot') w = h = Math.min(cell.w, cell.h);
    else if (canvas.layout.fill) [w, h] = [cell.w, cell.h];
    else { const f = Math.min(cell.w / w, cell.h / h); [w, h] = [w * f, h * f]; }
  }
  let z = 0;
  for (const s of canvas.shapes.values()) z = Math.max(z, s.z + 1);
  const shape = { id: op.shapeId ?? id, kind, x, y, w, h, scale: 1, rotation: 0, fill: snapFill(kind, spec.fill), hatch: spec.hatch ?? 'none', z };
  for (const key of ['sides', 'points', 'inner', 'depth']) if (spec[key] !== undefined) shape[key] = spec[key];
  // The look's fields, as the wire form has them: present only when not their default.
  for (const key of Object.keys(lookDefaults)) if (spec[key] !== undefined && spec[key] !== lookDefaults[key]) shape[key] = spec[key];
  if (shape.stroke !== undefined) shape.stroke = colorHex(shape.stroke) ?? undefined;
  if (shape.stroke === undefined) delete shape.stroke;
  return keptIn(shape, canvas);
}

/**
 * The predicted shapes by id: those `edits` (by op id, in the order the ops were made, each a shape or, of
 * a selection gesture, P29, its shapes) leave, then, while not `connected`, what each gesture in progress
 * would make of its shapes.
 */
export function predictedShapes(edits, gestures, connected) {
  const predicted = new Map();
  for (const edit of edits.values()) for (const shape of [edit].flat()) predicted.set(shape.id, shape);
  if (!connected) for (const g of gestures) for (const shape of g.previews ?? (g.preview ? [g.preview] : [])) predicted.set(shape.id, shape);
  return predicted;
}

/** `shapes` (bottom to top) with the predicted ones in place of theirs, and new ones on top. */
export function drawnWith(shapes, predicted) {
  if (predicted.size === 0) return shapes;
  const known = new Set(shapes.map((s) => s.id));
  const drawn = shapes.map((s) => predicted.get(s.id) ?? s);
  for (const [id, shape] of predicted) if (!known.has(id)) drawn.push(shape);
  return drawn;
}
