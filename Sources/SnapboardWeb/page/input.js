// Pointer input for mouse, pen and touch, and the wheel. Nothing commits by accident: a press becomes a
// gesture only once the pointer travels past a slop, so a click or tap on a shape only selects it, and a
// press that ends where it began sends nothing.
//
//   press on a handle of the one selected shape  → drag: scale from the corner, or turn with the knob
//   press on a shape                             → click: select it (Shift: add or take it out)
//                                                  drag: move it; a second finger first: pinch it
//   press on empty space                         → tap: a shape snaps there (with a selection: deselect)
//                                                  drag: pan (Shift: a marquee selects); two fingers: zoom
//   Space held, or the middle button             → drag: pan
//   wheel                                        → pan; with Ctrl (or a trackpad pinch): zoom
//
// Where this person may not change the canvas (`editable()` false), selecting, panning and zooming still
// work, and nothing is sent or drawn as a change: a drag on a shape pans instead.

import { contains, span, turn } from '../lib/index.js';
import { wheelZoom } from '../lib/viewport.js';
import { cornerFactor, handleAt, handleRadius, selectedShapes, shapesInside } from './selection.js';

/** CSS pixels a mouse or pen press may travel and still be a click. */
const mouseSlop = 4;
/** CSS pixels a finger may travel and still be a tap: fingers wobble more than a mouse. */
const touchSlop = 10;
/** CSS pixels from a handle's centre that still grab it, by pointer type. */
const mouseReach = 8;
const touchReach = 18;
/** A second tap this soon (ms) and this near (CSS pixels) to the last is a double-tap: it snaps nothing more. */
const doubleTapMs = 500;
const doubleTapReach = 12;
/** Pixels of one wheel line, for wheels that count lines (Firefox). */
const linePixels = 100 / 3;

export class PointerInput {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board, which gets the pointer events
   * @param {import('../lib/index.js').SnapboardClient} board.client
   * @param {import('./surface.js').Surface} board.surface
   * @param {{kind: string}} board.toolbar  the kind a tap snaps
   * @param {{say: (text: string) => void}} board.status  where a refusal is said
   * @param {import('./actions.js').Actions} board.actions  what a tap on empty space does to the selection
   * @param {() => boolean} [board.editable]  whether this person may change the canvas now (default: the
   *   client's `canEdit`)
   */
  constructor({ element, client, surface, toolbar, status, actions, editable = () => client.canEdit !== false }) {
    Object.assign(this, { element, client, surface, toolbar, status, actions, editable });
    surface.ui.editable = editable;
    /** Pointers down, by id: where each is, in CSS pixels. */
    this.pointers = new Map();
    /**
     * What the current press does: idle | pressShape | pressEmpty | pressHandle (not yet past the slop) |
     * move | scale | rotate | pinchPending | pinch | view | pan | marquee | done (a gesture ended while
     * fingers are still down).
     */
    this.mode = 'idle';
    /** The current press: its pointer, where it started, the shape and gesture it drives, a pinch's span and anchor. */
    this.press = null;
    /** The last tap that snapped: {at (CSS pixels), time}, to tell a double-tap. */
    this.lastTap = null;
    element.addEventListener('pointerdown', (event) => this.#down(event));
    element.addEventListener('pointermove', (event) => this.#move(event));
    element.addEventListener('pointerup', (event) => this.#release(event, false));
    element.addEventListener('pointercancel', (event) => this.#release(event, true));
    element.addEventListener('pointerleave', (event) => { if (event.pointerType !== 'touch' && this.editable()) client.cursor(); });
    element.addEventListener('wheel', (event) => this.#wheel(event), { passive: false });
    // The middle button's autoscroll and the context menu would fight the board's own drags.
    element.addEventListener('mousedown', (event) => { if (event.button === 1) event.preventDefault(); });
    element.addEventListener('contextmenu', (event) => event.preventDefault());
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
    return holder !== undefined && holder !== replica.session ? (replica.sessions.get(holder) ?? { name: 'someone' }) : null;
  }

  /** The one selected shape whose handles show (so may be grabbed), or null. */
  #handled() {
    if (!this.editable()) return null;
    const selected = selectedShapes(this.surface.ui.selection, this.client.drawingOrder());
    return selected.length === 1 && !this.heldByOther(selected[0].id) ? selected[0] : null;
  }

  #clampToCanvas(p) {
    const replica = this.client.replica;
    return { x: Math.min(Math.max(p.x, 0), replica.width), y: Math.min(Math.max(p.y, 0), replica.height) };
  }

  #down(event) {
    const { element, surface, pointers } = this;
    const { ui, view } = surface;
    element.focus();
    if (event.pointerType === 'mouse' && event.button !== 0 && event.button !== 1) return;
    element.setPointerCapture(event.pointerId);
    const s = surface.screenPoint(event);
    pointers.set(event.pointerId, s);
    if (pointers.size === 1) {
      const touch = event.pointerType === 'touch';
      const p = view.toCanvas(s);
      this.press = { pointer: event.pointerId, start: s, startCanvas: p, slop: touch ? touchSlop : mouseSlop, shape: null, gesture: null, shift: event.shiftKey };
      const press = this.press;
      const handled = this.#handled();
      // Inside the shape a corner takes only a press on its drawn square: on a small shape the reach of
      // the corners would cover the shape, and a drag meant to move it would scale it.
      const reach = handled && contains(handled, p) ? handleRadius + 2 : touch ? touchReach : mouseReach;
      const handle = handled && handleAt(handled, view, s, reach);
      if (event.button === 1 || ui.spaceHeld) {
        this.mode = 'pan';
      } else if (handle) {
        Object.assign(press, { shape: handled.id, handle, center: { x: handled.x, y: handled.y } });
        this.mode = 'pressHandle';
      } else {
        const hit = this.shapeAt(p);
        if (hit) {
          press.shape = hit.id;
          // A press on a shape outside the selection selects it at once, so that a drag moves what is shown selected.
          if (!event.shiftKey && !ui.selection.has(hit.id)) {
            ui.selection.clear();
            ui.selection.add(hit.id);
          }
          this.mode = 'pressShape';
        } else {
          this.mode = 'pressEmpty';
        }
      }
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const press = this.press;
      if (this.mode === 'pressShape' && this.editable() && !this.heldByOther(press.shape)) {
        // Two fingers on a shape before any drag: one scale gesture (move, scale and turn in one op).
        this.#startPinch(press.shape, span(a, b));
      } else if (this.mode === 'move') {
        // A drag that became a pinch: the move so far commits, then the pinch goes on from there.
        press.gesture.end();
        this.#startPinch(press.shape, span(a, b));
      } else if (this.mode === 'pressEmpty' || this.mode === 'pan' || this.mode === 'marquee' || this.mode === 'pressShape') {
        ui.marquee = null;
        this.press = { span: span(a, b), anchor: view.toCanvas(span(a, b).mid), scale: view.scale };
        this.mode = 'view';
      }
    }
    surface.invalidate();
  }

  #startPinch(shape, s) {
    this.press = { shape, span: s, slop: touchSlop, gesture: null };
    this.surface.ui.selection.clear();
    this.surface.ui.selection.add(shape);
    this.mode = 'pinchPending';
  }

  #move(event) {
    const { client, surface, pointers, press } = this;
    const view = surface.view;
    if (event.pointerType !== 'touch' && this.editable()) {
      const p = surface.canvasPoint(event);
      client.cursor(p.x, p.y);
    }
    if (!pointers.has(event.pointerId)) return;
    const previous = pointers.get(event.pointerId);
    const now = surface.screenPoint(event);
    pointers.set(event.pointerId, now);
    const own = press && event.pointerId === press.pointer;
    const travelled = own ? Math.hypot(now.x - press.start.x, now.y - press.start.y) : 0;
    switch (this.mode) {
      case 'pressShape':
        if (!own || travelled <= press.slop) break;
        if (this.editable() && !this.heldByOther(press.shape)) {
          surface.ui.selection.add(press.shape);
          press.gesture = client.gesture('move', press.shape);
          this.mode = 'move';
          this.#move(event);
        } else {
          const other = this.editable() && this.heldByOther(press.shape);
          if (other) this.status.say(`${other.name} is changing that shape`);
          this.mode = 'pan';
          surface.pan(now.x - press.start.x, now.y - press.start.y);
        }
        break;
      case 'pressEmpty':
        if (!own || travelled <= press.slop) break;
        if (press.shift) {
          this.mode = 'marquee';
          this.#move(event);
        } else {
          this.mode = 'pan';
          surface.pan(now.x - press.start.x, now.y - press.start.y);
        }
        break;
      case 'pressHandle':
        if (!own || travelled <= press.slop) break;
        if (!this.editable() || this.heldByOther(press.shape)) { this.mode = 'done'; break; }
        press.gesture = client.gesture(press.handle.kind, press.shape);
        surface.ui.angleShape = press.shape;
        this.mode = press.handle.kind;
        this.#move(event);
        break;
      case 'move': {
        if (!own) break;
        const p = view.toCanvas(now);
        press.gesture.update({ dx: p.x - press.startCanvas.x, dy: p.y - press.startCanvas.y });
        break;
      }
      case 'scale': {
        if (!own) break;
        const anchor = this.#clampToCanvas(press.handle.anchor);
        const factor = cornerFactor(anchor, press.startCanvas, view.toCanvas(now));
        press.gesture.update({ factor, ax: anchor.x, ay: anchor.y });
        break;
      }
      case 'rotate': {
        if (!own) break;
        const p = view.toCanvas(now);
        const angle = Math.atan2(p.y - press.center.y, p.x - press.center.x);
        const startAngle = Math.atan2(press.startCanvas.y - press.center.y, press.startCanvas.x - press.center.x);
        press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? startAngle, angle);
        press.lastAngle = angle;
        press.gesture.update({ radians: press.turned });
        break;
      }
      case 'pan':
        if (pointers.size !== 1) break;
        surface.pan(now.x - previous.x, now.y - previous.y);
        break;
      case 'marquee':
        if (!own) break;
        surface.ui.marquee = { a: press.startCanvas, b: view.toCanvas(now) };
        surface.invalidate();
        break;
      case 'pinchPending':
      case 'pinch':
      case 'view': {
        if (pointers.size < 2) break;
        const [a, b] = [...pointers.values()];
        const s = span(a, b);
        if (this.mode === 'view') {
          surface.viewChosen = true;
          view.place(press.anchor, press.scale * (s.distance / press.span.distance), s.mid.x, s.mid.y);
          surface.invalidate();
          break;
        }
        press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? press.span.angle, s.angle);
        press.lastAngle = s.angle;
        if (this.mode === 'pinchPending') {
          // The fingers must spread, close, slide or turn past the slop before the pinch begins.
          const spread = Math.abs(s.distance - press.span.distance);
          const slid = Math.hypot(s.mid.x - press.span.mid.x, s.mid.y - press.span.mid.y);
          const swung = Math.abs(press.turned) * press.span.distance / 2;
          if (Math.max(spread, slid, swung) <= press.slop) break;
          press.anchor = this.#clampToCanvas(view.toCanvas(press.span.mid));
          press.gesture = client.gesture('scale', press.shape);
          surface.ui.angleShape = press.shape;
          this.mode = 'pinch';
        }
        press.gesture.update({ factor: s.distance / press.span.distance, radians: press.turned, ax: press.anchor.x, ay: press.anchor.y });
        break;
      }
      default:
        break;
    }
  }

  #release(event, cancelled) {
    const { surface, pointers, press } = this;
    const ui = surface.ui;
    if (!pointers.delete(event.pointerId)) return;
    const single = ['pressShape', 'pressEmpty', 'pressHandle', 'move', 'scale', 'rotate', 'marquee'];
    // A second finger that is not part of the press lifts without ending it.
    if (single.includes(this.mode) && press && event.pointerId !== press.pointer) return;
    switch (this.mode) {
      case 'pressEmpty':
        if (!cancelled && !press.shift) this.#tap(surface.screenPoint(event), event.timeStamp);
        break;
      case 'pressShape':
        if (cancelled) break;
        if (press.shift) {
          if (ui.selection.has(press.shape)) ui.selection.delete(press.shape);
          else ui.selection.add(press.shape);
        } else {
          ui.selection.clear();
          ui.selection.add(press.shape);
        }
        break;
      case 'move':
      case 'scale':
      case 'rotate':
      case 'pinch':
        press.gesture.end();
        break;
      case 'marquee': {
        const inside = shapesInside(this.client.drawingOrder(), press.startCanvas, surface.canvasPoint(event));
        for (const id of inside) ui.selection.add(id);
        ui.marquee = null;
        break;
      }
      default:
        break;
    }
    // A lifted finger ends the gesture; the other one does nothing until it is lifted too.
    this.mode = pointers.size === 0 ? 'idle' : 'done';
    if (pointers.size === 0) this.press = null;
    surface.invalidate();
  }

  /** A tap on empty space: with a selection it only deselects; otherwise a shape snaps there, once per double-tap. */
  #tap(at, time) {
    const { client, surface } = this;
    const deselecting = this.actions.selected.length > 0;
    this.actions.deselect();
    if (deselecting) return;
    const last = this.lastTap;
    const repeated = last && time - last.time < doubleTapMs && Math.hypot(at.x - last.at.x, at.y - last.at.y) <= doubleTapReach;
    this.lastTap = { at, time };
    if (repeated || !this.editable()) return;
    const p = surface.view.toCanvas(at);
    const replica = client.replica;
    if (p.x >= 0 && p.y >= 0 && p.x <= replica.width && p.y <= replica.height) client.snap(p.x, p.y, { kind: this.toolbar.kind });
  }

  #wheel(event) {
    const { surface } = this;
    event.preventDefault();
    if (event.ctrlKey || event.metaKey) {
      const s = surface.screenPoint(event);
      surface.zoomBy(wheelZoom(event.deltaY, event.deltaMode), s.x, s.y);
      return;
    }
    const unit = event.deltaMode === 1 ? linePixels : event.deltaMode === 2 ? surface.ui.height : 1;
    // Shift turns a plain wheel sideways where the browser did not already.
    const [dx, dy] = event.shiftKey && event.deltaX === 0 ? [event.deltaY, 0] : [event.deltaX, event.deltaY];
    surface.pan(-dx * unit, -dy * unit);
  }
}
