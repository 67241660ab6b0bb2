// What the page tells in words: the status line (the connection's state, the seq held, the round trip and
// a short hint), one banner per state that needs the person's attention, the people on the canvas, and a
// sentence for every refusal the server may send.

/** How long a hint stays, in milliseconds. */
const hintMs = 4000;

/** The connection's states (client.state) as the status line says them. */
const stateWords = {
  connecting: 'Connecting…',
  connected: 'Connected',
  offline: 'Offline',
  unauthorized: 'Not allowed in',
  forbidden: 'Refused',
  expired: 'Access expired',
  deleted: 'Canvas deleted',
  not_found: 'No such canvas',
  storage_full: 'Server full',
  closed: 'Closed',
};

/** Every reject code (PROTOCOL.md P7) and error code (P10) as a sentence for the person who caused it. */
export const refusals = {
  unknown_shape: 'That shape is gone: someone removed it.',
  shape_locked: 'Someone else is changing that shape right now. Try again when they let go.',
  locked: 'That shape has a lock on it: unlock it to move, resize, turn or delete it.',
  no_gesture: 'That change came too late: the gesture had already ended.',
  out_of_bounds: 'That is outside the canvas: tap inside the white area.',
  not_finite: 'That change had an impossible number in it and was not made.',
  canvas_full: 'The canvas holds as many shapes as it may: delete some to make room.',
  bad_shape: 'That shape cannot be made: its kind or size is not allowed here.',
  bad_shape_id: 'That shape could not be made: its id is taken or malformed.',
  out_of_range: 'That change is too big to make (too far, too large or too many shapes at once).',
  nothing_to_undo: 'Nothing of yours left to undo.',
  nothing_to_redo: 'Nothing to redo.',
  changed_since: 'Someone else changed that shape since, so it was left as it is.',
  rate_limited: 'Too many changes at once: slow down a little.',
  forbidden: 'You can only view this canvas: your link does not allow changes.',
  unavailable: 'The server could not save that change (its storage is failing); it was undone.',
  layout_full: 'Every cell of the grid is taken: delete or move a shape to free one.',
  bad_text: 'That text has a character a shape cannot hold (a control character): take it out and try again.',
  bad_style: 'That style cannot be used: pick a colour from the palette or as #rrggbb.',
  bad_json: 'The page sent something the server could not read.',
  bad_message: 'The page sent something the server could not read.',
  unknown_type: 'The page sent a message this server does not know: it may be older than the page.',
  unknown_op: 'This server does not know that kind of change: it may be older than the page.',
  too_large: 'That message was too large for the server.',
  binary_frame: 'The page sent something the server could not read.',
};

/**
 * What a refused `duplicate`, `group`, `ungroup` (P27) or `connect` (P28) says instead, where the general
 * sentence would not fit: the ids this page chose, room for every copy, how many shapes a group takes, what
 * a connector may join.
 */
export const opRefusals = {
  duplicate: {
    bad_shape_id: 'The copies were not made: an id this page chose for one is taken. Try again.',
    canvas_full: 'The canvas has no room for that many copies: delete some shapes first.',
    layout_full: 'The grid has too few free cells for every copy: delete or move shapes to free some.',
    out_of_range: 'Too many shapes to copy at once (at most 1,000), or the canvas cannot stack any more above them.',
  },
  group: {
    out_of_range: 'A group holds two to 1,000 shapes (with the groups they are in): select fewer, or more.',
  },
  ungroup: {
    out_of_range: 'Too many shapes to ungroup at once (at most 1,000).',
  },
  connect: {
    bad_shape: 'That connector could not be drawn: a line or an arrow joins shapes, not other lines or arrows.',
    bad_shape_id: 'That connector could not be drawn: the id this page chose for it is taken. Try again.',
    out_of_bounds: 'A line or an arrow must start and end on the canvas: draw it inside the white area.',
    unknown_shape: 'That connector could not be drawn: a shape it was to join is gone.',
    out_of_range: 'That shape has as many lines and arrows ending on it as it may (100): the connector was not drawn.',
  },
};

/**
 * A sentence for a refusal's code, never the raw code; for a duplicate, group, ungroup or connect (`op`), its own
 * sentence where it has one; the server's own message for a code not listed.
 */
export function refusalText(code, message, op) {
  return opRefusals[op]?.[code] ?? refusals[code] ?? (message ? `Refused: ${message}` : 'The server refused that change.');
}

export class StatusBar {
  /** @param {import('../lib/index.js').SnapboardClient} client */
  constructor(client) {
    this.client = client;
    this.hint = document.getElementById('hint');
    this.banners = document.getElementById('banners');
    this.hintTimer = null;
    /** @type {Map<string, HTMLElement>} the banner of each state key on show */
    this.shown = new Map();
  }

  /** Shows `text` in the status line for a few seconds. */
  say(text) {
    this.hint.textContent = text ? `· ${text}` : '';
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => { this.hint.textContent = ''; }, hintMs);
  }

  /**
   * Shows (text) or removes (null) the banner of one state `key`, so a message goes away once its state
   * no longer holds. `tone`: 'info' | 'warn' | 'error'. `extra`: elements shown after the text (a link,
   * a field). `dismissible`: a close button that removes it.
   */
  set(key, text, { tone = 'info', extra = [], dismissible = false } = {}) {
    let banner = this.shown.get(key);
    if (text === null || text === undefined) {
      banner?.remove();
      this.shown.delete(key);
      return;
    }
    if (!banner) {
      banner = document.createElement('div');
      banner.dataset.key = key;
      this.banners.append(banner);
      this.shown.set(key, banner);
    }
    banner.className = `banner ${tone}`;
    banner.setAttribute('role', tone === 'error' ? 'alert' : 'status');
    const words = document.createElement('span');
    words.className = 'words';
    words.textContent = text;
    const parts = [words, ...extra];
    if (dismissible) {
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'dismiss';
      close.setAttribute('aria-label', 'Dismiss');
      close.textContent = '✕';
      close.addEventListener('click', () => this.set(key, null));
      parts.push(close);
    }
    banner.replaceChildren(...parts);
  }

  /** The text of the banner of `key`, or null when none is shown. */
  text(key) {
    return this.shown.get(key)?.querySelector('.words')?.textContent ?? null;
  }

  /** Lists who is on the canvas, each with their colour, this person marked "(you)"; stale while not connected. */
  showPresence() {
    const client = this.client;
    const replica = client.replica;
    const list = document.getElementById('sessions');
    const people = document.getElementById('people');
    people.classList.toggle('stale', client.stale);
    people.title = client.stale ? 'Not connected: this list may be out of date' : '';
    list.replaceChildren(...[...replica.sessions].map(([id, who]) => {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      // A colour is data, not a style sheet rule: an SVG circle filled with it keeps the CSP free of inline styles.
      swatch.append(colourDot(who.color));
      item.append(swatch, `${who.name}${id === replica.session ? ' (you)' : ''}`);
      item.dataset.session = String(id);
      item.dataset.color = who.color;
      return item;
    }));
    if (client.stale && replica.sessions.size > 0) {
      const note = document.createElement('li');
      note.className = 'stale-note';
      note.textContent = 'as last seen';
      list.append(note);
    }
  }

  /** The connection's state, the seq held and the last round trip (stale while not connected). */
  showStatus() {
    const client = this.client;
    document.getElementById('state').textContent = stateWords[client.state] ?? client.state;
    document.getElementById('seq').textContent = client.replica.seq >= 0 ? String(client.replica.seq) : '–';
    const rtt = document.getElementById('rtt');
    rtt.textContent = client.rtt === null ? '–' : `${client.rtt.toFixed(1)} ms${client.stale ? ' (stale)' : ''}`;
    rtt.classList.toggle('stale', client.stale);
  }
}

const svgNS = 'http://www.w3.org/2000/svg';

/** A small filled circle of `color` (#rrggbb) as SVG. */
export function colourDot(color) {
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('viewBox', '0 0 10 10');
  svg.setAttribute('aria-hidden', 'true');
  const dot = document.createElementNS(svgNS, 'circle');
  dot.setAttribute('cx', '5');
  dot.setAttribute('cy', '5');
  dot.setAttribute('r', '5');
  dot.setAttribute('fill', /^#[0-9a-fA-F]{6}$/.test(color) ? color : '#888888');
  svg.append(dot);
  return svg;
}
