// Pointer input for mouse, pen and touch (docs/web-client.md says what each press does). Nothing commits
// by accident: a press becomes a gesture only once it travels past a slop, so a click or tap on a shape
// only selects it, and a press that ends where it began sends nothing. A gesture that comes back within
// the slop of where it began, or that Escape cancels, ends with parameters that change nothing, so the
// server commits nothing (slop.js). Where this person may not change the canvas (`editable()` false),
// selecting, panning and zooming still work, and nothing is sent or drawn as a change: a drag on a shape
// pans instead. So does a drag on a locked shape (P25), which shows no handles, and the page says why.
// With a line or an arrow chosen, a drag draws a connector (connector-tool.js); a selected connector's end
// handles drag its ends (one `endpoint` gesture each, P28). A drag of one of several selected shapes moves
// them all in one selection gesture; a pinch on one of them and their frame's handles scale and turn them all (P29).

import { isConnector, span } from '../lib/index.js';
import { ConnectorTool } from './connector-tool.js';
import { dragParams } from './drag-params.js';
import { pinchPress, pinchTo } from './pinch.js';
import { handleUnder, selectedShapes, shapeAt, shapesInside, whyHeld } from './selection.js';
import { draggedIds, handledOf } from './selection-frame.js';
import { endParams, gestureKinds, mouseSlop, touchSlop } from './slop.js';
import { Taps } from './taps.js';

export class PointerInput {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board, which gets the pointer events
   * @param {import('../lib/index.js').SnapboardClient} board.client
   * @param {import('./surface.js').Surface} board.surface
   * @param {{kind: string}} board.toolbar  the kind a tap snaps
   * @param {{say: (text: string) => void}} board.status  where a refusal is said
   * @param {import('./actions.js').Actions} board.actions  how a press changes the selection
   * @param {() => boolean} [board.editable]  whether this person may change the canvas now (default: the client's `canEdit`)
   */
  constructor({ element, client, surface, toolbar, status, actions, editable = () => client.canEdit !== false }) {
    Object.assign(this, { element, client, surface, toolbar, status, actions, editable });
    surface.ui.editable = editable;
    /** Draws connectors while a line or an arrow is the chosen kind. */
    this.connectors = new ConnectorTool({ toolbar, actions, surface });
    /** Pointers down, by id: where each is, in CSS pixels. */
    this.pointers = new Map();
    /**
     * What the current press does: idle | pressShape | pressEmpty | pressHandle | pressConnector (not yet
     * past the slop) | move | scale | rotate | endpoint | connector | pinchPending | pinch | view | pan |
     * marquee | done (a gesture ended while fingers are still down).
     */
    this.mode = 'idle';
    /** The current press: its pointer, where it started, the shape and gesture it drives, a pinch's span and anchor. */
    this.press = null;
    /** What a click or a tap does (taps.js). */
    this.taps = new Taps({ client, surface, toolbar, actions, editable });
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

  /** The one selected shape, or the frame of several, whose handles show (so may be grabbed), or null. */
  #handled() {
    return handledOf(selectedShapes(this.surface.ui.selection, this.client.drawingOrder()), (id) => this.#mayChange(id));
  }

  /** Whether this person may start a gesture on every shape of `ids` now: they may edit, no one else holds one, none is locked. */
  #mayChange(...ids) {
    return this.editable() && ids.every((id) => !whyHeld(this.client.replica, id));
  }

  /** A press past the slop that drives no gesture pans the view, from where it started. */
  #panFromStart(now) {
    this.mode = 'pan';
    this.surface.pan(now.x - this.press.start.x, now.y - this.press.start.y);
  }

  #clampToCanvas(p) {
    const { width, height } = this.client.replica;
    return { x: Math.min(Math.max(p.x, 0), width), y: Math.min(Math.max(p.y, 0), height) };
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
        Object.assign(press, { shape: handled.id, ids: handled.ids, handle, center: { x: handled.x, y: handled.y } });
        if (handled.ids && handle.kind === 'scale') handle.anchor = press.center; // a selection's scale: about its centre (P29)
        this.mode = 'pressHandle';
      } else {
        const hit = shapeAt(this.client.drawingOrder(), p);
        if (this.connectors.active && !event.shiftKey && !(isConnector(hit) && ui.selection.has(hit.id))) {
          // The Connector tool: a drag from here draws one (but a selected connector's moves it); a click selects.
          press.shape = hit?.id ?? null;
          this.mode = 'pressConnector';
        } else if (hit) {
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
      if (this.mode === 'pressShape' && this.#startPinch(press.shape, span(a, b))) {
        // Two fingers on a shape before any drag: one scale gesture (move, scale and turn in one op) of it or its selection.
      } else if (this.mode === 'move') {
        // A drag that became a pinch: the move so far commits, then the pinch goes on from there.
        this.#endGesture(pointers.get(press.pointer));
        if (!this.#startPinch(press.shape, span(a, b))) this.mode = 'done';
      } else if (['pressEmpty', 'pan', 'marquee', 'pressShape', 'pressConnector', 'connector'].includes(this.mode)) {
        ui.marquee = null;
        this.connectors.cancel();
        this.press = { span: span(a, b), anchor: view.toCanvas(span(a, b).mid), scale: view.scale };
        this.mode = 'view';
      }
    }
    surface.invalidate();
  }

  /** A pinch of `shape` (and the rest of its selection, P29) waits for its slop, if this person may change them all (else says why, for several). */
  #startPinch(shape, s) {
    const press = pinchPress(this.surface.ui.selection, this.client.drawingOrder(), shape, s);
    const why = press.ids.length > 1 && this.editable() && press.ids.map((id) => whyHeld(this.client.replica, id)).find(Boolean);
    if (why) this.status.say(why);
    if (!this.#mayChange(...press.ids)) return false;
    [this.press, this.mode] = [press, 'pinchPending'];
    if (press.ids.length === 1) this.actions.select(shape);
    return true;
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
        const ids = draggedIds(surface.ui.selection, client.drawingOrder(), press.shape);
        const why = this.editable() && ids.map((id) => whyHeld(client.replica, id)).find(Boolean);
        if (why) this.status.say(why);
        if (!this.#mayChange(...ids)) { this.#panFromStart(now); break; }
        surface.ui.selection.add(press.shape);
        press.gesture = client.gesture('move', ids.length > 1 ? ids : press.shape);
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
      case 'pressConnector':
        if (!own || travelled <= press.slop) break;
        this.connectors.begin(this.#clampToCanvas(press.startCanvas));
        this.mode = 'connector';
        this.#move(event);
        break;
      case 'connector':
        if (own) this.connectors.drag(this.#clampToCanvas(view.toCanvas(now)));
        break;
      case 'pressHandle': {
        if (!own || travelled <= press.slop) break;
        if (!this.#mayChange(...press.ids ?? [press.shape])) { this.mode = 'done'; break; }
        const { kind, end } = press.handle;
        press.gesture = kind === 'endpoint' ? client.endpoint(press.shape, end) : client.gesture(kind, press.ids ?? press.shape);
        if (kind !== 'endpoint' && !press.ids) surface.ui.angleShape = press.shape;
        this.mode = kind;
        this.#move(event);
        break;
      }
      case 'move':
      case 'scale':
      case 'rotate':
      case 'endpoint':
        if (own) press.gesture.update(dragParams(this.mode, press, view.toCanvas(now), (p) => this.#clampToCanvas(p)));
        break;
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
        // The fingers must spread, close, slide or turn past the slop before the pinch begins (pinch.js).
        if (pinchTo(press, s, { client, ui: surface.ui, anchorOf: (mid) => this.#clampToCanvas(view.toCanvas(mid)) })) this.mode = 'pinch';
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
    const single = ['pressShape', 'pressEmpty', 'pressHandle', 'pressConnector', 'move', 'scale', 'rotate', 'endpoint', 'connector', 'marquee'];
    // A second finger that is not part of the press lifts without ending it.
    if (single.includes(this.mode) && press && event.pointerId !== press.pointer) return;
    switch (this.mode) {
      case 'pressEmpty':
        if (!cancelled && !press.shift) this.taps.onEmpty(surface.screenPoint(event), event.timeStamp);
        break;
      case 'pressShape':
      case 'pressConnector':
        if (cancelled) break;
        if (press.shape) this.taps.onShape(press.shape, surface.screenPoint(event), event.timeStamp, press.shift);
        else this.taps.onEmpty(surface.screenPoint(event), event.timeStamp);
        break;
      case 'connector':
        if (cancelled) this.connectors.cancel();
        else this.connectors.end(this.#clampToCanvas(surface.canvasPoint(event)));
        break;
      case 'move':
      case 'scale':
      case 'rotate':
      case 'endpoint':
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
   * Escape: a gesture under way ends changing nothing, a marquee or a connector being drawn goes, a press not yet past its slop will
   * neither tap nor select; panning and zooming are left alone. Returns whether there was one to cancel.
   */
  cancel() {
    if (this.mode in gestureKinds) this.#endGesture(null, true);
    else if (this.mode === 'marquee') this.surface.ui.marquee = null;
    else if (this.mode === 'connector') this.connectors.cancel();
    else if (!['pressShape', 'pressEmpty', 'pressHandle', 'pressConnector', 'pinchPending'].includes(this.mode)) return false;
    this.mode = this.pointers.size === 0 ? 'idle' : 'done';
    if (this.pointers.size === 0) this.press = null;
    this.surface.invalidate();
    return true;
  }
}
