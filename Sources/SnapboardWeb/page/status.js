// The status bar (the connection's state, the seq held, the round trip and a short hint), the offline
// banner, and the list of the people on the canvas.

/** How long a hint stays, in milliseconds. */
const hintMs = 3000;

export class StatusBar {
  /** @param {import('../lib/index.js').SnapboardClient} client */
  constructor(client) {
    this.client = client;
    this.hint = document.getElementById('hint');
    this.hintTimer = null;
  }

  /** Shows `text` in the status bar for a few seconds. */
  say(text) {
    this.hint.textContent = text;
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => { this.hint.textContent = ''; }, hintMs);
  }

  /** Lists who is on the canvas, each with their colour, this person marked "(you)". */
  showPresence() {
    const replica = this.client.replica;
    const list = document.getElementById('sessions');
    list.replaceChildren(...[...replica.sessions].map(([id, who]) => {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = who.color;
      item.append(swatch, `${who.name}${id === replica.session ? ' (you)' : ''}`);
      item.dataset.session = String(id);
      return item;
    }));
  }

  /** The connection's state, the seq held and the last round trip; the banner while offline. */
  showStatus() {
    const client = this.client;
    document.getElementById('state').textContent = client.state;
    document.getElementById('seq').textContent = client.replica.seq >= 0 ? String(client.replica.seq) : '–';
    document.getElementById('rtt').textContent = client.rtt === null ? '–' : `${client.rtt.toFixed(1)} ms`;
    document.getElementById('offline').hidden = client.state !== 'offline';
  }
}
