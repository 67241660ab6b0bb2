// The history panel: the canvas's recent commits (GET /v1/canvases/{id}/history through the library),
// newest first, each with the name of who made it and what it did, kept current by the committed deltas
// that arrive while it is open. People are named, never shown as client ids.

import { refusalOf } from './share.js';

/** How many recent commits the panel shows. */
const shown = 50;

const kindNames = {
  dot: 'dot', roundedRect: 'rounded rectangle', oval: 'oval', triangle: 'triangle', polygon: 'polygon', star: 'star', fractal: 'fractal',
  text: 'text', note: 'note', line: 'line', arrow: 'arrow',
};

/** The fields of a look (1.7) that are its style, as a history entry's `edit` changes carry them. */
const styleKeys = ['fill', 'stroke', 'strokeWidth', 'opacity', 'fontSize'];

const article = (word) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const shapes = (n) => (n === 1 ? 'one shape' : `${n} shapes`);

/**
 * What a logged commit did, in words ("added a star", "moved and turned an oval", "deleted 3 shapes",
 * "grouped 2 shapes", "duplicated 3 shapes", "moved 2 shapes", "drew an arrow", "reconnected an arrow", "undid: added a star"). `kindOf(id)` names the kind of a
 * shape the op names only by id, or returns undefined; `entryAt(seq)` gives the logged commit at a seq,
 * when known, to say what an undo undid.
 */
export function describe(entry, kindOf = () => undefined, entryAt = () => undefined) {
  const op = entry.op ?? {};
  const kind = (id) => { const k = kindOf(id); return k ? article(kindNames[k] ?? k) : 'a shape'; };
  let what;
  switch (op.type) {
    case 'create': {
      // A connector (P28) is drawn, not added.
      const k = op.shape?.kind;
      what = `${k === 'line' || k === 'arrow' ? 'drew' : 'added'} ${article(kindNames[k] ?? 'shape')}`;
      break;
    }
    case 'reconnect':
      // An end of a connector dragged (P28): the connector whole after and before.
      what = `reconnected ${op.shape?.kind ? article(kindNames[op.shape.kind] ?? op.shape.kind) : kind(op.shape?.id)}`;
      break;
    case 'place': {
      const a = op.before ?? {}, b = op.placement ?? {};
      const verbs = [];
      if (a.center?.x !== b.center?.x || a.center?.y !== b.center?.y) verbs.push('moved');
      if (a.scale !== b.scale || a.size?.width !== b.size?.width || a.size?.height !== b.size?.height) verbs.push('resized');
      if (a.rotation !== b.rotation) verbs.push('turned');
      if (verbs.length === 0 && a.z !== b.z) verbs.push('brought forward');
      what = `${verbs.length ? verbs.join(' and ') : 'placed'} ${kind(b.id)}`;
      break;
    }
    case 'arrange': {
      // A selection gesture (P29): every shape's placement after, and before.
      const after = op.placements ?? [], was = new Map((op.before ?? []).map((p) => [p.id, p]));
      const changed = (f) => after.some((b) => f(was.get(b.id) ?? {}, b));
      const verbs = [];
      if (changed((a, b) => a.center?.x !== b.center?.x || a.center?.y !== b.center?.y)) verbs.push('moved');
      if (changed((a, b) => a.scale !== b.scale || a.size?.width !== b.size?.width || a.size?.height !== b.size?.height)) verbs.push('resized');
      if (changed((a, b) => a.rotation !== b.rotation)) verbs.push('turned');
      what = `${verbs.length ? verbs.join(' and ') : 'placed'} ${after.length === 1 ? kind(after[0]?.id) : shapes(after.length)}`;
      break;
    }
    case 'remove': {
      const list = op.shapes ?? [];
      what = list.length === 1 ? `deleted ${article(kindNames[list[0]?.kind] ?? 'shape')}` : `deleted ${shapes(list.length)}`;
      break;
    }
    case 'restore': {
      // Undoing a delete or a clear brings shapes back; a restore of its own is a duplicate's copies (P27).
      const list = op.shapes ?? [], copied = entry.undoes == null && entry.redoes == null;
      what = copied ? `duplicated ${list.length === 1 ? article(kindNames[list[0]?.kind] ?? 'shape') : shapes(list.length)}` : `brought back ${shapes(list.length)}`;
      break;
    }
    case 'clear':
      what = `cleared the canvas (${shapes((op.shapes ?? []).length)})`;
      break;
    case 'order':
      what = `restacked ${(op.shapes ?? []).length === 1 ? kind(op.shapes[0]?.id) : shapes((op.shapes ?? []).length)}`;
      break;
    case 'lock':
      what = `${op.locked ? 'locked' : 'unlocked'} ${(op.shapes ?? []).length === 1 ? kind(op.shapes[0]) : shapes((op.shapes ?? []).length)}`;
      break;
    case 'edit': {
      // A text or style change (1.7): each change has the shape's look after and before.
      const changes = op.changes ?? [];
      const differs = (c, key) => JSON.stringify(c.look?.[key]) !== JSON.stringify(c.before?.[key]);
      const wrote = changes.some((c) => differs(c, 'text')), styled = changes.some((c) => styleKeys.some((key) => differs(c, key)));
      const which = changes.length === 1 ? kind(changes[0].id) : shapes(changes.length);
      // A group or an ungroup (P27) is an edit that changes only `group`: grouped when each shape ends in one.
      if (!wrote && !styled && changes.some((c) => differs(c, 'group'))) what = `${changes.every((c) => c.look?.group) ? 'grouped' : 'ungrouped'} ${which}`;
      else what = wrote && !styled ? `wrote in ${which}` : `restyled ${which}`;
      break;
    }
    default:
      what = 'changed the canvas';
  }
  for (const [field, verb] of [['undoes', 'undid'], ['redoes', 'redid']]) {
    if (entry[field] === undefined || entry[field] === null) continue;
    const earlier = entryAt(entry[field]);
    // What was undone reads better than what the undo did ("undid: added a star", not "deleted a star").
    return earlier ? `${verb}: ${describe(earlier, kindOf, entryAt)}` : `${verb} a change (${what})`;
  }
  return what;
}

/** Who made a logged commit, by name: the server for its own commits (a disconnect, an expired lease). */
export function author(entry) {
  if (entry.client === null || entry.client === undefined) return 'The server';
  return entry.name || 'Someone';
}

export class HistoryPanel {
  /**
   * @param {object} options
   * @param {string} options.canvas
   * @param {import('../lib/index.js').SnapboardClient} options.client  whose committed deltas keep it current
   * @param {() => import('../lib/index.js').SnapboardAPI} options.api  the API with this person's current token
   * @param {HTMLElement} options.back  the board, which takes the focus back when the panel is closed
   */
  constructor({ canvas, client, api, back }) {
    Object.assign(this, { canvas, client, api, back });
    this.panel = document.getElementById('history');
    this.list = document.getElementById('history-list');
    this.note = document.getElementById('history-note');
    /** @type {Map<number, object>} the entries shown, by seq */
    this.entries = new Map();
    this.loading = null;
    this.again = false;
    // The close button goes with the panel: the focus returns to the board, whose keys then work again.
    document.getElementById('history-close').addEventListener('click', () => { this.toggle(false); back.focus(); });
    client.on('delta', (d) => { if (!d.live && this.isOpen) this.refresh(); });
    client.on('replaced', () => { this.entries.clear(); if (this.isOpen) this.refresh(); });
  }

  get isOpen() { return !this.panel.hidden; }

  /** Shows (true) or hides (false) the panel; with no argument, toggles it. */
  toggle(show = !this.isOpen) {
    this.panel.hidden = !show;
    document.getElementById('history-button')?.setAttribute('aria-pressed', String(show));
    if (show) this.refresh();
  }

  /** Fetches the commits after the newest shown (or the last `shown` ones) and lists them. */
  async refresh() {
    if (this.loading) { this.again = true; return; }
    let newest = Math.max(0, ...this.entries.keys());
    // Far behind (the panel was closed for a long while): start again from the last commits.
    if (this.client.replica.seq - newest > shown) { this.entries.clear(); newest = 0; }
    const after = newest > 0 ? newest : Math.max(0, this.client.replica.seq - shown);
    this.loading = this.api().history(this.canvas, { after, limit: 1000 })
      .then((page) => {
        for (const entry of page.ops ?? []) this.entries.set(entry.seq, entry);
        for (const seq of [...this.entries.keys()].sort((a, b) => a - b).slice(0, Math.max(0, this.entries.size - shown))) this.entries.delete(seq);
        this.note.textContent = this.entries.size === 0 ? 'No changes yet.' : '';
        this.render();
      })
      .catch((error) => {
        this.note.textContent = error?.status === 404 ? 'No changes yet.' : `The history could not be read. ${refusalOf(error)}`;
      })
      .finally(() => {
        this.loading = null;
        if (this.again) { this.again = false; this.refresh(); }
      });
    await this.loading;
  }

  render() {
    const kindOf = (id) => this.client.replica.shapes.get(id)?.kind;
    const items = [...this.entries.values()].sort((a, b) => b.seq - a.seq).map((entry) => {
      const item = document.createElement('li');
      item.dataset.seq = String(entry.seq);
      const who = document.createElement('strong');
      who.textContent = author(entry);
      const when = document.createElement('time');
      if (typeof entry.at === 'number') {
        const date = new Date(entry.at * 1000);
        when.dateTime = date.toISOString();
        when.textContent = date.toLocaleTimeString();
      }
      item.append(who, ` ${describe(entry, kindOf, (seq) => this.entries.get(seq))} `, when);
      return item;
    });
    this.list.replaceChildren(...items);
  }
}
