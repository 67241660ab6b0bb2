// Shape geometry, as SnapboardCore defines it (Shape+Geometry.swift): the outline every client draws.
// Pure functions on the wire form of a shape (PROTOCOL.md, P4). A Swift test writes test vectors and
// Tests/Web/geometry.test.mjs checks these functions against them to 1e-9, so the two cannot drift.

/** Straight segments per full circle in `contours`. */
export const circleSegments = 48;

/** The corner radius of a rounded rectangle with this unscaled frame. */
export function cornerRadius(w, h) {
  return Math.min(10, Math.min(w, h) / 4);
}

/** The outline of a w × h rectangle centred on the origin with corners rounded by `r`: a quarter circle each. */
function roundedFrame(hw, hh, r) {
  const quarter = circleSegments / 4;
  const corners = [
    [hw - r, -hh + r, -Math.PI / 2],
    [hw - r, hh - r, 0],
    [-hw + r, hh - r, Math.PI / 2],
    [-hw + r, -hh + r, Math.PI],
  ];
  const out = [];
  for (const [cx, cy, start] of corners) {
    for (let i = 0; i <= quarter; i++) out.push(polar(cx, cy, r, start + i * (Math.PI / 2) / quarter));
  }
  return out;
}

/** The affine map from the shape's local frame to canvas space: [a, b, c, d, tx, ty], as CoreGraphics. */
export function transform(shape) {
  const cs = Math.cos(shape.rotation), sn = Math.sin(shape.rotation), s = shape.scale;
  // translation(centre) · rotation(r) · scale(s), composed in the order AffineTransform.after does.
  return [cs * s, sn * s, -sn * s, cs * s, shape.x, shape.y];
}

function apply(t, p) {
  return { x: t[0] * p.x + t[2] * p.y + t[4], y: t[1] * p.x + t[3] * p.y + t[5] };
}

function polar(cx, cy, radius, angle) {
  return { x: cx + radius * Math.cos(angle), y: cy + radius * Math.sin(angle) };
}

function ellipse(cx, cy, rx, ry, segments) {
  const out = [];
  for (let i = 0; i < segments; i++) {
    const angle = i * 2 * Math.PI / segments;
    out.push({ x: cx + rx * Math.cos(angle), y: cy + ry * Math.sin(angle) });
  }
  return out;
}

/** The radius of a fractal's first circle, so that the whole fractal fits its frame. */
export function fractalRadius(w, h, depth) {
  const reach = 2 - Math.pow(2, 1 - depth);
  return Math.min(w, h) / 2 / reach;
}

/** Every circle of the fractal in the local frame, level by level: (3^depth - 1) / 2 of them. */
export function fractalCircles(w, h, depth) {
  const directions = [0, 1, 2].map((k) => polar(0, 0, 1, -Math.PI / 2 + k * 2 * Math.PI / 3));
  let level = [{ x: 0, y: 0, r: fractalRadius(w, h, depth) }];
  const circles = [...level];
  for (let d = 1; d < Math.max(depth, 1); d++) {
    level = level.flatMap((p) => directions.map((u) => ({ x: p.x + u.x * p.r, y: p.y + u.y * p.r, r: p.r / 2 })));
    circles.push(...level);
  }
  return circles;
}

/** The outline vertices in the local frame: centred on the origin, unscaled, unrotated, y down. */
export function localVertices(shape) {
  const hw = shape.w / 2, hh = shape.h / 2;
  switch (shape.kind) {
    case 'dot':
      return ellipse(0, 0, hw, hw, circleSegments);
    case 'oval':
      return ellipse(0, 0, hw, hh, circleSegments);
    case 'roundedRect':
      return roundedFrame(hw, hh, cornerRadius(shape.w, shape.h));
    // A text and a note (1.7) are their frame: a note's rounded corners are drawn, not outlined (Shape+Geometry.swift).
    // So is a connector (P28): its frame is the segment, 16 high, what a press within 8 units of the line hits.
    case 'text':
    case 'note':
    case 'line':
    case 'arrow':
      return [{ x: -hw, y: -hh }, { x: hw, y: -hh }, { x: hw, y: hh }, { x: -hw, y: hh }];
    case 'triangle':
      return [{ x: 0, y: -hh }, { x: hw, y: hh }, { x: -hw, y: hh }];
    case 'polygon': {
      const sides = shape.sides ?? 6;
      const out = [];
      for (let i = 0; i < sides; i++) {
        const angle = -Math.PI / 2 + i * 2 * Math.PI / sides;
        out.push({ x: hw * Math.cos(angle), y: hh * Math.sin(angle) });
      }
      return out;
    }
    case 'star': {
      const points = shape.points ?? 5, inner = shape.inner ?? 0.4;
      const out = [];
      for (let i = 0; i < 2 * points; i++) {
        const angle = -Math.PI / 2 + i * Math.PI / points;
        const k = i % 2 === 0 ? 1 : inner;
        out.push({ x: k * hw * Math.cos(angle), y: k * hh * Math.sin(angle) });
      }
      return out;
    }
    case 'fractal': {
      const r = fractalRadius(shape.w, shape.h, shape.depth ?? 5);
      return ellipse(0, 0, r, r, circleSegments);
    }
    default:
      return [];
  }
}

/** The outline in canvas space, as closed polygons: one, or one per circle of a fractal. */
export function contours(shape) {
  const t = transform(shape);
  if (shape.kind === 'fractal') {
    return fractalCircles(shape.w, shape.h, shape.depth ?? 5)
      .map((c) => ellipse(c.x, c.y, c.r, c.r, circleSegments).map((p) => apply(t, p)));
  }
  return [localVertices(shape).map((p) => apply(t, p))];
}

/** The exact axis-aligned bounds of the scaled and rotated shape: {minX, minY, maxX, maxY}. */
export function bounds(shape) {
  const hw = shape.w / 2 * shape.scale, hh = shape.h / 2 * shape.scale;
  const cs = Math.cos(shape.rotation), sn = Math.sin(shape.rotation);
  const box = (ex, ey) => ({ minX: shape.x - ex, minY: shape.y - ey, maxX: shape.x + ex, maxY: shape.y + ey });
  switch (shape.kind) {
    case 'dot':
      return box(hw, hw);
    case 'oval':
      return box(Math.sqrt(hw * hw * cs * cs + hh * hh * sn * sn), Math.sqrt(hw * hw * sn * sn + hh * hh * cs * cs));
    case 'roundedRect': {
      const r = cornerRadius(shape.w, shape.h) * shape.scale;
      const iw = hw - r, ih = hh - r;
      return box(Math.abs(iw * cs) + Math.abs(ih * sn) + r, Math.abs(iw * sn) + Math.abs(ih * cs) + r);
    }
    case 'fractal': {
      const t = transform(shape);
      const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
      for (const c of fractalCircles(shape.w, shape.h, shape.depth ?? 5)) {
        const p = apply(t, c), r = c.r * shape.scale;
        b.minX = Math.min(b.minX, p.x - r); b.maxX = Math.max(b.maxX, p.x + r);
        b.minY = Math.min(b.minY, p.y - r); b.maxY = Math.max(b.maxY, p.y + r);
      }
      return b;
    }
    default: {
      const t = transform(shape);
      const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
      for (const v of localVertices(shape)) {
        const p = apply(t, v);
        b.minX = Math.min(b.minX, p.x); b.maxX = Math.max(b.maxX, p.x);
        b.minY = Math.min(b.minY, p.y); b.maxY = Math.max(b.maxY, p.y);
      }
      return b;
    }
  }
}

/** True when `p` lies inside the outline (even-odd over every contour): what a tap or a press hits. */
export function contains(shape, p) {
  const b = bounds(shape);
  if (p.x < b.minX || p.x > b.maxX || p.y < b.minY || p.y > b.maxY) return false;
  let inside = false;
  for (const polygon of contours(shape)) {
    for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
      const a = polygon[i], c = polygon[j];
      if ((a.y > p.y) !== (c.y > p.y) && p.x < (c.x - a.x) * (p.y - a.y) / (c.y - a.y) + a.x) inside = !inside;
    }
  }
  return inside;
}

/** Whether `shape` is a connector, a `line` or an `arrow` (1.7, P28). */
export function isConnector(shape) {
  return shape?.kind === 'line' || shape?.kind === 'arrow';
}

/**
 * A connector's two ends in canvas units, `{from: {x, y}, to: {x, y}}` (P28): `from` is its frame's left
 * middle, `to` its right middle, carried by its scale and rotation. Where the server laid it, a bound
 * end is at its anchor.
 */
export function endpoints(shape) {
  const t = transform(shape);
  return { from: apply(t, { x: -shape.w / 2, y: 0 }), to: apply(t, { x: shape.w / 2, y: 0 }) };
}

/**
 * The frame of a connector from `from` to `to` at `scale` (P28): `{x, y, w, rotation}`, its middle, its
 * unscaled length and its direction in [0, 2π) (0 for ends that meet).
 */
export function connectorFrame(from, to, scale = 1) {
  const dx = to.x - from.x, dy = to.y - from.y;
  const angle = Math.atan2(dy, dx);
  const rotation = dx === 0 && dy === 0 ? 0 : angle < 0 ? angle + 2 * Math.PI : angle;
  return { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2, w: Math.hypot(dx, dy) / scale, rotation };
}

/** An HSB(A) fill as a CSS colour, by the same sectors as `HSBColor.rgb`. */
export function cssColor(fill, alpha = fill.a ?? 1) {
  const h = fill.h * 6, s = fill.s, v = fill.b;
  const i = Math.floor(h) % 6, f = h - Math.floor(h);
  const p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  const [r, g, b] = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][i];
  return `rgba(${Math.floor(r * 255)}, ${Math.floor(g * 255)}, ${Math.floor(b * 255)}, ${alpha})`;
}

/** The interior gridline positions of one axis of the welcome's `grid` ({divisions} or {pitch}), as
 *  GridAxis.position computes them: each from its index, never by adding a rounded spacing up. */
export function gridLines(length, axis) {
  const out = [];
  if (axis?.divisions >= 2) {
    for (let k = 1; k < axis.divisions; k++) out.push(length * k / axis.divisions);
  } else if (axis?.pitch > 0 && axis.pitch < length) {
    const last = Math.ceil(length / axis.pitch) - 1;
    for (let k = 1; k <= last; k++) out.push(axis.pitch * k);
  }
  return out;
}

/** The interior line nearest to `v`, halfway rounding up, clamped to the outermost lines (GridAxis.snap). */
export function snapToLines(lines, v) {
  if (lines.length === 0) return v;
  let best = lines[0];
  for (const line of lines) if (Math.abs(line - v) <= Math.abs(best - v)) best = line;
  return best;
}

/** The turn from angle `from` to angle `to`, in (-π, π]: a twist never jumps by a full turn. */
export function turn(from, to) {
  let d = to - from;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d <= -Math.PI) d += 2 * Math.PI;
  return d;
}
