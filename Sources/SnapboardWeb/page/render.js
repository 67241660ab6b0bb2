// Drawing a board: the grid intersections or a layout's cells, every shape as SnapboardCore outlines it
// (P4) with its style, text and label (P26), leases, the selection with its handles, a padlock on each locked shape (P25), a marquee, haptic
// pulses, guides, rotation angles and other people's cursors. No input handling here.

import { bounds, gridLines } from '../lib/index.js';
import { handleRadius, handlesOf, lockMarkOf, outlineBoxes, outlineMargin, selectedShapes, whyHeld } from './selection.js';
import { handledOf } from './selection-frame.js';
import { drawShape, pathOf } from './shape-drawing.js';

const guideColor = '#e0249a';
const selectionColor = '#2f6fed';
/** The padlock on a locked shape. */
export const lockColor = '#b4540a';
/** A layout cell's fill and outline: the cells read as places to put shapes, the padding as white canvas. */
export const cellFill = '#e9eef7';
const cellStroke = '#c3cde0';
/** Cells are outlined one by one only while there are at most this many in view. */
const maxDrawnCells = 40000;
const pulseMs = 320;

function drawGrid(ctx, replica, view) {
  const grid = replica.grid;
  if (!grid) return;
  const xs = gridLines(grid.width, grid.x), ys = gridLines(grid.height, grid.y);
  if (xs.length === 0 || ys.length === 0) return;
  // At most one dot every 6 pixels: a zoomed-out dense grid thins out instead of turning grey.
  const pitch = Math.min(xs.length > 1 ? xs[1] - xs[0] : grid.width, ys.length > 1 ? ys[1] - ys[0] : grid.height);
  const every = Math.max(1, Math.ceil(6 / (pitch * view.scale)));
  const r = Math.min(2.5, Math.max(1, pitch * view.scale / 12)) / view.scale;
  ctx.fillStyle = '#b4bccb';
  ctx.beginPath();
  for (let i = 0; i < xs.length; i += every) {
    for (let j = 0; j < ys.length; j += every) {
      ctx.moveTo(xs[i] + r, ys[j]);
      ctx.arc(xs[i], ys[j], r, 0, 2 * Math.PI);
    }
  }
  ctx.fill();
}

/**
 * A layout's cells (P3): cell (r, c) spans x = padding + c·(cellWidth + padding) to x + cellWidth, and
 * likewise down. Only the cells in view are drawn, and none when they would be too many or too small to see.
 */
function drawCells(ctx, layout, ui) {
  const { view } = ui;
  const { rows, columns, padding, cellWidth, cellHeight } = layout;
  if (!(rows > 0 && columns > 0 && cellWidth > 0 && cellHeight > 0)) return;
  if (Math.min(cellWidth, cellHeight) * view.scale < 3) return;
  const topLeft = view.toCanvas({ x: 0, y: 0 }), bottomRight = view.toCanvas({ x: ui.width, y: ui.height });
  const pitchX = cellWidth + padding, pitchY = cellHeight + padding;
  const c0 = Math.max(0, Math.floor((topLeft.x - padding) / pitchX)), c1 = Math.min(columns - 1, Math.floor((bottomRight.x - padding) / pitchX));
  const r0 = Math.max(0, Math.floor((topLeft.y - padding) / pitchY)), r1 = Math.min(rows - 1, Math.floor((bottomRight.y - padding) / pitchY));
  if (c1 < c0 || r1 < r0 || (c1 - c0 + 1) * (r1 - r0 + 1) > maxDrawnCells) return;
  ctx.beginPath();
  for (let r = r0; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) ctx.rect(padding + c * pitchX, padding + r * pitchY, cellWidth, cellHeight);
  }
  ctx.fillStyle = cellFill;
  ctx.fill();
  ctx.strokeStyle = cellStroke;
  ctx.lineWidth = 1 / view.scale;
  ctx.stroke();
}

/**
 * A single selected shape's handles, in screen space: four corner squares that scale, a knob on a stem that
 * turns; a connector's, a round handle on each end (P28).
 */
function drawHandles(ctx, shape, view) {
  const h = handlesOf(shape, view);
  ctx.strokeStyle = selectionColor;
  ctx.lineWidth = 1.5;
  if (h.ends) {
    ctx.fillStyle = 'white';
    for (const end of h.ends) {
      ctx.beginPath();
      ctx.arc(end.x, end.y, handleRadius + 1, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
    return;
  }
  ctx.beginPath();
  ctx.moveTo(h.top.x, h.top.y);
  ctx.lineTo(h.knob.x, h.knob.y + handleRadius);
  ctx.stroke();
  ctx.fillStyle = 'white';
  for (const c of h.corners) {
    ctx.fillRect(c.x - handleRadius, c.y - handleRadius, 2 * handleRadius, 2 * handleRadius);
    ctx.strokeRect(c.x - handleRadius, c.y - handleRadius, 2 * handleRadius, 2 * handleRadius);
  }
  ctx.beginPath();
  ctx.arc(h.knob.x, h.knob.y, handleRadius, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
}

/** A small padlock centred on `at` (CSS pixels on the board): a filled body under a shackle. */
function drawLockMark(ctx, at) {
  ctx.fillStyle = lockColor;
  ctx.strokeStyle = lockColor;
  ctx.lineWidth = 1.75;
  ctx.beginPath();
  ctx.arc(at.x, at.y - 2, 3, Math.PI, 0);
  ctx.lineTo(at.x + 3, at.y);
  ctx.moveTo(at.x - 3, at.y - 2);
  ctx.lineTo(at.x - 3, at.y);
  ctx.stroke();
  ctx.fillRect(at.x - 5, at.y, 10, 7);
}

function label(ctx, text, x, y, color) {
  ctx.font = '12px system-ui, sans-serif';
  const w = ctx.measureText(text).width + 8;
  ctx.fillStyle = color;
  ctx.fillRect(x, y - 16, w, 16);
  ctx.fillStyle = 'white';
  ctx.fillText(text, x + 4, y - 4);
}

/**
 * Draws the whole board. `ui`: {client, view, selection (a Set of ids), editable(), marquee, draft (the
 * connector the Connector tool is drawing, or null), pulses: Map(id → start ms), angleShape, editingText
 * (the shape whose text this page's editor shows, or null), now, width, height (CSS pixels), dpr}. Returns true while something
 * animates (a pulse), so the caller keeps drawing.
 */
export function draw(ctx, ui) {
  const { client, view, dpr } = ui;
  const replica = client.replica;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#eef0f4';
  ctx.fillRect(0, 0, ui.width, ui.height);
  ctx.setTransform(dpr * view.scale, 0, 0, dpr * view.scale, dpr * view.ox, dpr * view.oy);
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, replica.width, replica.height);
  ctx.strokeStyle = '#c9cfdb';
  ctx.lineWidth = 1 / view.scale;
  ctx.strokeRect(0, 0, replica.width, replica.height);
  // A layout canvas fits taps to its cells, not to grid points: it shows the cells instead of the grid.
  if (replica.layout) drawCells(ctx, replica.layout, ui);
  else drawGrid(ctx, replica, view);

  const shapes = client.drawingOrder();
  for (const shape of shapes) drawShape(ctx, shape, shape.id === ui.editingText, view);

  // Leases of other people, in their colours, and this person's selection.
  for (const [id, session] of Object.entries(replica.leases)) {
    const shape = replica.shapes.get(id);
    if (!shape || session === replica.session) continue;
    const who = replica.sessions.get(session);
    ctx.strokeStyle = who?.color ?? '#888888';
    ctx.lineWidth = 3 / view.scale;
    ctx.stroke(pathOf(shape));
  }
  const selected = selectedShapes(ui.selection, shapes);
  ctx.save();
  ctx.setLineDash([6 / view.scale, 4 / view.scale]);
  ctx.strokeStyle = selectionColor;
  ctx.lineWidth = 2 / view.scale;
  // One dashed box around each selected shape, or around a selected group's members (P27).
  const m = outlineMargin / view.scale;
  const boxes = outlineBoxes(selected);
  for (const b of boxes) ctx.strokeRect(b.minX - m, b.minY - m, b.maxX - b.minX + 2 * m, b.maxY - b.minY + 2 * m);
  // Several shapes that move as one (P29) show one frame around them all, with its handles.
  const handled = handledOf(selected, (id) => ui.editable() && !whyHeld(replica, id));
  if (handled?.ids && boxes.length > 1) ctx.strokeRect(handled.x - handled.w / 2 - m, handled.y - handled.h / 2 - m, handled.w + 2 * m, handled.h + 2 * m);
  if (ui.marquee) {
    const { a, b } = ui.marquee;
    ctx.fillStyle = 'rgba(47, 111, 237, 0.08)';
    ctx.fillRect(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.abs(b.x - a.x), Math.abs(b.y - a.y));
    ctx.strokeRect(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.abs(b.x - a.x), Math.abs(b.y - a.y));
  }
  ctx.restore();
  // The connector being drawn, faint, from the press to the pointer: the server binds its ends on release.
  if (ui.draft) drawShape(ctx, ui.draft, true, view);

  // Haptic pulses: a ring that grows and fades around the shape that snapped.
  let animating = false;
  for (const [id, start] of ui.pulses) {
    const t = (ui.now - start) / pulseMs;
    const shape = replica.shapes.get(id);
    if (t >= 1 || !shape) { ui.pulses.delete(id); continue; }
    animating = true;
    const b = bounds(shape), grow = (6 + 14 * t) / view.scale;
    ctx.strokeStyle = `rgba(47, 111, 237, ${1 - t})`;
    ctx.lineWidth = 3 / view.scale;
    ctx.strokeRect(b.minX - grow, b.minY - grow, b.maxX - b.minX + 2 * grow, b.maxY - b.minY + 2 * grow);
  }

  // Guides of every snap that holds, for everyone (P9).
  ctx.strokeStyle = guideColor;
  ctx.lineWidth = 2 / view.scale;
  ctx.beginPath();
  for (const g of replica.guides) {
    if (g.axis === 'x') { ctx.moveTo(g.at, g.from); ctx.lineTo(g.at, g.to); } else { ctx.moveTo(g.from, g.at); ctx.lineTo(g.to, g.at); }
  }
  ctx.stroke();

  // Equal gaps: each gap a line with end ticks, across the space it measures.
  const tick = 5 / view.scale;
  ctx.beginPath();
  for (const g of replica.gaps) {
    for (const [from, to, at] of g.segments) {
      if (g.axis === 'x') {
        ctx.moveTo(from, at); ctx.lineTo(to, at);
        ctx.moveTo(from, at - tick); ctx.lineTo(from, at + tick); ctx.moveTo(to, at - tick); ctx.lineTo(to, at + tick);
      } else {
        ctx.moveTo(at, from); ctx.lineTo(at, to);
        ctx.moveTo(at - tick, from); ctx.lineTo(at + tick, from); ctx.moveTo(at - tick, to); ctx.lineTo(at + tick, to);
      }
    }
  }
  ctx.stroke();

  // In screen space from here: handles, names, the snapped angle, cursors.
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (handled) drawHandles(ctx, handled, view);
  for (const shape of shapes) if (replica.isLocked(shape.id)) drawLockMark(ctx, lockMarkOf(shape, view));
  for (const [id, session] of Object.entries(replica.leases)) {
    const shape = replica.shapes.get(id);
    const who = replica.sessions.get(session);
    if (!shape || !who || session === replica.session) continue;
    const b = bounds(shape);
    const p = view.toScreen({ x: b.minX, y: b.minY });
    label(ctx, who.name, p.x, p.y - 2, who.color);
  }
  const turned = ui.angleShape && replica.shapes.get(ui.angleShape);
  const step = replica.snapping?.angleStep;
  if (turned && step) {
    const steps = turned.rotation / step;
    if (Math.abs(steps - Math.round(steps)) < 1e-9) {
      const b = bounds(turned);
      const p = view.toScreen({ x: b.maxX, y: b.minY });
      label(ctx, `${Math.round((turned.rotation * 180) / Math.PI) % 360}°`, p.x + 4, p.y, guideColor);
    }
  }
  // Cursors are live only while connected: after a drop they are stale, and a restarted server may never
  // say that their owners left. This person's own pointer is the system's, never drawn as someone else's.
  const cursors = client.stale ? new Map() : replica.cursors;
  for (const [session, at] of cursors) {
    const who = replica.sessions.get(session);
    if (!who || session === replica.session) continue;
    const p = view.toScreen(at);
    ctx.fillStyle = who.color;
    ctx.beginPath();
    ctx.moveTo(p.x, p.y);
    ctx.lineTo(p.x + 4, p.y + 15);
    ctx.lineTo(p.x + 7.5, p.y + 9);
    ctx.lineTo(p.x + 14, p.y + 8);
    ctx.closePath();
    ctx.fill();
    label(ctx, who.name, p.x + 12, p.y + 26, who.color);
  }
  return animating;
}
