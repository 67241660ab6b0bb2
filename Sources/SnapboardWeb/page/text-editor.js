// Editing a shape's text in place (protocol 1.7, P26): a textarea laid over the shape, scaled and turned
// with it, that holds the shape's text lease while it is open. Opening sends a `text` begin; typing sends
// the draft as updates (debounced, and at least every 2 s so the 5 s lease never lapses); a blur or
// Ctrl/⌘+Enter ends it with the text, Escape ends it with the original text (the server answers that
// unchanged). While another session holds the shape, or it is locked, the editor does not open and the
// page says why.

import { lookOf, transform } from '../lib/index.js';
import { defaultInk, textBox } from './text-layout.js';
import { leaseHolder } from './selection.js';
import { refusals } from './status.js';

/** Milliseconds of quiet typing before the draft goes as an update. */
export const draftDebounceMs = 300;
/** How long an open editor goes without an update before it sends one (checked every fifth of it): the lease lapses after 5 s (P14). */
export const keepAliveMs = 1500;
/** How long a new text or note may take to appear before its editor gives up opening. */
const appearMs = 10000;
/** The most UTF-8 bytes a shape's text may hold (P26). */
export const maxTextBytes = 4096;
const encoder = new TextEncoder();

/**
 * `text` as a shape may hold it (P26): without the control characters the server refuses (all but tab and
 * line feed: a pasted CR, DEL or C1 control), and cut to at most 4,096 UTF-8 bytes, never inside a character.
 */
export function storableText(text) {
  let clean = text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '');
  if (encoder.encode(clean).length <= maxTextBytes) return clean;
  const chars = [...clean];
  let bytes = 0, end = 0;
  for (; end < chars.length; end++) {
    bytes += encoder.encode(chars[end]).length;
    if (bytes > maxTextBytes) break;
  }
  clean = chars.slice(0, end).join('');
  return clean;
}

export class TextEditor {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board: the editor lies over it, and gives it the focus back
   * @param {import('../lib/index.js').SnapboardClient} board.client
   * @param {import('./surface.js').Surface} board.surface  the view, and `ui.editingText`
   * @param {{say: (text: string) => void}} board.status  where "someone is editing" is said
   * @param {() => boolean} board.editable  whether this person may change the canvas now
   */
  constructor({ element, client, surface, status, editable }) {
    Object.assign(this, { element, client, surface, status, editable });
    /**
     * The edit under way: {id, original, area, begin (the begin's op id), created (a shape this page just
     * made), debounce, keepAlive, lastSent}, or null.
     */
    this.open = null;
    /** A shape this page just snapped whose editor opens once it appears: {id, op, stop}. */
    this.awaited = null;
    element.addEventListener('frame', () => this.#place());
    client.on('reject', (r) => {
      // The server refused the begin (someone took the shape first, or it is locked): nothing to end.
      if (this.open && r.id === this.open.begin) this.#close();
      if (this.awaited && r.id === this.awaited.op) this.#stopWaiting();
    });
    client.on('state', () => { if (!this.editable()) this.#close(); });
    client.on('delta', () => { if (this.open && !this.client.replica.shapes.has(this.open.id)) this.#close(); });
  }

  /** The id of the shape whose text is open, or null. */
  get editing() {
    return this.open?.id ?? null;
  }

  /**
   * Opens the editor on shape `id`; returns whether it opened. It does not while this person may not
   * edit, while another session holds the shape (the page says who), or while the shape is locked.
   */
  edit(id) {
    if (!this.editable() || this.client.state !== 'connected') return false;
    if (this.open?.id === id) { this.open.area.focus(); return true; }
    const replica = this.client.replica;
    const shape = replica.shapes.get(id);
    if (!shape) return false;
    const other = leaseHolder(replica, id);
    if (other) { this.status.say(`${other.name} is editing that shape: wait until they finish.`); return false; }
    if (replica.isLocked(id)) { this.status.say(refusals.locked); return false; }
    this.commit();
    const original = lookOf(shape).text;
    const begin = this.client.text(id, undefined, 'begin');
    if (begin === null) return false;
    const area = document.createElement('textarea');
    area.className = 'text-editor';
    area.setAttribute('aria-label', 'Text of the shape');
    area.spellcheck = true;
    area.value = original;
    this.open = { id, original, area, begin, created: false, debounce: null, keepAlive: null, lastSent: performance.now() };
    area.addEventListener('input', () => this.#typed());
    area.addEventListener('keydown', (event) => this.#key(event));
    area.addEventListener('blur', () => this.commit());
    // Checked five times per period, so no two updates are more than 1.2 periods (1.8 s) apart.
    this.open.keepAlive = setInterval(() => this.#keepAlive(), keepAliveMs / 5);
    this.surface.ui.editingText = id;
    document.body.append(area);
    this.#place();
    area.focus();
    area.select();
    this.surface.invalidate();
    return true;
  }

  /**
   * Opens the editor on the shape this page snapped as `id` (op `op`) once the replica has it; gives up
   * when the snap is refused or it takes too long. A new text shape left empty is deleted when its editor
   * closes: it would draw nothing at all.
   */
  editWhenThere(id, op) {
    this.#stopWaiting();
    const check = () => {
      if (!this.client.replica.shapes.has(id)) return;
      this.#stopWaiting();
      if (this.edit(id)) this.open.created = true;
    };
    const off = this.client.on('change', check);
    const timer = setTimeout(() => this.#stopWaiting(), appearMs);
    this.awaited = { id, op, stop: () => { off(); clearTimeout(timer); } };
    check();
  }

  #stopWaiting() {
    this.awaited?.stop();
    this.awaited = null;
  }

  /** Ends the edit with the text as typed: the end commits it (unchanged text is answered unchanged). */
  commit() {
    if (!this.open) return;
    const { id, area, created } = this.open;
    this.#close();
    const text = storableText(area.value);
    this.client.text(id, text, 'end');
    if (created && text === '' && this.client.replica.shapes.get(id)?.kind === 'text') this.client.delete([id]);
  }

  /** Ends the edit putting back the text it opened with: the server answers it unchanged. */
  cancel() {
    if (!this.open) return;
    const { id, original, created } = this.open;
    this.#close();
    this.client.text(id, original, 'end');
    if (created && original === '' && this.client.replica.shapes.get(id)?.kind === 'text') this.client.delete([id]);
  }

  /** Takes the editor down without sending anything, and gives the board the focus back. */
  #close() {
    const open = this.open;
    if (!open) return;
    this.open = null;
    clearTimeout(open.debounce);
    clearInterval(open.keepAlive);
    this.surface.ui.editingText = null;
    const focused = document.activeElement === open.area;
    open.area.remove();
    if (focused) this.element.focus();
    this.surface.invalidate();
  }

  #typed() {
    const open = this.open;
    const storable = storableText(open.area.value);
    if (storable !== open.area.value) {
      open.area.value = storable;
      this.status.say(`A shape holds at most ${maxTextBytes.toLocaleString('en')} bytes of text, without control characters: the rest was left out.`);
    }
    clearTimeout(open.debounce);
    open.debounce = setTimeout(() => this.#sendDraft(), draftDebounceMs);
  }

  /** Sends the draft as an update, if it changed or the lease needs it. */
  #sendDraft() {
    const open = this.open;
    if (!open) return;
    open.lastSent = performance.now();
    this.client.text(open.id, storableText(open.area.value), 'update');
  }

  #keepAlive() {
    if (this.open && performance.now() - this.open.lastSent >= keepAliveMs) this.#sendDraft();
  }

  #key(event) {
    event.stopPropagation();
    if (event.key === 'Escape') { event.preventDefault(); this.cancel(); }
    else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); this.commit(); }
  }

  /** Lays the textarea over the shape as the view shows it: its frame, scaled and turned, in its font and colour. */
  #place() {
    const open = this.open;
    if (!open) return;
    const shape = this.client.shapeAsDrawn(open.id);
    if (!shape) return;
    const view = this.surface.view;
    const look = lookOf(shape);
    const { padding, centred } = textBox(shape.kind);
    const rect = this.element.getBoundingClientRect();
    // The frame's top-left corner on the page, then the shape's turn and scale about it.
    const [a, b, c, d, tx, ty] = transform(shape);
    const k = view.scale;
    const corner = { x: rect.left + view.ox + k * (tx - (a * shape.w + c * shape.h) / 2), y: rect.top + view.oy + k * (ty - (b * shape.w + d * shape.h) / 2) };
    const style = open.area.style;
    style.left = `${corner.x}px`;
    style.top = `${corner.y}px`;
    style.width = `${shape.w}px`;
    style.height = `${shape.h}px`;
    style.padding = `${padding}px`;
    style.fontSize = `${look.fontSize}px`;
    style.lineHeight = `${look.fontSize * 1.25}px`;
    style.textAlign = centred ? 'center' : 'left';
    style.color = look.stroke ?? defaultInk;
    style.transform = `matrix(${a * k}, ${b * k}, ${c * k}, ${d * k}, 0, 0)`;
  }
}
