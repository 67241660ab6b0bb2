// The toolbar's Arrange group: Bring to front, Bring forward, Send backward, Send to back and Lock (or
// Unlock, when every selected shape is locked), each one op on the whole selection (P25), and Group and
// Ungroup (P27), one op each. They are disabled while they would do nothing (no selection; Group with
// fewer than two shapes or a selection that is one group already, Ungroup with no group in it), and
// absent for viewers (the group is an editing one). On a screen too narrow for the whole toolbar
// (style.css) they fold into one Arrange button that opens them below it.

import { button } from './toolbar.js';

/** The order buttons, top to bottom: what each sends (`to`), its id, icon, accessible name and keys. */
export const orderButtons = [
  { to: 'front', id: 'bring-to-front', iconName: 'front', name: 'Bring to front', keys: 'Ctrl+Shift+]' },
  { to: 'forward', id: 'bring-forward', iconName: 'forward', name: 'Bring forward', keys: 'Ctrl+]' },
  { to: 'backward', id: 'send-backward', iconName: 'backward', name: 'Send backward', keys: 'Ctrl+[' },
  { to: 'back', id: 'send-to-back', iconName: 'back', name: 'Send to back', keys: 'Ctrl+Shift+[' },
];

export class ArrangeTools {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board: it takes the focus back after a button, and its
   *   'frame' event (a frame drawn) is when the buttons follow the selection and the locks
   * @param {import('../lib/index.js').SnapboardClient} board.client  whose replica says what is locked
   * @param {import('./actions.js').Actions} board.actions  order, toggleLock and the selection
   */
  constructor({ element, client, actions }) {
    Object.assign(this, { client, actions });
    this.group = document.getElementById('arrange');
    this.menu = button({ id: 'arrange-menu', iconName: 'arrange', name: 'Arrange' });
    this.menu.setAttribute('aria-haspopup', 'true');
    this.menu.setAttribute('aria-expanded', 'false');
    this.menu.setAttribute('aria-controls', 'arrange-items');
    this.menu.addEventListener('click', () => this.toggle());
    const act = (b, fn) => { b.addEventListener('click', () => { fn(); this.toggle(false); element.focus(); }); return b; };
    this.lock = act(button({ id: 'lock-button', iconName: 'lock', name: 'Lock', keys: 'Ctrl+Shift+L' }), () => actions.toggleLock());
    this.groupButton = act(button({ id: 'group-button', iconName: 'group', name: 'Group', keys: 'Ctrl+G' }), () => actions.group());
    this.ungroupButton = act(button({ id: 'ungroup-button', iconName: 'ungroup', name: 'Ungroup', keys: 'Ctrl+Shift+G' }), () => actions.ungroup());
    this.buttons = [...orderButtons.map((o) => act(button(o), () => actions.order(o.to))), this.lock, this.groupButton, this.ungroupButton];
    this.items = document.createElement('div');
    this.items.id = 'arrange-items';
    this.items.append(...this.buttons);
    this.group.append(this.menu, this.items);
    // A tap anywhere else folds the opened menu again.
    document.addEventListener('pointerdown', (event) => { if (!this.group.contains(event.target)) this.toggle(false); });
    element.addEventListener('frame', () => this.refresh());
    this.refresh();
  }

  /** Opens (true) or folds (false) the folded Arrange menu; with no argument, toggles it. */
  toggle(open = !this.group.classList.contains('open')) {
    if (open) {
      // Below the menu button, kept on screen: the toolbar scrolls and clips, so the menu is placed on the page.
      const at = this.menu.getBoundingClientRect(), bar = document.getElementById('toolbar').getBoundingClientRect();
      this.items.style.left = `${Math.max(4, Math.min(at.left, innerWidth - 200))}px`;
      this.items.style.top = `${bar.bottom + 4}px`;
    }
    this.group.classList.toggle('open', open);
    this.menu.setAttribute('aria-expanded', String(open));
  }

  /**
   * The buttons as the selection is now: disabled without one, Unlock when every selected shape is
   * locked, Group with two shapes or more not all in one group, Ungroup with a shape in a group.
   */
  refresh() {
    const shapes = this.actions.selected;
    const none = shapes.length === 0;
    const groups = new Set(shapes.map((s) => s.group));
    const disabled = new Map([...[this.menu, ...this.buttons].map((b) => [b, none]),
      [this.groupButton, shapes.length < 2 || (groups.size === 1 && !groups.has(undefined))], [this.ungroupButton, !shapes.some((s) => s.group !== undefined)]]);
    for (const [b, off] of disabled) if (b.disabled !== off) b.disabled = off;
    if (none && this.group.classList.contains('open')) this.toggle(false);
    const name = !none && shapes.every((s) => this.client.replica.isLocked(s.id)) ? 'Unlock' : 'Lock';
    if (this.lock.getAttribute('aria-label') !== name) {
      this.lock.setAttribute('aria-label', name);
      this.lock.title = `${name} (Ctrl+Shift+L)`;
    }
  }
}
