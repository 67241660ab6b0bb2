// The toolbar: the kind of shape a tap snaps (remembered across visits), and the help panel.

/** The kinds a tap can snap, with their buttons' titles. */
const kinds = [
  ['dot', 'Dot'], ['roundedRect', 'Rounded rect'], ['oval', 'Oval'], ['triangle', 'Triangle'],
  ['polygon', 'Polygon'], ['star', 'Star'], ['fractal', 'Fractal'],
];

export class Toolbar {
  /** @param {HTMLElement} board  what takes the focus back after a button */
  constructor(board) {
    /** The kind of shape a tap snaps. */
    this.kind = localStorage.getItem('snapboard.kind') ?? 'roundedRect';
    this.help = document.getElementById('help');
    const bar = document.getElementById('kinds');
    for (const [value, title] of kinds) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = title;
      button.dataset.kind = value;
      button.setAttribute('aria-pressed', String(value === this.kind));
      button.addEventListener('click', () => {
        this.kind = value;
        localStorage.setItem('snapboard.kind', value);
        for (const b of bar.children) b.setAttribute('aria-pressed', String(b.dataset.kind === value));
        board.focus();
      });
      bar.append(button);
    }
    document.getElementById('help-button').addEventListener('click', () => this.toggleHelp());
    document.getElementById('help-close').addEventListener('click', () => { this.toggleHelp(false); board.focus(); });
  }

  /** Shows (true) or hides (false) the help; with no argument, toggles it. */
  toggleHelp(show = this.help.hidden) {
    this.help.hidden = !show;
  }
}
