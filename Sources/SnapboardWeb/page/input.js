// Pointer input for mouse, pen and touch (docs/web-client.md says what each press does). Nothing commits
// by accident: a press becomes a gesture only once it travels past a slop, so a click or tap on a shape
// only selects it, and a press that ends where it began sends nothing. A gesture that comes back within
// the slop of where it began, or that Escape cancels, ends with parameters that change nothing, so the
// server commits nothing (slop.js). Where this person may not change the canvas (`editable()` false),
// selecting, panning and zooming still work, and nothing is sent or drawn as a change: a drag on a shape
// pans instead. So does a drag on a locked shape (P25), which shows no handles, and the page says why.

import { span, turn } from '../lib/index.js';
import { cornerFactor, handleUnder, selectedShapes, shapeAt, shapesInside, whyHeld } from './selection.js';
import { doubleTap, endParams, gestureKinds, mouseSlop, pinchWithinSlop, touchSlop } from './slop.js';

export class PointerInput {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board, which gets the pointer events
   * @param {import('../lib/index.js').SnapboardClient} board.client
   * @param {import('./surface.js').Surface} board.surface
   * @param {{kind: string}} board.toolbar  the kind a tap snaps
   * @param {{say: (text: string) => void}} board.status  where a refusal is said
   * @param {import('./actions.js').Actions} board.actions  how a press changes the selection
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
    /** The last click or tap on a shape: {id, at, time}; a second one on it soon after edits its text. */
    this.lastShapeTap = null;
    element.addEventListener('pointerdown', (event) => this.#down(event));
    element.addEventListener('pointermove', (event) => this.#move(event));
    element.addEventListener('pointerup', (event) => this.#release(event, false));
    element.addEventListener('pointercancel', (event) => this.#release(event, true));
    element.addEventListener('pointerleave', (event) => { if (event.pointerType !== 'touch' && this.editable()) client.cursor(); });
    element.addEventListener('wheel', (event) => surface.wheel(event), { passive: false });
    // The middle button's autoscroll and the context menu would fight the board's own drags.
    element.addEventListener('mousedown', (event) => { if (event.button === 1) event.preventDefault(); });
    element.addEventListener('contextmenu', (event) => event.preventDefault());
  }

  /** The one selected shape whose handles show (so may be grabbed), or null. */
  #handled() {
    const selected = selectedShapes(this.surface.ui.selection, this.client.drawingOrder());
    return selected.length === 1 && this.#mayChange(selected[0].id) ? selected[0] : null;
  }

  /** Whether this person may start a gesture on shape `id` now: they may edit, no one else holds it, it is not locked. */
  #mayChange(id) {
    return this.editable() && !whyHeld(this.client.replica, id);
  }

  /** A press past the slop that drives no gesture pans the view, from where it started. */
  #panFromStart(now) {
    this.mode = 'pan';
    this.surface.pan(now.x - this.press.start.x, now.y - this.press.start.y);
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
      const handle = handled && handleUnder(handled, view, s, touch);
      if (event.button === 1 || ui.spaceHeld) {
        this.mode = 'pan';
      } else if (handle) {
        Object.assign(press, { shape: handled.id, handle, center: { x: handled.x, y: handled.y } });
        this.mode = 'pressHandle';
      } else {
        const hit = shapeAt(this.client.drawingOrder(), p);
        if (hit) {
          press.shape = hit.id;
          // A press on a shape outside the selection selects it at once, so that a drag moves what is shown selected.
          if (!event.shiftKey && !ui.selection.has(hit.id)) this.actions.select(hit.id);
          this.mode = 'pressShape';
        } else {
          this.mode = 'pressEmpty';
        }
      }
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const press = this.press;
      if (this.mode === 'pressShape' && this.#mayChange(press.shape)) {
        // Two fingers on a shape before any drag: one scale gesture (move, scale and turn in one op).
        this.#startPinch(press.shape, span(a, b));
      } else if (this.mode === 'move') {
        // A drag that became a pinch: the move so far commits, then the pinch goes on from there.
        this.#endGesture(pointers.get(press.pointer));
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
    this.actions.select(shape);
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
      case 'pressShape': {
        if (!own || travelled <= press.slop) break;
        const why = this.editable() && whyHeld(client.replica, press.shape);
        if (why) this.status.say(why);
        if (!this.#mayChange(press.shape)) { this.#panFromStart(now); break; }
        surface.ui.selection.add(press.shape);
        press.gesture = client.gesture('move', press.shape);
        this.mode = 'move';
        this.#move(event);
        break;
      }
      case 'pressEmpty':
        if (!own || travelled <= press.slop) break;
        if (!press.shift) { this.#panFromStart(now); break; }
        this.mode = 'marquee';
        this.#move(event);
        break;
      case 'pressHandle':
        if (!own || travelled <= press.slop) break;
        if (!this.#mayChange(press.shape)) { this.mode = 'done'; break; }
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
        press.now = s;
        if (this.mode === 'pinchPending') {
          // The fingers must spread, close, slide or turn past the slop before the pinch begins.
          if (pinchWithinSlop(press.span, s, press.turned, press.slop)) break;
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
      case 'pressShape': {
        if (cancelled) break;
        this.actions.select(press.shape, { toggle: press.shift });
        // A double-click or double-tap on a shape writes in it (P26).
        const at = surface.screenPoint(event);
        const again = this.lastShapeTap?.id === press.shape && doubleTap(this.lastShapeTap, at, event.timeStamp);
        this.lastShapeTap = again ? null : { id: press.shape, at, time: event.timeStamp };
        if (again && !press.shift && this.editable()) this.actions.editor?.edit(press.shape);
        break;
      }
      case 'move':
      case 'scale':
      case 'rotate':
      case 'pinch':
        this.#endGesture(surface.screenPoint(event));
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

  /** Ends the gesture under way, its pointer lifted at `at` (slop.js says with which parameters); its angle goes. */
  #endGesture(at, cancelled = false) {
    this.press.gesture.end(endParams(this.mode, this.press, at, cancelled));
    this.surface.ui.angleShape = null;
  }

  /**
   * Escape: a gesture under way ends changing nothing, a marquee goes, a press not yet past its slop will
   * neither tap nor select; panning and zooming are left alone. Returns whether there was one to cancel.
   */
  cancel() {
    if (this.mode in gestureKinds) this.#endGesture(null, true);
    else if (this.mode === 'marquee') this.surface.ui.marquee = null;
    else if (!['pressShape', 'pressEmpty', 'pressHandle', 'pinchPending'].includes(this.mode)) return false;
    this.mode = this.pointers.size === 0 ? 'idle' : 'done';
    if (this.pointers.size === 0) this.press = null;
    this.surface.invalidate();
    return true;
  }

  /**
   * A tap on empty space: with a selection it only deselects; otherwise a shape snaps there, once per
   * double-tap, in this person's last style (a text or a note opens its editor).
   */
  #tap(at, time) {
    const { client, surface } = this;
    const deselecting = this.actions.selected.length > 0;
    this.actions.deselect();
    if (deselecting) return;
    const repeated = doubleTap(this.lastTap, at, time);
    this.lastTap = { at, time };
    if (repeated || !this.editable()) return;
    const p = surface.view.toCanvas(at);
    const replica = client.replica;
    if (p.x >= 0 && p.y >= 0 && p.x <= replica.width && p.y <= replica.height) this.actions.create(p.x, p.y, this.toolbar.kind);
  }
}
