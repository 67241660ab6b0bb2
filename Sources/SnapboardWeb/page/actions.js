// What the board can be told to do, by a key, a toolbar button or a test alike: make a shape where a tap
// lands (a text or a note opens its editor at once), act on the selection (delete, duplicate, nudge,
// order, lock, group, ungroup, style, edit its text), undo and redo, select (a shape in a group with
// its whole group, P27), and zoom. Each method draws what changed itself. A locked shape (P25) is not
// moved or deleted: the replica says so, and nothing is sent.

import { gridLines } from '../lib/index.js';
import { connectorStyle } from './connector-tool.js';
import { selectedShapes } from './selection.js';
import { refusals } from './status.js';

/** One grid step along an axis of the replica's grid (`{divisions}` or `{pitch}`), in canvas units. */
export function gridPitch(length, axis) {
  const lines = gridLines(length, axis);
  if (lines.length >= 2) return lines[1] - lines[0];
  if (lines.length === 1) return lines[0];
  return axis?.pitch > 0 ? axis.pitch : length;
}

/** A fresh shape id (P13: 1–64 of [A-Za-z0-9_-]), for a shape this page names before the server commits it. */
function newShapeId() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return `s${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export class Actions {
  /**
   * @param {object} board
   * @param {import('../lib/index.js').SnapboardClient} board.client
   * @param {import('./surface.js').Surface} board.surface  the selection and the view
   * @param {{say: (text: string) => void}} board.status  where "select a shape first" is said
   * @param {() => boolean} [board.editable]  whether this person may change the canvas now (default: the
   *   client's `canEdit`)
   */
  constructor({ client, surface, status, editable = () => client.canEdit !== false }) {
    Object.assign(this, { client, surface, status, editable });
    /** The style picker, whose last style new shapes take (style-picker.js); set once the toolbar has it. */
    this.styles = null;
    /** The text editor (text-editor.js); set once the board has it. */
    this.editor = null;
    /** The duplicate, group, ungroup and connect ops sent and not yet answered: op id → {kind, originals}, so a refusal says what it refused. */
    this.unanswered = new Map();
  }

  /**
   * The server answered op `id`: returns what it was, if it was a duplicate, group, ungroup or connect ('duplicate',
   * …), else undefined. A refused duplicate gives the selection back to the originals, if it still holds
   * the copies that will never come.
   */
  answered(id, refused = false) {
    const sent = this.unanswered.get(id);
    if (!sent) return undefined;
    this.unanswered.delete(id);
    const selection = this.surface.ui.selection;
    if (refused && sent.copies && sent.copies.every((c) => selection.has(c)) && selection.size === sent.copies.length) {
      selection.clear();
      for (const original of sent.originals) selection.add(original);
      this.surface.invalidate();
    }
    return sent.kind;
  }

  /**
   * A tap at (x, y) in canvas units: a new `kind` shape there, in this person's last style (P26). A text
   * or a note is named here, so that its editor opens as soon as it is there (while connected).
   */
  create(x, y, kind) {
    if (!this.editable()) return null;
    const shape = this.styles ? this.styles.specFor(kind) : { kind };
    if ((kind === 'text' || kind === 'note') && this.editor && this.client.state === 'connected') {
      const shapeId = newShapeId();
      const id = this.client.send({ op: 'snap', x, y, shapeId, shape });
      if (id !== null) this.editor.editWhenThere(shapeId, id);
      return id;
    }
    return this.client.snap(x, y, shape);
  }

  /**
   * One `connect` (P28) of a `kind` connector (line or arrow) from the point `from` to the point `to`
   * (canvas units), which the server binds to shapes near or under them, in this person's last style. It is
   * named here and selected at once, so that its end handles show as soon as it is there.
   */
  connect(from, to, kind) {
    if (!this.editable()) return null;
    const shapeId = newShapeId();
    const { kind: _, ...style } = connectorStyle(this.styles, kind);
    const id = this.client.connector({ x: from.x, y: from.y }, { x: to.x, y: to.y }, { kind, shapeId, ...style });
    if (id === null) return null;
    this.unanswered.set(id, { kind: 'connect' });
    const selection = this.surface.ui.selection;
    selection.clear();
    selection.add(shapeId);
    this.surface.invalidate();
    return id;
  }

  /** Opens the text editor on the one selected shape (having said so when there is none, or several). */
  editText() {
    const shapes = this.#editableSelection();
    if (!shapes) return false;
    if (shapes.length !== 1) { this.status.say('select one shape to write in it'); return false; }
    return this.editor?.edit(shapes[0].id) ?? false;
  }

  /**
   * Styles every selected shape in one `style` op (P26): `fields` of fill, stroke (colours), strokeWidth,
   * opacity, fontSize. Nothing without a selection (the choice is still remembered for new shapes), nor
   * while a selected shape is locked.
   */
  style(fields) {
    if (!this.editable()) return null;
    const shapes = this.selected;
    if (shapes.length === 0 || this.lockedAmong(shapes)) return null;
    return this.client.style(shapes.map((s) => s.id), fields);
  }

  /** The selected shapes that still exist, bottom to top. */
  get selected() {
    return selectedShapes(this.surface.ui.selection, this.client.drawingOrder());
  }

  /** The view's zoom as a whole percentage: 100 is one CSS pixel per canvas unit. */
  get zoomPercent() {
    return Math.round(this.surface.view.scale * 100);
  }

  /** One grid step on each axis, {x, y}, in canvas units. */
  get gridStep() {
    const replica = this.client.replica;
    const grid = replica.grid;
    return { x: gridPitch(replica.width, grid?.x), y: gridPitch(replica.height, grid?.y) };
  }

  /** The selected shapes, or null (having said so) when there are none or the canvas cannot be changed now. */
  #editableSelection() {
    if (!this.editable()) return null;
    const shapes = this.selected;
    if (shapes.length === 0) {
      this.status.say('select a shape first');
      return null;
    }
    return shapes;
  }

  /**
   * Whether a selected shape is locked, having said so: a move or delete of it would only be refused
   * (`locked`), so none is sent, for the whole selection (the server takes all or none).
   */
  lockedAmong(shapes) {
    const locked = shapes.filter((s) => this.client.replica.isLocked(s.id)).length;
    if (locked === 0) return false;
    this.status.say(shapes.length === 1 ? refusals.locked : locked === 1 ? 'One of the selected shapes has a lock on it: unlock it first.'
      : `${locked} of the selected shapes have locks on them: unlock them first.`);
    return true;
  }

  /** Deletes every selected shape in one `delete` op (one undo step); nothing while one is locked. */
  deleteSelection() {
    const shapes = this.#editableSelection();
    if (!shapes || this.lockedAmong(shapes)) return;
    this.client.delete(shapes.map((s) => s.id));
    this.surface.ui.selection.clear();
    this.surface.invalidate();
  }

  /** Reverts this person's last change (P22). */
  undo() {
    if (this.editable()) this.client.undo();
  }

  /** Re-applies what this person's last undo reverted (P22). */
  redo() {
    if (this.editable()) this.client.redo();
  }

  /** Selects every shape on the canvas. */
  selectAll() {
    const selection = this.surface.ui.selection;
    for (const shape of this.client.drawingOrder()) selection.add(shape.id);
    this.surface.invalidate();
  }

  /**
   * Selects shape `id` alone, or with `toggle` adds it to the selection or takes it out: with every other
   * member of its group (P27), so that ops on the selection take the whole group.
   */
  select(id, { toggle = false } = {}) {
    const selection = this.surface.ui.selection;
    const members = this.client.replica.groupOf(id);
    const ids = members.length > 0 ? members : [id];
    const remove = toggle && selection.has(id);
    if (!toggle) selection.clear();
    for (const member of ids) remove ? selection.delete(member) : selection.add(member);
    this.surface.invalidate();
  }

  /** Selects nothing. */
  deselect() {
    this.surface.ui.selection.clear();
    this.surface.invalidate();
  }

  /**
   * Copies the selection in one `duplicate` op (P27): one grid step right and down, above every shape,
   * each copy with its original's looks (copies of a group's members in a new group). The copies are
   * named here and become the selection, so that repeating it makes a stair; they are drawn once the server
   * commits them.
   */
  duplicate() {
    const shapes = this.#editableSelection();
    if (!shapes) return null;
    const originals = shapes.map((s) => s.id), copies = originals.map(() => newShapeId());
    const id = this.client.duplicate(originals, { ids: copies });
    if (id === null) return null;
    this.unanswered.set(id, { kind: 'duplicate', originals, copies });
    const selection = this.surface.ui.selection;
    selection.clear();
    for (const copy of copies) selection.add(copy);
    this.surface.invalidate();
    return id;
  }

  /** Puts the selection in one group, one `group` op (P27); it needs two shapes or more (the members of the groups in it count). */
  group() {
    const shapes = this.#editableSelection();
    if (!shapes) return null;
    if (shapes.length < 2) { this.status.say('select two or more shapes to group them'); return null; }
    return this.#sent('group', this.client.group(shapes.map((s) => s.id)));
  }

  /** Dissolves every group in the selection, one `ungroup` op (P27); nothing, having said so, when no selected shape is in a group. */
  ungroup() {
    const shapes = this.#editableSelection();
    if (!shapes) return null;
    if (!shapes.some((s) => s.group !== undefined)) { this.status.say('none of the selected shapes is in a group'); return null; }
    return this.#sent('ungroup', this.client.ungroup(shapes.map((s) => s.id)));
  }

  #sent(kind, id) {
    if (id !== null) this.unanswered.set(id, { kind });
    this.surface.invalidate();
    return id;
  }

  /**
   * Moves every selected shape by (dx, dy) canvas units: exactly that, unless `snap` lets the server snap
   * it (the canvas's bounds still hold).
   */
  nudge(dx, dy, snap = false) {
    const shapes = this.#editableSelection();
    if (!shapes || this.lockedAmong(shapes)) return;
    this.client.nudge(shapes.map((s) => s.id), dx, dy, { snap });
  }

  /** Brings the selection to the `'front'` or `'back'`, or one step `'forward'` or `'backward'`: one `order` op (P25). */
  order(to) {
    const shapes = this.#editableSelection();
    if (shapes) this.client.order(shapes.map((s) => s.id), to);
  }

  /** Locks the selection, or unlocks it when every selected shape is locked: one `lock` op (P25). */
  toggleLock() {
    const shapes = this.#editableSelection();
    if (!shapes) return;
    const replica = this.client.replica;
    this.client.lock(shapes.map((s) => s.id), !shapes.every((s) => replica.isLocked(s.id)));
    this.surface.invalidate();
  }

  /** Zooms in one step (1.25×) about the board's centre. */
  zoomIn() {
    this.surface.stepZoom(1);
  }

  /** Zooms out one step about the board's centre. */
  zoomOut() {
    this.surface.stepZoom(-1);
  }

  /** Shows every shape, or the whole canvas when there are none. */
  zoomToFit() {
    this.surface.zoomToFit();
  }
}
