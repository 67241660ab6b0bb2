// The toolbar: the kind of shape a tap snaps, a text or a note among them, or the line or arrow a drag
// draws (remembered across visits), the editing and zoom buttons that
// call the board's Actions, the zoom percentage, the "View only" mark, and the Share, History and Help
// buttons, and the help's table of keys. Every button has an accessible name; on a narrow screen they show as icons in one row that
// scrolls sideways.

import { keyHelp } from './keyboard.js';

const svgNS = 'http://www.w3.org/2000/svg';

/** Icons on a 24×24 grid: [path, filled]. */
const icons = {
  dot: ['M12 8.5a3.5 3.5 0 1 1 0 7 3.5 3.5 0 0 1 0-7z', true],
  roundedRect: ['M8 6h8a4 4 0 0 1 4 4v4a4 4 0 0 1-4 4H8a4 4 0 0 1-4-4v-4a4 4 0 0 1 4-4z', false],
  oval: ['M12 7c4.4 0 8 2.2 8 5s-3.6 5-8 5-8-2.2-8-5 3.6-5 8-5z', false],
  triangle: ['M12 4.5l8.5 15h-17z', false],
  polygon: ['M12 3.5l7.4 4.25v8.5L12 20.5l-7.4-4.25v-8.5z', false],
  star: ['M12 3.5l2.5 5.4 5.9.6-4.4 4 1.3 5.8L12 16.4l-5.3 2.9 1.3-5.8-4.4-4 5.9-.6z', false],
  fractal: ['M12 9a3 3 0 1 1 0 6 3 3 0 0 1 0-6zM6 4.5a2 2 0 1 1 0 4 2 2 0 0 1 0-4zM18 4.5a2 2 0 1 1 0 4 2 2 0 0 1 0-4zM12 17.5a2 2 0 1 1 0 4 2 2 0 0 1 0-4z', false],
  delete: ['M4 7h16M9.5 7V4.5h5V7M6.5 7l1 12.5h9l1-12.5M10 11v5M14 11v5', false],
  undo: ['M9 13.5 4.5 9 9 4.5M4.5 9H14a5.5 5.5 0 0 1 0 11h-3', false],
  redo: ['M15 13.5 19.5 9 15 4.5M19.5 9H10a5.5 5.5 0 0 0 0 11h3', false],
  zoomOut: ['M5.5 12h13', false],
  zoomIn: ['M12 5.5v13M5.5 12h13', false],
  fit: ['M4.5 9.5v-5h5M19.5 9.5v-5h-5M4.5 14.5v5h5M19.5 14.5v5h-5', false],
  share: ['M12 15V4M7.5 8.5 12 4l4.5 4.5M5.5 12.5v7h13v-7', false],
  history: ['M12 7.5V12l3 2M12 3.5a8.5 8.5 0 1 1 0 17 8.5 8.5 0 0 1 0-17z', false],
  help: ['M9.2 9.2a2.9 2.9 0 1 1 4.2 2.6c-.8.4-1.4 1-1.4 1.9v.8M12 17.6v.4', false],
  arrange: ['M12 4l8 4-8 4-8-4zM4 12l8 4 8-4M4 16l8 4 8-4', false],
  front: ['M5 4.5h14M12 20V8.5M7.5 13 12 8.5l4.5 4.5', false],
  forward: ['M12 19V6M7.5 10.5 12 6l4.5 4.5', false],
  backward: ['M12 5v13M7.5 13.5 12 18l4.5-4.5', false],
  back: ['M5 19.5h14M12 4v11.5M7.5 11 12 15.5l4.5-4.5', false],
  lock: ['M6.5 11h11v8.5h-11zM9 11V8a3 3 0 0 1 6 0v3', false],
  group: ['M4 4h3M10.5 4h3M17 4h3v3M20 10.5v3M20 17v3h-3M13.5 20h-3M7 20H4v-3M4 13.5v-3M4 7V4M8 8h5v5H8zM11 11h5v5h-5z', false],
  ungroup: ['M4.5 4.5h6v6h-6zM13.5 13.5h6v6h-6zM13.5 4.5l6 6M19.5 4.5l-6 6', false],
  text: ['M5.5 6.5v-2h13v2M12 4.5v15M9 19.5h6', false],
  note: ['M4.5 4.5h15v10l-5 5h-10zM14.5 19.5v-5h5', false],
  line: ['M5 19L19 5', false],
  arrow: ['M5 19L18.5 5.5M10.5 5h8.5v8.5', false],
  style: ['M12 3.5a8.5 8.5 0 0 0 0 17c1.2 0 1.8-.8 1.8-1.7 0-1.4-1.2-1.6-1.2-2.7s.8-1.6 1.9-1.6h1.9a4.1 4.1 0 0 0 4.1-4.1c0-3.8-3.8-6.9-8.5-6.9zM7.8 12.2v.1M9.5 8v.1M14.5 8v.1', false],
};

/** Where the toolbar folds the shape tools into one button (style.css has the same width). */
const narrowScreen = '(max-width: 600px)';

/**
 * The kinds a tap can snap, with their accessible names; then the Connector tool's two kinds (P28), which
 * a drag draws from one point or shape to another instead (connector-tool.js).
 */
const kinds = [
  ['dot', 'Dot'], ['roundedRect', 'Rounded rectangle'], ['oval', 'Oval'], ['triangle', 'Triangle'],
  ['polygon', 'Polygon'], ['star', 'Star'], ['fractal', 'Fractal'], ['text', 'Text'], ['note', 'Note'],
  ['line', 'Line'], ['arrow', 'Arrow'],
];

/** An SVG icon for `name`, hidden from assistive technology (the button carries the name). */
function icon(name) {
  const [d, filled] = icons[name];
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(svgNS, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', filled ? 'currentColor' : 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '1.8');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
}

/** A button with an icon, an accessible name and (optionally) a visible short label. */
export function button({ id, iconName, name, label, keys }) {
  const b = document.createElement('button');
  b.type = 'button';
  if (id) b.id = id;
  b.setAttribute('aria-label', name);
  b.title = keys ? `${name} (${keys})` : name;
  if (iconName) b.append(icon(iconName));
  if (label) {
    const text = document.createElement('span');
    text.className = 'label';
    text.textContent = label;
    b.append(text);
  }
  return b;
}

export class Toolbar {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board, which takes the focus back after a button
   * @param {object} board.actions  role D's Actions: deleteSelection, undo, redo, zoomIn, zoomOut, zoomToFit, zoomPercent
   * @param {() => void} board.onShare  opens the share dialog
   * @param {() => void} board.onHistory  shows or hides the history panel
   */
  constructor({ element, actions, onShare, onHistory }) {
    /** The kind of shape a tap snaps. */
    this.kind = kinds.some(([k]) => k === localStorage.getItem('snapboard.kind')) ? localStorage.getItem('snapboard.kind') : 'roundedRect';
    this.actions = actions;
    this.board = element;
    this.help = document.getElementById('help');
    document.querySelector('#key-help tbody').replaceChildren(...keyHelp.map(({ keys, does }) => {
      const row = document.createElement('tr');
      const keyCell = document.createElement('th');
      keys.forEach((k, i) => {
        const kbd = document.createElement('kbd');
        kbd.textContent = k;
        keyCell.append(...(i > 0 ? [' ', kbd] : [kbd]));
      });
      keyCell.scope = 'row';
      const doesCell = document.createElement('td');
      doesCell.textContent = does;
      row.append(keyCell, doesCell);
      return row;
    }));

    const kindBar = document.getElementById('kinds');
    const narrow = matchMedia(narrowScreen);
    for (const [value, name] of kinds) {
      const b = button({ iconName: value, name });
      b.dataset.kind = value;
      b.setAttribute('aria-pressed', String(value === this.kind));
      b.addEventListener('click', () => {
        // On a phone only the chosen kind shows: a tap on it opens the others, a tap on one picks it.
        if (narrow.matches && value === this.kind && !kindBar.classList.contains('open')) {
          kindBar.classList.add('open');
          return;
        }
        kindBar.classList.remove('open');
        this.kind = value;
        localStorage.setItem('snapboard.kind', value);
        for (const other of kindBar.children) other.setAttribute('aria-pressed', String(other.dataset.kind === value));
        element.focus();
      });
      kindBar.append(b);
    }

    // A tap anywhere else folds the opened shape tools again.
    document.addEventListener('pointerdown', (event) => { if (!kindBar.contains(event.target)) kindBar.classList.remove('open'); });

    const act = (b, fn) => { b.addEventListener('click', () => { fn(); element.focus(); }); return b; };
    document.getElementById('edits').append(
      act(button({ id: 'delete-button', iconName: 'delete', name: 'Delete', keys: 'Delete' }), () => actions.deleteSelection()),
      act(button({ id: 'undo-button', iconName: 'undo', name: 'Undo', keys: 'Ctrl+Z' }), () => actions.undo()),
      act(button({ id: 'redo-button', iconName: 'redo', name: 'Redo', keys: 'Ctrl+Shift+Z' }), () => actions.redo()),
    );
    this.percent = document.createElement('output');
    this.percent.id = 'zoom-percent';
    this.percent.setAttribute('aria-label', 'Zoom');
    this.percent.textContent = '100%';
    document.getElementById('zoom').append(
      act(button({ id: 'zoom-out', iconName: 'zoomOut', name: 'Zoom out', keys: 'Ctrl+wheel' }), () => actions.zoomOut()),
      this.percent,
      act(button({ id: 'zoom-in', iconName: 'zoomIn', name: 'Zoom in', keys: 'Ctrl+wheel' }), () => actions.zoomIn()),
      act(button({ id: 'zoom-fit', iconName: 'fit', name: 'Zoom to fit', keys: '0' }), () => actions.zoomToFit()),
    );
    const share = button({ id: 'share-button', iconName: 'share', name: 'Share', label: 'Share' });
    share.addEventListener('click', () => onShare());
    const history = button({ id: 'history-button', iconName: 'history', name: 'History' });
    history.addEventListener('click', () => onHistory());
    const help = button({ id: 'help-button', iconName: 'help', name: 'Help', keys: '?' });
    help.addEventListener('click', () => this.toggleHelp());
    document.getElementById('panels').append(history, help, share);
    document.getElementById('help-close').addEventListener('click', () => { this.toggleHelp(false); element.focus(); });
    // The help takes the focus when it opens: Escape there closes it, as it does on the board.
    this.help.addEventListener('keydown', (event) => { if (event.key === 'Escape') { event.preventDefault(); this.toggleHelp(false); element.focus(); } });
    element.addEventListener('viewchange', () => this.showZoom());
  }

  /** Shows the view's zoom as a percentage. */
  showZoom() {
    this.percent.textContent = `${Math.round(this.actions.zoomPercent)}%`;
  }

  /**
   * Editing tools for those who may edit; none, and a "View only" mark, for viewers. `readOnly` is true
   * while this person may not edit now (a viewer, an expired token, a deleted canvas).
   */
  setEditable({ viewer, readOnly }) {
    document.body.classList.toggle('viewer', viewer);
    document.body.classList.toggle('read-only', readOnly);
    for (const group of document.querySelectorAll('#toolbar .editing')) group.hidden = readOnly;
    const mark = document.getElementById('view-only');
    mark.hidden = !readOnly;
    mark.textContent = viewer ? 'View only' : 'Read-only';
  }

  /**
   * While the connection has stopped (no access, an expired token, a deleted canvas), History and Share
   * would only be refused: they are disabled, and their tooltips say why.
   */
  setStopped(stopped) {
    for (const [id, name] of [['history-button', 'History'], ['share-button', 'Share']]) {
      const b = document.getElementById(id);
      b.disabled = stopped;
      b.title = stopped ? `${name}: not available while this page has no access to the canvas (see the message above)` : name;
    }
  }

  /** Shows (true) or hides (false) the help; with no argument, toggles it. */
  toggleHelp(show = !this.help.open) {
    if (show && !this.help.open) this.help.show();
    else if (!show && this.help.open) this.help.close();
  }
}
