// The keyboard on the board: select, deselect, delete, duplicate and nudge the selection by whole grid
// steps, write in it (Enter), scale and turn it, bring it forward or send it back, lock and unlock it,
// group and ungroup it, undo and redo this person's changes, zoom, and hold Space to pan. Keys that
// change the canvas do nothing where this person may not change it (a viewer, an expired token). The keys
// are the board's wherever the focus is (a toolbar button, the status line, a banner, nowhere), except
// while someone types in a field or works in an open dialog.

/** The keys the board takes, for the help panel: each entry's `keys` are alternatives, a `+` joins keys pressed together. */
export const keyHelp = [
  { keys: ['Ctrl+A', '⌘+A'], does: 'Select every shape' },
  { keys: ['Esc'], does: 'Select nothing (and close this help)' },
  { keys: ['Shift+click'], does: 'Add a shape (with its whole group) to the selection, or take it out' },
  { keys: ['←', '→', '↑', '↓'], does: 'Move the selection by exactly one grid step, without snapping' },
  { keys: ['Shift+arrow'], does: 'Move the selection by ten grid steps' },
  { keys: ['Alt+arrow'], does: 'Move by one grid step and let it snap to edges, gaps and the grid' },
  { keys: ['Delete', 'Backspace'], does: 'Delete the selection' },
  { keys: ['Enter', 'double-click'], does: 'Write in the selected shape: Ctrl+Enter or clicking away keeps the text, Esc puts it back' },
  { keys: ['Ctrl+D', '⌘+D'], does: 'Duplicate the selection, one grid step right and down; the copies become the selection' },
  { keys: ['Ctrl+Z', '⌘+Z'], does: 'Undo your last change' },
  { keys: ['Ctrl+Shift+Z', '⌘+Shift+Z', 'Ctrl+Y'], does: 'Redo what you undid' },
  { keys: ['+', '-'], does: 'Scale the selected shape up or down' },
  { keys: ['R', 'Shift+R'], does: 'Turn the selected shape 15° clockwise or back' },
  { keys: ['Ctrl+Shift+]', '⌘+Shift+]'], does: 'Bring the selection to the front' },
  { keys: ['Ctrl+]', '⌘+]'], does: 'Bring the selection forward, past the next shape it overlaps' },
  { keys: ['Ctrl+[', '⌘+['], does: 'Send the selection backward, behind the next shape it overlaps' },
  { keys: ['Ctrl+Shift+[', '⌘+Shift+['], does: 'Send the selection to the back' },
  { keys: ['Ctrl+Shift+L', '⌘+Shift+L'], does: 'Lock the selection so that nothing moves or deletes it, or unlock it' },
  { keys: ['Ctrl+G', '⌘+G'], does: 'Group the selection (two shapes or more): a click on one of them then selects them all' },
  { keys: ['Ctrl+Shift+G', '⌘+Shift+G'], does: 'Ungroup the selection' },
  { keys: ['Ctrl+=', 'Ctrl+-'], does: 'Zoom in or out' },
  { keys: ['0'], does: 'Zoom to fit every shape' },
  { keys: ['Space+drag'], does: 'Pan the view (so does dragging empty space, or the middle button)' },
  { keys: ['Ctrl+wheel'], does: 'Zoom about the pointer' },
  { keys: ['?'], does: 'Show or hide this help' },
];

/**
 * The order a bracket key asks for (Shift: all the way), or null: by the key, or by its position where
 * Shift or the layout types another character there.
 */
function orderOf(event) {
  const up = event.key === ']' || event.key === '}' || event.code === 'BracketRight';
  const down = event.key === '[' || event.key === '{' || event.code === 'BracketLeft';
  if (up) return event.shiftKey ? 'front' : 'forward';
  return down ? (event.shiftKey ? 'back' : 'backward') : null;
}

/** Arrow keys as a grid-step direction. */
const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * The letter of a key event, lower case: the key's own letter (Z on an AZERTY keyboard is where QWERTY
 * has W), or, where the layout types no Latin letter (Cyrillic, Greek), the letter of its position.
 */
function letter(event) {
  if (/^[a-z]$/i.test(event.key)) return event.key.toLowerCase();
  if (/^Key[A-Z]$/.test(event.code ?? '')) return event.code.slice(3).toLowerCase();
  return event.key.length === 1 ? event.key.toLowerCase() : '';
}

/** Whether a key aimed at `target` belongs to it rather than the board: a text field, an editable element or an open dialog. */
export function keyBelongsTo(target) {
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  return target.closest('input, textarea, select, dialog[open]') !== null;
}

/** Whether Space on `target` presses it (a button, a link, a summary), rather than holding the board's pan. */
function pressable(target) {
  return target instanceof Element && target !== document.body && target.closest('button, a[href], summary, [role="button"]') !== null;
}

/**
 * Handles the board's keys.
 * @param {object} board
 * @param {import('../lib/index.js').SnapboardClient} board.client
 * @param {import('./surface.js').Surface} board.surface  the selection, the angle shown, whether Space is held
 * @param {{toggleHelp: (show?: boolean) => void}} board.toolbar  the help
 * @param {{say: (text: string) => void}} board.status  where "select a shape first" is said
 * @param {import('./actions.js').Actions} board.actions  what the keys do
 * @param {() => boolean} board.editable  whether this person may change the canvas now
 * @param {{cancel: () => boolean}} [board.input]  the pointer input, whose gesture Escape cancels
 */
export function handleKeys({ client, surface, toolbar, status, actions, editable, input }) {
  const ui = surface.ui;
  /** The one selected shape a scale or turn key acts on, or null (having said why). */
  const single = () => {
    const shapes = actions.selected;
    if (shapes.length !== 1) status.say(shapes.length === 0 ? 'select a shape first' : 'select one shape to scale or turn it');
    return shapes.length === 1 && !actions.lockedAmong(shapes) ? shapes[0] : null;
  };
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || keyBelongsTo(event.target)) return;
    const command = event.ctrlKey || event.metaKey;
    const key = letter(event);
    if (event.key === ' ') {
      if (pressable(event.target)) return;
      // Held Space turns a drag into a pan; the page must not scroll.
      event.preventDefault();
      ui.spaceHeld = true;
      return;
    }
    if (event.key in arrows) {
      event.preventDefault();
      const [x, y] = arrows[event.key];
      const step = actions.gridStep, times = event.shiftKey ? 10 : 1;
      if (editable()) actions.nudge(x * step.x * times, y * step.y * times, event.altKey);
      return;
    }
    if (command) {
      if (key === 'a') { event.preventDefault(); actions.selectAll(); }
      else if (key === 'd') { event.preventDefault(); if (editable()) actions.duplicate(); }
      else if (key === 'z') { event.preventDefault(); if (editable()) (event.shiftKey ? actions.redo() : actions.undo()); }
      else if (key === 'y') { event.preventDefault(); if (editable()) actions.redo(); }
      else if (orderOf(event)) { event.preventDefault(); if (editable()) actions.order(orderOf(event)); }
      else if (key === 'l' && event.shiftKey) { event.preventDefault(); if (editable()) actions.toggleLock(); }
      else if (key === 'g') { event.preventDefault(); if (editable()) (event.shiftKey ? actions.ungroup() : actions.group()); }
      else if (event.key === '=' || event.key === '+') { event.preventDefault(); actions.zoomIn(); }
      else if (event.key === '-') { event.preventDefault(); actions.zoomOut(); }
      return;
    }
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      if (editable()) actions.deleteSelection();
    } else if (event.key === 'Enter' && !event.altKey && !event.shiftKey) {
      if (pressable(event.target)) return;
      event.preventDefault();
      if (editable()) actions.editText();
    } else if (event.key === 'Escape') {
      // During a drag Escape cancels the drag and keeps the selection; otherwise it deselects.
      if (!input?.cancel()) actions.deselect();
      toolbar.toggleHelp(false);
    } else if (event.key === '+' || event.key === '=' || event.key === '-') {
      const shape = editable() && single();
      if (shape) client.send({ op: 'scale', shape: shape.id, factor: event.key === '-' ? 0.8 : 1.25 });
    } else if (key === 'r' && !event.altKey) {
      const shape = editable() && single();
      if (shape) {
        ui.angleShape = shape.id;
        client.send({ op: 'rotate', shape: shape.id, radians: (event.shiftKey ? -1 : 1) * Math.PI / 12 });
      }
    } else if (event.key === '0') {
      actions.zoomToFit();
    } else if (event.key === '?') {
      toolbar.toggleHelp();
    } else {
      return;
    }
    surface.invalidate();
  });
  const releaseSpace = (event) => { if (event.key === ' ') ui.spaceHeld = false; };
  // Space let go wherever the focus is, or the window left: the pan mode must not stick.
  window.addEventListener('keyup', releaseSpace);
  window.addEventListener('blur', () => { ui.spaceHeld = false; });
}
