// A shape's text as the page lays it out and draws it (P26): where a kind's text goes in its frame, its
// font, its lines wrapped between words at the frame's width less the padding, drawn in the shape's own
// frame so that it scales and turns with it. A connector's label (P28) is the exception: level, centred on
// the line's middle, scaled with it, broken only at line feeds. The export (SVG, PNG) lays text out the
// same way.

import { transform } from '../lib/index.js';

/** Text where a shape has no `stroke` (P26). */
export const defaultInk = '#1e1e1e';
/**
 * Where a kind's text goes in its frame (P26): `padding` on each side in canvas units (the text wraps at
 * the frame's width less twice that), and whether it is centred both ways or starts at the top left.
 */
export function textBox(kind) {
  if (kind === 'text') return { padding: 8, centred: false };
  if (kind === 'note') return { padding: 12, centred: true };
  return { padding: 8, centred: true };
}


/** The font of a text `fontSize` canvas units high, in the shape's own frame. */
export function fontOf(fontSize) {
  return `${fontSize}px sans-serif`;
}

/**
 * `text` broken into the lines it is drawn in: at each line feed, and wherever the next word would pass
 * `width` (measured with `measure`); a word wider than `width` alone is broken between characters.
 */
export function wrapText(text, width, measure) {
  const lines = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/(?<= )/)) {
      if (line === '' || measure(line + word.trimEnd()) <= width) { line += word; continue; }
      lines.push(line.trimEnd());
      line = word;
    }
    // What is still too wide is a single word: it is broken where it has to be.
    const pieces = [];
    let piece = '';
    for (const ch of line.trimEnd()) {
      if (piece !== '' && measure(piece + ch) > width) { pieces.push(piece); piece = ''; }
      piece += ch;
    }
    lines.push(...pieces, piece);
  }
  return lines;
}

/** The lines of each shape object's text, as last wrapped: the replica replaces a shape's object when it changes. */
const wrapped = new WeakMap();

/**
 * A shape's text in its own frame, so that it scales and turns with the shape (P26): wrapped at the
 * frame's width less its padding, lines `fontSize × 1.25` apart, in its `stroke` colour or the default ink;
 * over `backdrop` (a colour) behind each line when given.
 */
export function drawText(ctx, shape, look, backdrop = null) {
  const { padding, centred } = textBox(shape.kind);
  const connector = shape.kind === 'line' || shape.kind === 'arrow';
  const width = connector ? Infinity : Math.max(shape.w - 2 * padding, 1);
  ctx.save();
  const [a, b, c, d, tx, ty] = connector ? [shape.scale, 0, 0, shape.scale, shape.x, shape.y] : transform(shape);
  ctx.transform(a, b, c, d, tx, ty);
  ctx.font = fontOf(look.fontSize);
  let lines = wrapped.get(shape);
  if (!lines) {
    lines = wrapText(look.text, width, (t) => ctx.measureText(t).width);
    wrapped.set(shape, lines);
  }
  const step = look.fontSize * 1.25;
  ctx.fillStyle = look.stroke ?? defaultInk;
  ctx.textBaseline = 'middle';
  ctx.textAlign = centred ? 'center' : 'left';
  const x = centred ? 0 : -shape.w / 2 + padding;
  const top = centred ? -(lines.length * step) / 2 : -shape.h / 2 + padding;
  if (backdrop) {
    // A connector's label sits on its line: a backdrop of the canvas's white keeps it legible.
    const ink = ctx.fillStyle;
    ctx.fillStyle = backdrop;
    lines.forEach((line, i) => { const w = ctx.measureText(line).width + 8; ctx.fillRect(centred ? -w / 2 : x - 4, top + i * step, w, step); });
    ctx.fillStyle = ink;
  }
  lines.forEach((line, i) => ctx.fillText(line, x, top + (i + 0.5) * step));
  ctx.restore();
}
