// How a shape looks (protocol 1.7, P26): the 12-colour palette, colours as an op gives them, a colour as
// the HSB fill the server would set for it, and a shape's text and style with their defaults. Pure.

/**
 * The palette: 12 names a colour in an op may be given as, each with its `#rrggbb`, in the order a
 * picker shows them (PROTOCOL.md, P26).
 */
export const palette = Object.freeze({
  black: '#1e1e1e', grey: '#868e96', white: '#ffffff', red: '#e03131', orange: '#f08c00', yellow: '#ffec99',
  green: '#2f9e44', teal: '#0c8599', blue: '#1971c2', violet: '#6741d9', pink: '#c2255c', brown: '#8d5524',
});

/**
 * What a shape looks like when its wire form leaves a field out (P26): no text, the default outline
 * (`stroke` null: `#141823` at 70 % alpha for outlines, text in `#1e1e1e`), outline width 1.25, fully
 * opaque, 20-unit text.
 */
export const lookDefaults = Object.freeze({ text: '', stroke: null, strokeWidth: 1.25, opacity: 1, fontSize: 20 });

/** The ranges of a style's numbers (P26); a number outside is refused `out_of_range`. */
export const styleRanges = Object.freeze({ strokeWidth: [0, 32], opacity: [0.1, 1], fontSize: [8, 160] });

/**
 * A colour as an op may give it (`#rrggbb` with hex digits of either case, or a palette name) as
 * lowercase `#rrggbb`; null for anything else, which the server refuses `bad_style`.
 */
export function colorHex(color) {
  if (typeof color !== 'string') return null;
  if (Object.hasOwn(palette, color)) return palette[color];
  return /^#[0-9a-fA-F]{6}$/.test(color) ? color.toLowerCase() : null;
}

/**
 * The HSB fill that a colour (`#rrggbb` or a palette name) sets, with alpha `a`: hue, saturation and
 * brightness such that the usual HSB→RGB sectors, truncating each channel to 0–255 (`HSBColor.rgb`,
 * `cssColor`), give exactly that colour back. Null for a colour the server would refuse.
 */
export function fillFromColor(color, a = 1) {
  const hex = colorHex(color);
  if (!hex) return null;
  // Each channel aims at the middle of the interval that truncates to it, so rounding in the sectors'
  // arithmetic cannot tip it into the next value; 255 is reached exactly, as only 1.0 truncates to it.
  const [r, g, b] = [1, 3, 5].map((i) => { const c = parseInt(hex.slice(i, i + 2), 16); return c === 255 ? 1 : (c + 0.5) / 255; });
  const max = Math.max(r, g, b), min = Math.min(r, g, b), chroma = max - min;
  let h = 0;
  if (chroma > 0) {
    if (max === r) h = ((g - b) / chroma + 6) % 6;
    else if (max === g) h = (b - r) / chroma + 2;
    else h = (r - g) / chroma + 4;
  }
  return { h: h / 6, s: max === 0 ? 0 : chroma / max, b: max, a };
}

/** The 0xRRGGBB an HSB fill is drawn as, by the sectors of `HSBColor.rgb`, as `#rrggbb`. */
export function hexOfFill(fill) {
  const h = fill.h * 6, s = fill.s, v = fill.b;
  const i = Math.floor(h) % 6, f = h - Math.floor(h);
  const p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  const channels = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][i];
  return `#${channels.map((c) => Math.floor(c * 255).toString(16).padStart(2, '0')).join('')}`;
}

/** A shape's text and style, each field its own or its default when the wire form leaves it out (P26). */
export function lookOf(shape) {
  const look = { ...lookDefaults };
  for (const key of Object.keys(lookDefaults)) if (shape?.[key] !== undefined) look[key] = shape[key];
  return look;
}

/** The frame a snap makes of `kind` when its spec gives no size: a 24-unit dot, a 240×60 text, a 200×200 note, else 120×120. */
export function defaultFrame(kind) {
  switch (kind) {
    case 'dot': return { w: 24, h: 24 };
    case 'text': return { w: 240, h: 60 };
    case 'note': return { w: 200, h: 200 };
    default: return { w: 120, h: 120 };
  }
}
