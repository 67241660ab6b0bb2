// The keyboard on the board: keys act on the selected shape (move, scale, rotate, delete), undo and
// redo this person's changes, fit the view and show the help.

/** Canvas units an arrow key moves the selection (Shift: ten times as far). */
const arrowStep = 8;

/**
 * Handles the board's keys.
 * @param {object} board
 * @param {HTMLElement} board.element  the board, which gets the keys while it has the focus
 * @param {import('../lib/index.js').SnapboardClient} board.client
 * @param {import('./surface.js').Surface} board.surface  the selection, the angle shown, the view
 * @param {import('./toolbar.js').Toolbar} board.toolbar  the help
 * @param {import('./status.js').StatusBar} board.status  where "select a shape first" is said
 */
export function handleKeys({ element, client, surface, toolbar, status }) {
  const ui = surface.ui;
  element.addEventListener('keydown', (event) => {
    const id = ui.selected;
    const needSelection = () => { if (!id) status.say('select a shape first'); return !!id; };
    const step = (event.shiftKey ? 10 : 1) * arrowStep;
    const arrows = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (event.key in arrows) {
      event.preventDefault();
      if (needSelection()) client.send({ op: 'move', shape: id, dx: arrows[event.key][0], dy: arrows[event.key][1] });
    } else if (event.key === '+' || event.key === '=' || event.key === '-') {
      if (needSelection()) client.send({ op: 'scale', shape: id, factor: event.key === '-' ? 0.8 : 1.25 });
    } else if (event.key === 'r' || event.key === 'R') {
      if (needSelection()) {
        ui.angleShape = id;
        client.send({ op: 'rotate', shape: id, radians: (event.key === 'r' ? 1 : -1) * Math.PI / 12 });
      }
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      if (needSelection()) {
        client.delete([id]);
        ui.selected = null;
      }
    } else if ((event.ctrlKey || event.metaKey) && (event.key === 'z' || event.key === 'Z' || event.key === 'y')) {
      event.preventDefault();
      if (event.key === 'z' && !event.shiftKey) client.undo();
      else client.redo();
    } else if (event.key === 'Escape') {
      ui.selected = null;
      toolbar.toggleHelp(false);
    } else if (event.key === '0') {
      surface.fitView();
    } else if (event.key === '?') {
      toolbar.toggleHelp();
    } else {
      return;
    }
    surface.invalidate();
  });
}
