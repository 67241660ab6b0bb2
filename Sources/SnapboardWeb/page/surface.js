// The whiteboard's drawing surface: the <canvas> element, the view of the canvas on it, what render.js
// draws besides the replica (the selection, pulses, the snapped angle), and a frame loop that draws in
// an animation frame only when something changed.

import { Viewport } from '../lib/index.js';
import { draw } from './render.js';

/** How many frame durations `frameTimes` keeps. */
const keptFrames = 240;

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
    /** What `draw` takes: the client and view, the selected shape's id, pulses (id → start ms), the shape
     *  whose snapped angle shows, the frame's time, and the element's size in CSS pixels and its pixel ratio. */
    this.ui = { client, view: this.view, selected: null, pulses: new Map(), angleShape: null, now: 0, width: 0, height: 0, dpr: 1 };
    /** Draw durations in milliseconds, the latest last: what the page's own frames cost. */
    this.frameTimes = [];
    /** True once the person panned or zoomed: from then on a resize keeps their view instead of fitting the canvas. */
    this.viewChosen = false;
    /** True while a frame is requested. */
    this.dirty = false;
    this.invalidate = this.invalidate.bind(this);
  }

  /** Draws in the next animation frame, once however often it is called before then, and again while something animates. */
  invalidate() {
    if (this.dirty) return;
    this.dirty = true;
    requestAnimationFrame((now) => {
      this.dirty = false;
      this.ui.now = now;
      const started = performance.now();
      const animating = draw(this.ctx, this.ui);
      this.frameTimes.push(performance.now() - started);
      if (this.frameTimes.length > keptFrames) this.frameTimes.shift();
      if (animating) this.invalidate();
    });
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
