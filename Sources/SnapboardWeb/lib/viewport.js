// The board's view of the canvas: canvas units to CSS pixels by `scale`, then offset by (ox, oy). Pure.

export { turn } from './geometry.js';

/** The smallest and largest zoom the view takes: CSS pixels per canvas unit. */
export const minScale = 0.05;
export const maxScale = 20;

/** The zoom of one step: a Zoom in or Zoom out button, or one notch of a mouse wheel with Ctrl. */
export const zoomStep = 1.25;

/** Wheel pixels in one notch of a mouse wheel (Chromium's `deltaY` for one click, in pixel mode). */
const notchPixels = 100;

/**
 * The zoom factor of one Ctrl+wheel event (a mouse wheel, or a trackpad pinch, which browsers send as
 * Ctrl+wheel with small deltas): `zoomStep` per notch, in proportion below a notch, and never more than one
 * step per event, however large the delta. `deltaMode` is the WheelEvent's: 0 pixels, 1 lines, 2 pages.
 */
export function wheelZoom(deltaY, deltaMode = 0) {
  const pixels = deltaY * (deltaMode === 1 ? notchPixels / 3 : deltaMode === 2 ? notchPixels * 8 : 1);
  const notches = Math.min(1, Math.max(-1, pixels / notchPixels));
  return zoomStep ** -notches;
}

/** Where the canvas is on the screen: `scale` CSS pixels per canvas unit, then offset by (`ox`, `oy`). */
export class Viewport {
  constructor(scale = 1, ox = 0, oy = 0) {
    this.scale = scale;
    this.ox = ox;
    this.oy = oy;
  }

  /** A canvas point in CSS pixels. */
  toScreen(p) {
    return { x: p.x * this.scale + this.ox, y: p.y * this.scale + this.oy };
  }

  /** A point in CSS pixels in canvas units. */
  toCanvas(s) {
    return { x: (s.x - this.ox) / this.scale, y: (s.y - this.oy) / this.scale };
  }

  /** Shows the whole `width` × `height` canvas centred in a `cw` × `ch` pixel area, `margin` pixels clear. */
  fit(width, height, cw, ch, margin = 16) {
    const scale = Math.min((cw - 2 * margin) / width, (ch - 2 * margin) / height);
    this.scale = Math.min(maxScale, Math.max(minScale, scale));
    this.ox = (cw - width * this.scale) / 2;
    this.oy = (ch - height * this.scale) / 2;
  }

  /** Zooms by `factor` keeping the canvas point under the screen point (sx, sy) where it is. */
  zoomAbout(factor, sx, sy) {
    const anchor = this.toCanvas({ x: sx, y: sy });
    this.scale = Math.min(maxScale, Math.max(minScale, this.scale * factor));
    this.ox = sx - anchor.x * this.scale;
    this.oy = sy - anchor.y * this.scale;
  }

  /** Sets the scale so that `anchor` (canvas units) lands on the screen point (sx, sy): a two-finger view pinch. */
  place(anchor, scale, sx, sy) {
    this.scale = Math.min(maxScale, Math.max(minScale, scale));
    this.ox = sx - anchor.x * this.scale;
    this.oy = sy - anchor.y * this.scale;
  }

  /** Moves the view by (dx, dy) CSS pixels. */
  pan(dx, dy) {
    this.ox += dx;
    this.oy += dy;
  }
}

/** Distance, midpoint and angle of two pointers (screen or canvas units alike). */
export function span(a, b) {
  return {
    distance: Math.hypot(b.x - a.x, b.y - a.y),
    mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 },
    angle: Math.atan2(b.y - a.y, b.x - a.x),
  };
}
