// Pointer input for mouse, pen and touch, and the wheel: a press on empty space taps (a snap) or pans,
// on a shape it moves it (Shift: rotates), two fingers pinch a shape or the view.

import { contains, span, turn } from '../lib/index.js';

/** CSS pixels a press may travel and still be a tap. */
const tapSlop = 6;

export class PointerInput {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board, which gets the pointer events
   * @param {import('../lib/index.js').SnapboardClient} board.client
   * @param {import('./surface.js').Surface} board.surface
   * @param {import('./toolbar.js').Toolbar} board.toolbar  the kind a tap snaps
   * @param {import('./status.js').StatusBar} board.status  where a refusal is said
   */
  constructor({ element, client, surface, toolbar, status }) {
    Object.assign(this, { element, client, surface, toolbar, status });
    /** Pointers down, by id: where each is, in CSS pixels. */
    this.pointers = new Map();
    /** What the current press does: tap | pan | move | rotate | pinch | view | done | idle. */
    this.mode = 'idle';
    /** The current press: where it started, the shape and gesture it drives, a pinch's span and anchor. */
    this.press = null;
    /** The wheel scaling the selection: {shape, gesture, factor, anchor, timer}, or null. */
    this.wheel = null;
    this.zoomTimer = null;
    element.addEventListener('pointerdown', (event) => this.#down(event));
    element.addEventListener('pointermove', (event) => this.#move(event));
    element.addEventListener('pointerup', (event) => this.#release(event));
    element.addEventListener('pointercancel', (event) => this.#release(event));
    element.addEventListener('pointerleave', (event) => { if (event.pointerType !== 'touch') client.cursor(); });
    element.addEventListener('wheel', (event) => this.#wheel(event), { passive: false });
  }

  /** The topmost shape under `p` (canvas units), as drawn, or null. */
  shapeAt(p) {
    const shapes = this.client.drawingOrder();
    for (let i = shapes.length - 1; i >= 0; i--) if (contains(shapes[i], p)) return shapes[i];
    return null;
  }

  /** Who else holds the lease on a shape, or null. */
  heldByOther(id) {
    const replica = this.client.replica;
    const holder = replica.leases[id];
    return holder !== undefined && holder !== replica.session ? replica.sessions.get(holder) : null;
  }

  #clampToCanvas(p) {
    const replica = this.client.replica;
    return { x: Math.min(Math.max(p.x, 0), replica.width), y: Math.min(Math.max(p.y, 0), replica.height) };
  }

  #down(event) {
    const { element, client, surface, pointers } = this;
    const { ui, view } = surface;
    element.focus();
    element.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, surface.screenPoint(event));
    if (pointers.size === 1) {
      const p = surface.canvasPoint(event);
      const hit = this.shapeAt(p);
      this.press = { start: surface.screenPoint(event), startCanvas: p, shape: hit?.id ?? null, gesture: null };
      const press = this.press;
      if (hit && this.heldByOther(hit.id)) {
        this.status.say(`${this.heldByOther(hit.id).name} is changing that shape`);
        this.mode = 'pan';
      } else if (hit) {
        ui.selected = hit.id;
        if (event.shiftKey) {
          this.mode = 'rotate';
          press.startAngle = Math.atan2(p.y - hit.y, p.x - hit.x);
          press.center = { x: hit.x, y: hit.y };
          press.gesture = client.gesture('rotate', hit.id);
          ui.angleShape = hit.id;
        } else {
          this.mode = 'move';
          press.gesture = client.gesture('move', hit.id);
        }
      } else {
        this.mode = 'tap';
      }
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const s = span(a, b);
      const press = this.press;
      if ((this.mode === 'move' || this.mode === 'rotate') && press?.gesture) {
        // Two fingers on a shape: pinch and turn it about the point between them. The re-begin keeps it in place (P14).
        press.gesture.end();
        const anchor = this.#clampToCanvas(view.toCanvas(s.mid));
        this.press = { ...press, gesture: client.gesture('scale', press.shape), span: s, anchor };
        ui.angleShape = press.shape;
        this.mode = 'pinch';
      } else {
        this.press = { span: s, anchor: view.toCanvas(s.mid), scale: view.scale };
        this.mode = 'view';
      }
    }
    surface.invalidate();
  }

  #move(event) {
    const { client, surface, pointers, press } = this;
    const view = surface.view;
    if (event.pointerType !== 'touch') {
      const p = surface.canvasPoint(event);
      client.cursor(p.x, p.y);
    }
    if (!pointers.has(event.pointerId)) return;
    const previous = pointers.get(event.pointerId);
    const now = surface.screenPoint(event);
    pointers.set(event.pointerId, now);
    switch (this.mode) {
      case 'tap':
        if (Math.hypot(now.x - press.start.x, now.y - press.start.y) > tapSlop) this.mode = 'pan';
        break;
      case 'pan':
        surface.viewChosen = true;
        view.pan(now.x - previous.x, now.y - previous.y);
        surface.invalidate();
        break;
      case 'move': {
        const p = surface.canvasPoint(event);
        press.gesture.update({ dx: p.x - press.startCanvas.x, dy: p.y - press.startCanvas.y });
        break;
      }
      case 'rotate': {
        const p = surface.canvasPoint(event);
        const angle = Math.atan2(p.y - press.center.y, p.x - press.center.x);
        press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? press.startAngle, angle);
        press.lastAngle = angle;
        press.gesture.update({ radians: press.turned });
        break;
      }
      case 'pinch':
      case 'view': {
        if (pointers.size < 2) break;
        const [a, b] = [...pointers.values()];
        const s = span(a, b);
        if (this.mode === 'view') {
          surface.viewChosen = true;
          view.place(press.anchor, press.scale * (s.distance / press.span.distance), s.mid.x, s.mid.y);
          surface.invalidate();
        } else {
          press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? press.span.angle, s.angle);
          press.lastAngle = s.angle;
          press.gesture.update({ factor: s.distance / press.span.distance, radians: press.turned, ax: press.anchor.x, ay: press.anchor.y });
        }
        break;
      }
      default:
        break;
    }
  }

  #release(event) {
    const { client, surface, pointers } = this;
    if (!pointers.delete(event.pointerId)) return;
    switch (this.mode) {
      case 'tap': {
        const p = surface.canvasPoint(event);
        surface.ui.selected = null;
        const replica = client.replica;
        if (p.x >= 0 && p.y >= 0 && p.x <= replica.width && p.y <= replica.height) client.snap(p.x, p.y, { kind: this.toolbar.kind });
        break;
      }
      case 'move':
      case 'rotate':
      case 'pinch':
        this.press.gesture.end();
        break;
      case 'view':
        client.setZoom(surface.view.scale);
        break;
      default:
        break;
    }
    // A lifted finger ends the gesture; the other one does nothing until it is lifted too.
    this.mode = pointers.size === 0 ? 'idle' : 'done';
    surface.invalidate();
  }

  // The wheel: Ctrl (and a trackpad pinch) zooms the view, over the selection it scales it, otherwise it pans.
  #wheel(event) {
    const { client, surface } = this;
    const view = surface.view;
    event.preventDefault();
    const s = surface.screenPoint(event);
    const p = view.toCanvas(s);
    if (event.ctrlKey) {
      surface.viewChosen = true;
      view.zoomAbout(Math.exp(-event.deltaY * 0.01), s.x, s.y);
      // The server hears the zoom once the wheel rests.
      clearTimeout(this.zoomTimer);
      this.zoomTimer = setTimeout(() => client.setZoom(view.scale), 150);
      surface.invalidate();
      return;
    }
    const selected = surface.ui.selected && client.replica.shapes.get(surface.ui.selected);
    if (selected && contains(selected, p) && !this.heldByOther(selected.id)) {
      if (!this.wheel || this.wheel.shape !== selected.id) {
        this.wheel?.gesture.end();
        this.wheel = { shape: selected.id, gesture: client.gesture('scale', selected.id), factor: 1, anchor: this.#clampToCanvas(p) };
      }
      const wheel = this.wheel;
      wheel.factor *= Math.exp(-event.deltaY * 0.002);
      wheel.gesture.update({ factor: wheel.factor, ax: wheel.anchor.x, ay: wheel.anchor.y });
      clearTimeout(wheel.timer);
      wheel.timer = setTimeout(() => { wheel.gesture.end(); if (this.wheel === wheel) this.wheel = null; }, 250);
      return;
    }
    surface.viewChosen = true;
    view.pan(-event.deltaX, -event.deltaY);
    surface.invalidate();
  }
}
