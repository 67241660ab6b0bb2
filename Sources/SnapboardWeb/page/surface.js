// The whiteboard's drawing surface: the <canvas> element, the view of the canvas on it, what render.js
// draws besides the replica (the selection, handles, a marquee, pulses, the snapped angle), and a frame
// loop that draws in an animation frame only when something changed. Whenever the view changes, the
// element gets a 'viewchange' event and, once the view rests, the server hears the new zoom (P21).

import { Viewport } from '../lib/index.js';
import { wheelZoom, zoomStep } from '../lib/viewport.js';
import { draw } from './render.js';
import { boxOf } from './selection.js';

/** How many frame durations `frameTimes` keeps. */
const keptFrames = 240;
/** Milliseconds the view must rest before the server is told the zoom: a pinch sends one `view`, not one a frame. */
const zoomRestMs = 150;
/** CSS pixels kept clear around what "zoom to fit" shows. */
const fitMargin = 32;
/** Pixels of one wheel line, for wheels that count lines (Firefox). */
const linePixels = 100 / 3;

export class Surface {
  /**
   * @param {HTMLCanvasElement} element  the board
   * @param {import('../lib/index.js').SnapboardClient} client  the client whose replica it draws
   */
  constructor(element, client) {
    this.element = element;
    this.client = client;
    this.ctx = element.getContext('2d');
    this.view = new Viewport();
    /**
     * What `draw` takes: the client and view; `selection`, the Set of selected shape ids; `editable()`,
     * whether this person may change the canvas now (handles are drawn only then); `marquee`, the
     * rectangle a Shift+drag selects ({a, b} in canvas units) or null; pulses (id → start ms); the shape
     * whose snapped angle shows; `draft`, the connector the Connector tool draws (a shape) or null; `editingText`, the shape whose text this page's editor shows (its text is
     * not drawn under it), or null; the frame's time; the element's size in CSS pixels and its pixel ratio.
     */
    this.ui = {
      client, view: this.view, selection: new Set(), editable: () => true, marquee: null, draft: null,
      pulses: new Map(), angleShape: null, editingText: null, now: 0, width: 0, height: 0, dpr: 1,
    };
    /** Draw durations in milliseconds, the latest last: what the page's own frames cost. */
    this.frameTimes = [];
    /** True once the person panned or zoomed: from then on a resize keeps their view instead of fitting the canvas. */
    this.viewChosen = false;
    /** True while a frame is requested. */
    this.dirty = false;
    /** The view as last drawn, to notice a change however it was made. */
    this.drawnView = { scale: NaN, ox: NaN, oy: NaN };
    this.zoomTimer = null;
    this.invalidate = this.invalidate.bind(this);
  }

  /** Draws in the next animation frame, once however often it is called before then, and again while something animates. */
  invalidate() {
    if (this.dirty) return;
    this.dirty = true;
    requestAnimationFrame((now) => {
      this.dirty = false;
      this.ui.now = now;
      this.#noticeView();
      const started = performance.now();
      const animating = draw(this.ctx, this.ui);
      this.frameTimes.push(performance.now() - started);
      // What shows the selection outside the board (the Arrange buttons) follows it frame by frame.
      this.element.dispatchEvent(new Event('frame'));
      if (this.frameTimes.length > keptFrames) this.frameTimes.shift();
      if (animating) this.invalidate();
    });
  }

  #noticeView() {
    const { view, drawnView } = this;
    if (view.scale === drawnView.scale && view.ox === drawnView.ox && view.oy === drawnView.oy) return;
    const zoomed = view.scale !== drawnView.scale;
    Object.assign(drawnView, { scale: view.scale, ox: view.ox, oy: view.oy });
    this.element.dispatchEvent(new CustomEvent('viewchange', { detail: { scale: view.scale, ox: view.ox, oy: view.oy } }));
    if (!zoomed) return;
    clearTimeout(this.zoomTimer);
    this.zoomTimer = setTimeout(() => this.client.setZoom(this.view.scale), zoomRestMs);
  }

  /** The element changed size: its pixels follow the screen's, and the canvas is fitted unless the view was chosen. */
  resize() {
    const rect = this.element.getBoundingClientRect();
    const ui = this.ui;
    ui.dpr = window.devicePixelRatio || 1;
    ui.width = rect.width;
    ui.height = rect.height;
    this.element.width = Math.round(rect.width * ui.dpr);
    this.element.height = Math.round(rect.height * ui.dpr);
    if (!this.viewChosen) this.fitView();
    this.invalidate();
  }

  /** Shows the whole canvas, and tells the server the zoom. */
  fitView() {
    const { client, ui } = this;
    if (!client.replica.width || !ui.width) return;
    this.view.fit(client.replica.width, client.replica.height, ui.width, ui.height);
    this.viewChosen = false;
    client.setZoom(this.view.scale);
    this.invalidate();
  }

  /**
   * Shows every shape as large as fits, but no closer than 100% (or the whole canvas's fit, when that is
   * closer): a lone small shape is not blown up to fill the screen. With no shapes, shows the canvas.
   */
  zoomToFit() {
    const { client, ui, view } = this;
    const box = boxOf(client.drawingOrder());
    if (!box || !ui.width) return this.fitView();
    const w = Math.max(box.maxX - box.minX, 1), h = Math.max(box.maxY - box.minY, 1);
    const whole = Math.min((ui.width - 2 * fitMargin) / client.replica.width, (ui.height - 2 * fitMargin) / client.replica.height);
    const scale = Math.min((ui.width - 2 * fitMargin) / w, (ui.height - 2 * fitMargin) / h, Math.max(1, whole));
    view.place({ x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2 }, scale, ui.width / 2, ui.height / 2);
    this.viewChosen = true;
    this.invalidate();
  }

  /** Zooms by `factor` about the screen point (sx, sy), the board's centre unless given. */
  zoomBy(factor, sx = this.ui.width / 2, sy = this.ui.height / 2) {
    this.view.zoomAbout(factor, sx, sy);
    this.viewChosen = true;
    this.invalidate();
  }

  /** Zooms by whole zoom steps about the board's centre: in (`steps` 1) or out (−1). */
  stepZoom(steps) {
    this.zoomBy(zoomStep ** steps);
  }

  /** Moves the view by (dx, dy) CSS pixels. */
  pan(dx, dy) {
    this.view.pan(dx, dy);
    this.viewChosen = true;
    this.invalidate();
  }

  /**
   * A wheel event on the board: with Ctrl or ⌘ (and a trackpad pinch, which browsers send as Ctrl+wheel)
   * it zooms about the pointer, at most one zoom step an event; otherwise it pans, Shift sideways.
   */
  wheel(event) {
    event.preventDefault();
    if (event.ctrlKey || event.metaKey) {
      const s = this.screenPoint(event);
      this.zoomBy(wheelZoom(event.deltaY, event.deltaMode), s.x, s.y);
      return;
    }
    const unit = event.deltaMode === 1 ? linePixels : event.deltaMode === 2 ? this.ui.height : 1;
    const [dx, dy] = event.shiftKey && event.deltaX === 0 ? [event.deltaY, 0] : [event.deltaX, event.deltaY];
    this.pan(-dx * unit, -dy * unit);
  }

  /** Where a pointer or wheel event is on the element, in CSS pixels. */
  screenPoint(event) {
    const rect = this.element.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }

  /** Where a pointer or wheel event is on the canvas, in canvas units. */
  canvasPoint(event) {
    return this.view.toCanvas(this.screenPoint(event));
  }
}
