// What a press that never travelled past its slop does: a click or tap on a shape selects it (Shift adds
// it or takes it out, with its group), and a second one on it soon after writes in it (P26); one on empty
// space deselects, or with nothing selected makes a shape of the chosen kind there in this person's last
// style, once per double-tap. With a line or an arrow chosen (P28), a tap on empty space makes nothing:
// connectors are drawn by a drag.

import { isConnector } from '../lib/index.js';
import { doubleTap } from './slop.js';

export class Taps {
  /**
   * @param {object} board
   * @param {import('../lib/index.js').SnapboardClient} board.client  whose canvas says where a tap may make a shape
   * @param {import('./surface.js').Surface} board.surface  the view, from the board's CSS pixels to canvas units
   * @param {{kind: string}} board.toolbar  the kind a tap makes
   * @param {import('./actions.js').Actions} board.actions  select, deselect, create, and the text editor
   * @param {() => boolean} board.editable  whether this person may change the canvas now
   */
  constructor({ client, surface, toolbar, actions, editable }) {
    Object.assign(this, { client, surface, toolbar, actions, editable });
    /** The last tap that snapped: {at (CSS pixels), time}, to tell a double-tap. */
    this.lastTap = null;
    /** The last click or tap on a shape: {id, at, time}; a second one on it soon after edits its text. */
    this.lastShapeTap = null;
  }

  /** A click or tap on shape `id` at `at` (CSS pixels) at `time` (ms); `shift` toggles it in the selection. */
  onShape(id, at, time, shift) {
    this.actions.select(id, { toggle: shift });
    // A double-click or double-tap on a shape writes in it (P26).
    const again = this.lastShapeTap?.id === id && doubleTap(this.lastShapeTap, at, time);
    this.lastShapeTap = again ? null : { id, at, time };
    if (again && !shift && this.editable()) this.actions.editor?.edit(id);
  }

  /**
   * A tap on empty space: with a selection it only deselects; otherwise a shape snaps there, once per
   * double-tap, in this person's last style (a text or a note opens its editor); a connector kind, none.
   */
  onEmpty(at, time) {
    const deselecting = this.actions.selected.length > 0;
    this.actions.deselect();
    if (deselecting) return;
    const repeated = doubleTap(this.lastTap, at, time);
    this.lastTap = { at, time };
    if (repeated || !this.editable() || isConnector({ kind: this.toolbar.kind })) return;
    const p = this.surface.view.toCanvas(at);
    const replica = this.client.replica;
    if (p.x >= 0 && p.y >= 0 && p.x <= replica.width && p.y <= replica.height) this.actions.create(p.x, p.y, this.toolbar.kind);
  }
}
